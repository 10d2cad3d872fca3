package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.leaselab.testkit.Database;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
    @EnumSource(value = LockingStrategy.class, names = {"PG_CONDITIONAL_UPDATE", "PG_ROW_LOCK", "PG_ADVISORY_LOCK"})
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
        PostgresLeaseStore store = postgres.closeLater(PostgresLeaseStore.open(db.url(), strategy));
        for (String job : List.of("a", "b")) {
            store.enqueue(job);
            assertEquals(1, store.claim(job, "holder", 0, 30).orElseThrow());
        }
        List<Completion> batch = List.of(new Completion("b", "holder", 1, "b done"), new Completion("a", "holder", 1, "a done"));
        boolean advisory = strategy == LockingStrategy.PG_ADVISORY_LOCK;
        try (Connection holder = db.connect(); Connection probe = db.connect()) {
            holder.setAutoCommit(false);
            assertTrue(lock(holder, advisory, blocked, false));
            CompletableFuture<List<Boolean>> completeAll = CompletableFuture.supplyAsync(() -> store.completeAll(batch, 10));
            awaitSomeLockNotGranted(probe);
            probe.setAutoCommit(false);
            boolean otherWasFree = lock(probe, advisory, other, true);
            probe.rollback();
            holder.rollback();
            assertEquals(List.of(true, true), completeAll.get(30, TimeUnit.SECONDS), "both accepted, in the order given");
            return !otherWasFree;
        }
    }

    /**
     * Takes the job's lock, waiting for it or ({@code tryOnly}) answering false at once if another
     * transaction holds it: its advisory lock, or its row's lock.
     */
    private static boolean lock(Connection c, boolean advisory, String job, boolean tryOnly) throws SQLException {
        String sql = advisory
                ? "SELECT " + (tryOnly ? "pg_try_advisory_xact_lock" : "pg_advisory_xact_lock") + "(hashtextextended(?, 0))::text"
                : "SELECT 'true' FROM jobs WHERE id = ? FOR UPDATE" + (tryOnly ? " SKIP LOCKED" : "");
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, job);
            try (ResultSet row = s.executeQuery()) {
                // pg_advisory_xact_lock returns void, read as ""; SKIP LOCKED returns no row for a held row.
                return row.next() && !"false".equals(row.getString(1));
            }
        }
    }

    /** Waits until some session waits for a lock: completeAll has run into the held one. */
    private static void awaitSomeLockNotGranted(Connection c) throws Exception {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < giveUp) {
            try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM pg_locks WHERE NOT granted");
                    ResultSet row = s.executeQuery()) {
                row.next();
                if (row.getLong(1) > 0) {
                    return;
                }
            }
            Thread.sleep(10);
        }
        fail("completeAll never waited for the held lock");
    }
}
