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
 * A holder's {@code completeAll} just before its lease ends and another owner's {@code claim} of
 * the same job just after, racing: exactly one may win. The contract suite races claims against
 * claims and runs completeAll alone; here the two meet, which is where a strategy whose
 * completeAll takes other locks than its claim can let a claim overwrite a completion
 * ({@code PG_ADVISORY_LOCK}'s claim checks under the job's advisory lock and then writes without a
 * condition, so its completeAll must take those locks too). Each round's batch holds the raced job
 * and one that nobody else wants, so the batch is a real one; the test counts the rounds in which
 * the two calls overlapped in time and needs some.
 *
 * <p>The store comes from {@link StoreUnderTest}, so that the kill matrix ({@link KillMatrixTest})
 * can run this race against {@link BrokenPostgresStore#COMPLETE_ALL_WITHOUT_JOB_LOCKS} and require
 * it to be caught on {@code PG_ADVISORY_LOCK}.
 */
@ExtendWith({StoreUnderTest.class, StopAtFirstCatch.class})
class ClaimAgainstCompleteAllTest {

    private static final int ROUNDS = 100;
    private static final double TTL = 10;

    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void aCompleteAllAndAClaimAtTheEndOfTheLeaseNeverBothWin(LockingStrategy strategy, StoreFactory stores) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (LeaseStore store = stores.open(stores.database(strategy), strategy)) {
            int overlapped = 0;
            int completeWon = 0;
            for (int round = 0; round < ROUNDS; round++) {
                String job = "job-" + round;
                String alongside = job + "-alongside";
                double claimedAt = 100.0 * (round + 1);
                double until = claimedAt + TTL;
                for (String id : List.of(job, alongside)) {
                    assertTrue(store.enqueue(id));
                    assertEquals(OptionalLong.of(1), store.claim(id, "holder", claimedAt, TTL), id);
                }
                List<Completion> batch = List.of(new Completion(alongside, "holder", 1, "alongside-done"),
                        new Completion(job, "holder", 1, "done"));
                CyclicBarrier start = new CyclicBarrier(2);
                long[] span = new long[4];
                Future<List<Boolean>> completeAll = threads.submit(() -> {
                    start.await();
                    span[0] = System.nanoTime();
                    List<Boolean> accepted = store.completeAll(batch, until - 1);
                    span[1] = System.nanoTime();
                    return accepted;
                });
                Future<OptionalLong> claim = threads.submit(() -> {
                    start.await();
                    span[2] = System.nanoTime();
                    OptionalLong fence = store.claim(job, "taker", until + 1, TTL);
                    span[3] = System.nanoTime();
                    return fence;
                });
                List<Boolean> accepted = completeAll.get(30, TimeUnit.SECONDS);
                OptionalLong taken = claim.get(30, TimeUnit.SECONDS);
                String where = strategy + ", round " + round;
                assertEquals(true, accepted.get(0), where + ": the job that nobody else wanted");
                boolean completed = accepted.get(1);
                assertTrue(completed != taken.isPresent(), where + ": completeAll " + accepted + ", claim " + taken
                        + ": exactly one of them must win " + job + ", which ended as " + store.state(job).orElseThrow());
                JobState expected = completed
                        ? new JobState(job, "holder", until, 1, "done", true)
                        : new JobState(job, "taker", until + 1 + TTL, 2, null, false);
                assertEquals(expected, store.state(job).orElseThrow(), where);
                overlapped += span[0] < span[3] && span[2] < span[1] ? 1 : 0;
                completeWon += completed ? 1 : 0;
            }
            assertTrue(overlapped > 0, strategy + ": the two calls never overlapped in " + ROUNDS + " rounds");
            System.out.printf("%s: %d of %d rounds overlapped; completeAll won %d, claim %d%n", strategy, overlapped, ROUNDS,
                    completeWon, ROUNDS - completeWon);
        } finally {
            threads.shutdownNow();
        }
    }
}
