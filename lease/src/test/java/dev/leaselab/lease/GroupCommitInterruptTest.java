package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link LockingStrategy#GROUP_COMMIT} write whose caller is interrupted while another thread's
 * batch runs. Its write is queued and may already be in a leader's transaction, so it cannot be
 * abandoned: the caller must get its write's real outcome, and get its interrupt back.
 */
class GroupCommitInterruptTest {

    @TempDir
    Path dir;

    @Test
    void anInterruptedWaiterGetsItsWritesOutcomeAndKeepsItsInterrupt() throws Exception {
        Path file = dir.resolve("jobs.db");
        StoreOptions options = StoreOptions.defaults().withBusyTimeout(Duration.ofSeconds(30));
        try (SqliteLeaseStore store = SqliteLeaseStore.open(file, LockingStrategy.GROUP_COMMIT, options);
             Connection holder = DriverManager.getConnection("jdbc:sqlite:" + file);
             Statement h = holder.createStatement()) {
            store.enqueue("a");
            store.enqueue("b");
            h.execute("BEGIN IMMEDIATE");
            // The leader's batch waits for the write lock that the holder keeps.
            CompletableFuture<OptionalLong> leaderResult = new CompletableFuture<>();
            Thread leader = new Thread(() -> leaderResult.complete(store.claim("a", "L", 100, 30)), "leader");
            leader.start();
            ThreadWaits.awaitFrame(leader, f -> f.getMethodName().equals("runBatch"));
            // The waiter finds a leader at work, queues its write and parks.
            CompletableFuture<OptionalLong> waiterResult = new CompletableFuture<>();
            CompletableFuture<Boolean> waiterInterrupted = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                waiterResult.complete(store.claim("b", "W", 100, 30));
                waiterInterrupted.complete(Thread.currentThread().isInterrupted());
            }, "waiter");
            waiter.start();
            ThreadWaits.awaitParkedInSubmit(waiter);
            waiter.interrupt();
            h.execute("ROLLBACK");

            assertEquals(OptionalLong.of(1), leaderResult.get(30, TimeUnit.SECONDS));
            assertEquals(OptionalLong.of(1), waiterResult.get(30, TimeUnit.SECONDS), "the interrupted write still ran");
            assertTrue(waiterInterrupted.get(30, TimeUnit.SECONDS), "the waiter keeps its interrupt");
            assertEquals("W", store.state("b").orElseThrow().owner());
        }
    }
}
