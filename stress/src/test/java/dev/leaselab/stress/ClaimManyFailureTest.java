package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LeaseStoreException;
import dev.leaselab.lease.LockingStrategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The thread driver's rule for a {@code claimMany} that throws ({@link ThreadRaceDriver#CLAIM_MANY}):
 * a bug's exception is a violation however rarely it comes, a database error is counted and
 * forgiven unless it is all the run ever got. The stores are correct SQLite stores whose
 * claimMany alone is made to throw ({@link ClaimManyFailingStore}); before the rule, the driver
 * swallowed every exception of claimMany and passed all of them.
 */
class ClaimManyFailureTest {

    private static final StoreUnderTest STORE = StoreUnderTest.correct(LockingStrategy.IMMEDIATE);

    @TempDir
    Path dir;

    /** At most 100 claimMany rounds (every third round is one), or one second. */
    private RaceResult race(IntFunction<RuntimeException> failure) {
        return ThreadRaceDriver.run(STORE, dir, new ThreadRaceDriver.Settings(4, Duration.ofSeconds(1), 300, 42),
                store -> new ClaimManyFailingStore(store, failure));
    }

    private static LeaseStoreException busy() {
        return new LeaseStoreException("database is locked past the busy timeout", null);
    }

    @Test
    void claimManyThatAlwaysThrowsAnIllegalStateExceptionIsAViolationNamingIt() {
        RaceResult result = race(call -> new IllegalStateException("claim threads are gone"));

        assertTrue(result.violated(), "a claimMany that always throws passed");
        assertTrue(result.firstViolation().startsWith(ThreadRaceDriver.CLAIM_MANY), result.firstViolation());
        assertTrue(result.firstViolation().contains("java.lang.IllegalStateException: claim threads are gone"),
                result.firstViolation());
        // The driver stops at the first violation: the first claimMany round.
        assertEquals(1, result.claimManyRounds());
        assertEquals(0, result.claimManyFailures());
    }

    @Test
    void aSingleNullPointerExceptionFromClaimManyIsAViolation() {
        RaceResult result = race(call -> call == 5 ? new NullPointerException("owners[2]") : null);

        assertTrue(result.violated(), "a claimMany that threw an NPE passed");
        assertTrue(result.firstViolation().contains("NullPointerException: owners[2]"), result.firstViolation());
        assertEquals(5, result.claimManyRounds());
    }

    @Test
    void claimManyThatFailsWithADatabaseErrorInEveryRoundIsAViolation() {
        RaceResult result = race(call -> busy());

        assertTrue(result.violated(), "a claimMany that never worked passed");
        assertTrue(result.claimManyRounds() > 0);
        assertEquals(result.claimManyRounds(), result.claimManyFailures());
        assertTrue(result.firstViolation().startsWith(ThreadRaceDriver.CLAIM_MANY + " failed in all "
                + result.claimManyRounds() + " rounds"), result.firstViolation());
        assertTrue(result.firstViolation().contains("LeaseStoreException: database is locked"),
                result.firstViolation());
        // Only the driver saw it: the recorded claims and writes were all correct.
        assertTrue(result.check().passed(), result.check().describeViolations(3));
    }

    @Test
    void claimManyThatFailsWithADatabaseErrorNowAndThenIsCountedAndPasses() {
        RaceResult result = race(call -> call % 2 == 0 ? busy() : null);

        assertFalse(result.violated(), () -> result.firstViolation() + "\n" + result.check().describeViolations(3));
        assertTrue(result.claimManyRounds() >= 2, "only " + result.claimManyRounds() + " claimMany rounds");
        assertEquals(result.claimManyRounds() / 2, result.claimManyFailures());
        Verdict verdict = Verdict.of(STORE, result, 0);
        assertEquals(Verdict.Outcome.PASS, verdict.outcome());
        assertTrue(verdict.detail().contains(result.claimManyFailures() + " of " + result.claimManyRounds()
                + " claimMany rounds failed with a database error"), verdict.detail());
    }

    @Test
    void aCorrectStoreThroughTheSeamPassesWithItsClaimManyRoundsJudged() {
        RaceResult result = ThreadRaceDriver.run(STORE, dir,
                new ThreadRaceDriver.Settings(4, Duration.ofSeconds(1), 300, 42), store -> store);

        assertFalse(result.violated(), () -> result.firstViolation() + "\n" + result.check().describeViolations(3));
        assertTrue(result.claimManyRounds() > 0, "no claimMany round ran");
        assertTrue(result.claimManyFailures() < result.claimManyRounds());
    }
}
