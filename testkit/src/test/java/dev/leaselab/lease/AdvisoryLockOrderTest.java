package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.testkit.Database;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code PG_ADVISORY_LOCK}'s claimNext takes its picked jobs' advisory locks in job-id order, the
 * order completeAll takes them in (the store sorts a batch by id), not in queue order: a claimNext
 * and a stale holder's completeAll that share two jobs would otherwise take the locks in opposite
 * orders and deadlock. The two jobs here are "a", whose lease ran out last, and "b", so the queue
 * order is b, a and the id order a, b. Another connection holds one job's lock; while claimNext
 * waits for it, a probe tries the other job's lock: claimNext must hold the jobs before the
 * blocked one in id order, and none after it. Holding "a" shows the order (claimNext must not
 * have taken "b" yet); holding "b" shows that the probe sees a lock claimNext holds (it has taken
 * "a"), so the first assertion is no probe that can never fail.
 */
class AdvisoryLockOrderTest {

    @RegisterExtension
    final PostgresFixture postgres = new PostgresFixture();

    @Test
    void claimNextLocksItsJobsInJobIdOrderNotInQueueOrder() throws Exception {
        assertFalse(claimNextHeldTheOtherWhileBlockedOn("a", "b"), "claimNext took b, after a in id order, first");
        assertTrue(claimNextHeldTheOtherWhileBlockedOn("b", "a"), "the probe did not see a, which claimNext holds");
    }

    /**
     * Holds {@code blocked}'s lock, lets claimNext run into it, and answers whether claimNext then
     * held {@code other}'s (a failed try of it from a third connection); then lets claimNext finish,
     * with both jobs, in queue order.
     */
    private boolean claimNextHeldTheOtherWhileBlockedOn(String blocked, String other) throws Exception {
        Database.PostgresSchema db = postgres.database();
        PostgresLeaseStore store = postgres.closeLater(PostgresLeaseStore.open(PostgresFixture.storeUrl(db), LockingStrategy.PG_ADVISORY_LOCK));
        String a = PostgresFixture.job(db, "a");
        String b = PostgresFixture.job(db, "b");
        store.enqueue(a);
        store.enqueue(b);
        assertTrue(store.claim(a, "old", 0, 10).isPresent());
        assertTrue(store.claim(b, "old", 0, 5).isPresent());
        try (Connection holder = db.connect(); Connection probe = db.connect()) {
            holder.setAutoCommit(false);
            PostgresFixture.jobLock(holder, true, PostgresFixture.job(db, blocked), false);
            CompletableFuture<List<Lease>> claimNext = CompletableFuture.supplyAsync(() -> store.claimNext("new", 100, 30, 2));
            PostgresFixture.awaitALockWait(probe, PostgresFixture.application(db), "claimNext");
            probe.setAutoCommit(false);
            boolean otherWasFree = PostgresFixture.jobLock(probe, true, PostgresFixture.job(db, other), true);
            probe.rollback();
            holder.rollback();
            List<Lease> leases = claimNext.get(30, TimeUnit.SECONDS);
            assertEquals(List.of(b, a), leases.stream().map(Lease::jobId).toList(), "the batch in queue order");
            return !otherWasFree;
        }
    }
}
