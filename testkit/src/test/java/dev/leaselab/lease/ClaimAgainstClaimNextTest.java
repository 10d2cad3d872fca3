package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.testkit.StopAtFirstCatch;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A {@code claim} of a job and a {@code claimNext} that picks the same job, racing: exactly one may
 * win it. The contract suite races claims against claims; here the two ways in meet, which is
 * where a strategy whose {@code claimNext} takes other locks than its {@code claim} can give the
 * job twice ({@code PG_ADVISORY_LOCK}'s per-job lock and re-check inside {@code claimNext} are
 * what prevent it there). Every round offers one fresh job, so both calls want the same one; the
 * test counts the rounds in which the two calls overlapped in time and needs some.
 *
 * <p>The store comes from {@link StoreUnderTest}, so that the kill matrix ({@link KillMatrixTest})
 * can run this race against {@link BrokenPostgresStore#CLAIM_NEXT_WITHOUT_JOB_LOCK}, that
 * claimNext without the per-job lock and re-check, and require it to be caught.
 */
@ExtendWith({StoreUnderTest.class, StopAtFirstCatch.class})
class ClaimAgainstClaimNextTest {

    private static final int ROUNDS = 100;
    private static final double TTL = 1_000;

    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void aClaimAndAClaimNextOfTheSameJobNeverBothWin(LockingStrategy strategy, StoreFactory stores) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (LeaseStore store = stores.open(stores.database(strategy), strategy)) {
            int overlapped = 0;
            int claimWon = 0;
            for (int round = 0; round < ROUNDS; round++) {
                String job = "job-" + round;
                double now = 100 + round;
                assertTrue(store.enqueue(job));
                CyclicBarrier start = new CyclicBarrier(2);
                long[] span = new long[4];
                Future<OptionalLong> claim = threads.submit(() -> {
                    start.await();
                    span[0] = System.nanoTime();
                    OptionalLong fence = store.claim(job, "claimer", now, TTL);
                    span[1] = System.nanoTime();
                    return fence;
                });
                Future<List<Lease>> next = threads.submit(() -> {
                    start.await();
                    span[2] = System.nanoTime();
                    List<Lease> leases = store.claimNext("picker", now, TTL, 1);
                    span[3] = System.nanoTime();
                    return leases;
                });
                OptionalLong fence = claim.get(30, TimeUnit.SECONDS);
                List<Lease> picked = next.get(30, TimeUnit.SECONDS);
                boolean pickedIt = picked.stream().anyMatch(l -> l.jobId().equals(job));
                assertTrue(fence.isPresent() != pickedIt, strategy + ", round " + round + ": claim " + fence + ", claimNext "
                        + picked + ": exactly one of them must win " + job);
                assertEquals(1, store.state(job).orElseThrow().fence(), strategy + ", round " + round);
                overlapped += span[0] < span[3] && span[2] < span[1] ? 1 : 0;
                claimWon += fence.isPresent() ? 1 : 0;
            }
            assertTrue(overlapped > 0, strategy + ": the two calls never overlapped in " + ROUNDS + " rounds");
            System.out.printf("%s: %d of %d rounds overlapped; claim won %d, claimNext %d%n", strategy, overlapped, ROUNDS,
                    claimWon, ROUNDS - claimWon);
        } finally {
            threads.shutdownNow();
        }
    }
}
