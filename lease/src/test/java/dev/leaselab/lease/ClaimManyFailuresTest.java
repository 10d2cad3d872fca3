package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code claimMany} whose race does not end with results: claims that fail, and a caller that is
 * interrupted. The contract suite races claims that succeed or lose; here no failure may be lost
 * from the exception, and an interrupt must not be swallowed.
 */
class ClaimManyFailuresTest {

    @TempDir
    Path dir;

    @Test
    void claimsThatAllFailThrowTheFirstFailureWithTheOthersSuppressed() throws SQLException {
        Path file = dir.resolve("jobs.db");
        StoreOptions options = StoreOptions.defaults().withBusyTimeout(Duration.ofMillis(100));
        try (SqliteLeaseStore store = SqliteLeaseStore.open(file, LockingStrategy.CONDITIONAL_UPDATE, options)) {
            store.enqueue("j");
            try (Connection holder = DriverManager.getConnection("jdbc:sqlite:" + file);
                 Statement h = holder.createStatement()) {
                h.execute("BEGIN IMMEDIATE");
                LeaseStoreException e = assertThrows(LeaseStoreException.class,
                        () -> store.claimMany("j", List.of("A", "B", "C"), 100, 30));
                h.execute("ROLLBACK");
                assertTrue(e.getMessage().startsWith("claim failed on " + file.toAbsolutePath()), e.getMessage());
                assertInstanceOf(SQLException.class, e.getCause());
                assertEquals(2, e.getSuppressed().length, List.of(e.getSuppressed()).toString());
                for (Throwable other : e.getSuppressed()) {
                    assertTrue(other.getMessage().startsWith("claim failed on "), other.getMessage());
                }
            }
            assertEquals(0, store.state("j").orElseThrow().fence());
        }
    }

    @Test
    void anInterruptedCallerFailsKeepsItsInterruptAndRunsNoClaim() throws InterruptedException {
        Path file = dir.resolve("jobs.db");
        try (SqliteLeaseStore store = SqliteLeaseStore.open(file, LockingStrategy.CONDITIONAL_UPDATE)) {
            store.enqueue("j");
            Thread.currentThread().interrupt();
            LeaseStoreException e;
            try {
                e = assertThrows(LeaseStoreException.class, () -> store.claimMany("j", List.of("A", "B"), 100, 30));
            } finally {
                assertTrue(Thread.interrupted(), "the interrupt is kept");
            }
            assertEquals("interrupted while racing claims on " + file.toAbsolutePath(), e.getMessage());
            assertInstanceOf(InterruptedException.class, e.getCause());
            // Interrupted before the claims were let go: every claimant ends, and none claimed.
            ThreadPoolExecutor claimants = (ThreadPoolExecutor) store.claimThreads;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (claimants.getActiveCount() > 0) {
                assertTrue(System.nanoTime() < deadline, claimants.getActiveCount() + " claimants still run 10 s later");
                Thread.sleep(1);
            }
            assertEquals(new JobState("j", null, 0, 0, null, false), store.state("j").orElseThrow());
        }
    }
}
