package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.testkit.Database;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * On PostgreSQL a completeAll locks its jobs in job-id order, whatever order the caller lists
 * them in (the store sorts the batch by id): two batches that share two jobs, listed in opposite
 * orders, would otherwise each hold one job and wait for the other, a deadlock that PostgreSQL
 * ends by failing one of them. {@code PG_ADVISORY_LOCK} takes the jobs' advisory locks, the other
 * two strategies the rows' locks (each completion is an {@code UPDATE}). The batch lists "b"
 * before "a". Another connection holds one job's lock; while completeAll waits for it, a probe
 * tries the other job's lock: completeAll must hold the job before the blocked one in id order,
 * and not the one after it. Holding "a" shows the order (completeAll must not have taken "b");
 * holding "b" shows that the probe sees a lock completeAll holds (it has taken "a"), so the first
 * assertion is no probe that can never fail.
 */
class CompleteAllLockOrderTest {

    @RegisterExtension
    final PostgresFixture postgres = new PostgresFixture();

    @ParameterizedTest
    @MethodSource(PostgresFixture.STRATEGIES)
    void completeAllLocksItsJobsInJobIdOrderNotInTheOrderGiven(LockingStrategy strategy) throws Exception {
        assertFalse(completeAllHeldTheOtherWhileBlockedOn(strategy, "a", "b"), "completeAll took b, after a in id order, first");
        assertTrue(completeAllHeldTheOtherWhileBlockedOn(strategy, "b", "a"), "the probe did not see a, which completeAll holds");
    }

    /**
     * Holds {@code blocked}'s lock, lets completeAll of "b" then "a" run into it, and answers
     * whether completeAll then held {@code other}'s (a failed try of it from a third connection);
     * then lets completeAll finish, accepting both, answered in the order given.
     */
    private boolean completeAllHeldTheOtherWhileBlockedOn(LockingStrategy strategy, String blocked, String other) throws Exception {
        Database.PostgresSchema db = postgres.database();
        PostgresLeaseStore store = postgres.closeLater(PostgresLeaseStore.open(PostgresFixture.storeUrl(db), strategy));
        String a = PostgresFixture.job(db, "a");
        String b = PostgresFixture.job(db, "b");
        for (String job : List.of(a, b)) {
            store.enqueue(job);
            assertEquals(1, store.claim(job, "holder", 0, 30).orElseThrow());
        }
        List<Completion> batch = List.of(new Completion(b, "holder", 1, "b done"), new Completion(a, "holder", 1, "a done"));
        boolean advisory = strategy == LockingStrategy.PG_ADVISORY_LOCK;
        try (Connection holder = db.connect(); Connection probe = db.connect()) {
            holder.setAutoCommit(false);
            assertTrue(PostgresFixture.jobLock(holder, advisory, PostgresFixture.job(db, blocked), false));
            CompletableFuture<List<Boolean>> completeAll = CompletableFuture.supplyAsync(() -> store.completeAll(batch, 10));
            PostgresFixture.awaitALockWait(probe, PostgresFixture.application(db), "completeAll");
            probe.setAutoCommit(false);
            boolean otherWasFree = PostgresFixture.jobLock(probe, advisory, PostgresFixture.job(db, other), true);
            probe.rollback();
            holder.rollback();
            assertEquals(List.of(true, true), completeAll.get(30, TimeUnit.SECONDS), "both accepted, in the order given");
            return !otherWasFree;
        }
    }
}
