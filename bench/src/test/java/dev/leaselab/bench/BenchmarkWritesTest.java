package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.ForwardingLeaseStore;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.SqliteLeaseStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.opentest4j.AssertionFailedError;

/**
 * SQLite skips a write that leaves a row's bytes as they were ({@code btreeOverwriteContent}
 * compares before it marks the page dirty), and a transaction with nothing dirty commits without
 * a WAL frame or an fsync. A benchmark whose operation rewrites the values a row already holds
 * therefore measures a read: the first full baseline had {@code RenewBenchmark} at 27x the floor on
 * WAL_FULL. Here the benchmarks' own renew and worker-cycle operations run on a real WAL file
 * through a store that asks a second connection for {@code PRAGMA data_version} after every
 * write, which moves only when another connection committed a change; the old operations (renewed
 * at the claim's moment) are the negative controls that the check must catch.
 */
class BenchmarkWritesTest {

    @TempDir
    Path dir;

    static LockingStrategy[] sqliteStrategies() {
        return LockingStrategy.of(LockingStrategy.Engine.SQLITE).toArray(LockingStrategy[]::new);
    }

    @ParameterizedTest
    @MethodSource("sqliteStrategies")
    void everyRenewalOfRenewBenchmarkCommitsAWrite(LockingStrategy strategy) throws SQLException {
        try (Watched store = open(strategy)) {
            RenewBenchmark.Lease lease = heldLease(store);
            for (int i = 0; i < 3; i++) {
                assertTrue(lease.renewNext("me"), "renewal " + i + " refused");
            }
            assertEquals(4, store.writes, "the claim and three renewals");
        }
    }

    @Test
    void renewalsAtTheClaimsMomentAreCaught() throws SQLException {
        try (Watched store = open(LockingStrategy.IMMEDIATE)) {
            RenewBenchmark.Lease lease = heldLease(store);
            AssertionFailedError caught = assertThrows(AssertionFailedError.class,
                    () -> store.renew(lease.job, "me", lease.fence, RenewBenchmark.NOW, RenewBenchmark.TTL));
            assertTrue(caught.getMessage().startsWith("renew committed no change"), caught.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("sqliteStrategies")
    void theWorkerCyclesClaimRenewalAndCompletionEachCommitAWrite(LockingStrategy strategy) throws SQLException {
        try (Watched store = open(strategy)) {
            store.enqueue("cycle-0");
            OptionalLong fence = WorkerCycleBenchmark.claim(store, "cycle-0", "me");
            assertTrue(fence.isPresent(), "claim lost");
            assertTrue(WorkerCycleBenchmark.work(store, "cycle-0", "me", fence.getAsLong()), "renew or complete refused");
            assertEquals(3, store.writes, "claim, renew, complete");
        }
    }

    @Test
    void aCycleThatRenewsAtTheClaimsMomentIsCaught() throws SQLException {
        try (Watched store = open(LockingStrategy.CONDITIONAL_UPDATE)) {
            store.enqueue("cycle-0");
            long fence = WorkerCycleBenchmark.claim(store, "cycle-0", "me").orElseThrow();
            assertThrows(AssertionFailedError.class, () -> store.renew("cycle-0", "me", fence, WorkerCycleBenchmark.NOW,
                    WorkerCycleBenchmark.TTL));
        }
    }

    private RenewBenchmark.Lease heldLease(LeaseStore store) {
        RenewBenchmark.Lease lease = new RenewBenchmark.Lease();
        lease.store = store;
        lease.job = "renew-0";
        store.enqueue(lease.job);
        lease.fence = store.claim(lease.job, "me", RenewBenchmark.NOW, RenewBenchmark.TTL).orElseThrow();
        return lease;
    }

    private Watched open(LockingStrategy strategy) throws SQLException {
        Path file = dir.resolve(strategy + ".db");
        SqliteLeaseStore store = SqliteLeaseStore.open(file, strategy, Storage.WAL_FULL.options());
        return new Watched(store, DriverManager.getConnection("jdbc:sqlite:" + file));
    }

    /** Passes every operation on, and after each claim, renew and complete checks that a change was committed. */
    private static final class Watched extends ForwardingLeaseStore {
        private final Connection watcher;
        private long version;
        int writes;

        Watched(LeaseStore delegate, Connection watcher) throws SQLException {
            super(delegate);
            this.watcher = watcher;
            this.version = dataVersion();
        }

        @Override
        public boolean enqueue(String jobId) {
            boolean enqueued = delegate.enqueue(jobId);
            version = dataVersionUnchecked();
            return enqueued;
        }

        @Override
        public OptionalLong claim(String jobId, String owner, double now, double ttl) {
            OptionalLong fence = delegate.claim(jobId, owner, now, ttl);
            committed("claim");
            return fence;
        }

        @Override
        public boolean renew(String jobId, String owner, long fence, double now, double ttl) {
            boolean renewed = delegate.renew(jobId, owner, fence, now, ttl);
            committed("renew");
            return renewed;
        }

        @Override
        public boolean complete(String jobId, String owner, long fence, double now, String result) {
            boolean completed = delegate.complete(jobId, owner, fence, now, result);
            committed("complete");
            return completed;
        }

        private void committed(String operation) {
            long next = dataVersionUnchecked();
            assertNotEquals(version, next, operation + " committed no change: SQLite skipped the write");
            version = next;
            writes++;
        }

        private long dataVersionUnchecked() {
            try {
                return dataVersion();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        private long dataVersion() throws SQLException {
            try (Statement s = watcher.createStatement(); ResultSet r = s.executeQuery("PRAGMA data_version")) {
                r.next();
                return r.getLong(1);
            }
        }

        @Override
        public void close() {
            try {
                watcher.close();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            } finally {
                super.close();
            }
        }
    }
}
