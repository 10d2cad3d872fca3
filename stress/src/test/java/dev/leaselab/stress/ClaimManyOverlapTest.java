package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.BrokenStore;
import dev.leaselab.lease.ForwardingLeaseStore;
import dev.leaselab.lease.LockingStrategy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The thread driver's check that the claims inside {@code claimMany} met in time
 * ({@link ThreadRaceDriver#OVERLAP_ROUNDS}): a claimMany that runs its claims one at a time
 * ({@link BrokenStore#CLAIM_MANY_ONE_AT_A_TIME}) gets every result right and is caught by this
 * check alone, with its own message, whatever the seed; a store that stamps no claims is not
 * measured, and says so instead of failing.
 */
class ClaimManyOverlapTest {

    private static final StoreUnderTest ONE_AT_A_TIME =
            new StoreUnderTest(LockingStrategy.IMMEDIATE, BrokenStore.CLAIM_MANY_ONE_AT_A_TIME);

    /** The seeds the control is raced with: its random order of owners and the driver's choices vary. */
    private static final int SEEDS = 20;

    @TempDir
    Path dir;

    @Test
    void aClaimManyThatRunsItsClaimsOneAtATimeIsCaughtWithEverySeedSayingWhy() throws IOException {
        int caught = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            RaceResult result = ThreadRaceDriver.run(ONE_AT_A_TIME, Files.createDirectory(dir.resolve("seed-" + seed)),
                    new ThreadRaceDriver.Settings(6, Duration.ofSeconds(30), 100_000, seed));

            assertTrue(result.violated(), "seed " + seed + ": not caught in " + result.claimManyRounds() + " claimMany rounds");
            assertTrue(result.firstViolation().startsWith(ThreadRaceDriver.CLAIM_MANY
                    + ": the claims inside claimMany never overlapped in time, in " + ThreadRaceDriver.OVERLAP_ROUNDS
                    + " rounds"), "seed " + seed + ": " + result.firstViolation());
            // Every result was right: only the stamps told it apart.
            assertTrue(result.check().passed(), result.check().describeViolations(3));
            assertEquals(ThreadRaceDriver.OVERLAP_ROUNDS, result.claimManyMeasured());
            assertEquals(0, result.claimManyOverlapped());
            Verdict verdict = Verdict.of(ONE_AT_A_TIME, result, 1);
            assertEquals(Verdict.Outcome.CAUGHT, verdict.outcome(), verdict.row());
            assertTrue(verdict.row().contains(" 0/" + ThreadRaceDriver.OVERLAP_ROUNDS + " "), verdict.row());
            caught++;
        }
        assertEquals(SEEDS, caught);
    }

    @Test
    void aStoreWhoseClaimsAreNotStampedIsReportedAsNotMeasuredAndPasses() {
        StoreUnderTest store = StoreUnderTest.correct(LockingStrategy.IMMEDIATE);
        // The real claimMany, called from another thread: the probe stays with the driver's thread,
        // so the store's claims race as ever but nobody stamps them (as in a guest's store).
        RaceResult result = ThreadRaceDriver.run(store, dir, new ThreadRaceDriver.Settings(4, Duration.ofSeconds(1), 300, 42),
                s -> new ForwardingLeaseStore(s) {
                    @Override
                    public List<OptionalLong> claimMany(String jobId, List<String> owners, double now, double ttl) {
                        return CompletableFuture.supplyAsync(() -> delegate.claimMany(jobId, owners, now, ttl)).join();
                    }
                });

        assertFalse(result.violated(), result.firstViolation());
        assertTrue(result.claimManyRounds() > 0);
        assertEquals(0, result.claimManyMeasured());
        Verdict verdict = Verdict.of(store, result, 1);
        assertEquals(Verdict.Outcome.PASS, verdict.outcome(), verdict.detail());
        assertTrue(verdict.row().contains(" not measured "), verdict.row());
        assertTrue(verdict.detail().contains("claimMany overlap not measured"), verdict.detail());
    }

    @Test
    void tooFewMeasuredRoundsWithoutOverlapAreInconclusiveAndOverlappingOnesPass() {
        CheckReport clean = new CheckReport(0, 0, 0, 0, List.of(), 0);
        StoreUnderTest store = StoreUnderTest.correct(LockingStrategy.IMMEDIATE);
        RaceResult few = new RaceResult("IMMEDIATE", "threads", 30, 30, 300, 0, 10, 0, 10, 0, -1, null, clean, 0, 0, "ok", 1);
        RaceResult raced = new RaceResult("IMMEDIATE", "threads", 30, 30, 300, 0, 10, 0, 10, 9, -1, null, clean, 0, 0, "ok", 1);

        Verdict inconclusive = Verdict.of(store, few, 1);
        assertEquals(Verdict.Outcome.INCONCLUSIVE, inconclusive.outcome());
        assertTrue(inconclusive.detail().contains("overlapped in none of only 10 measured rounds"), inconclusive.detail());
        Verdict pass = Verdict.of(store, raced, 1);
        assertEquals(Verdict.Outcome.PASS, pass.outcome());
        assertTrue(pass.row().contains(" 9/10 "), pass.row());
        assertTrue(pass.detail().contains("the claims overlapped in 9 of 10 measured claimMany rounds"), pass.detail());
    }
}
