package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link LockingStrategy#GROUP_COMMIT} batch of writes from several threads in which one write
 * fails: the whole transaction is rolled back and every write in it fails, so a write that ran
 * before the failing one is not committed, and the store goes on working (its next write is
 * committed). The contract suite's failing batch is one {@code completeAll}, one request; this is
 * two requests of two threads in one batch, which only the leader's queue puts together.
 */
class GroupCommitBatchFailureTest {

    @TempDir
    Path dir;

    /** The threads that {@link #run} started, by name. */
    private final Map<String, Thread> threads = new ConcurrentHashMap<>();

    @Test
    void aWriteThatFailsInABatchFailsEveryWriteOfItAndCommitsNone() throws Exception {
        Path file = dir.resolve("jobs.db");
        StoreOptions options = StoreOptions.defaults().withBusyTimeout(Duration.ofSeconds(30));
        try (SqliteLeaseStore store = SqliteLeaseStore.open(file, LockingStrategy.GROUP_COMMIT, options);
             Connection holder = DriverManager.getConnection("jdbc:sqlite:" + file);
             Statement h = holder.createStatement()) {
            for (String id : new String[] {"lead", "fine", "boom"}) {
                store.enqueue(id);
            }
            assertEquals(OptionalLong.of(1), store.claim("fine", "A", 100, 30));
            assertEquals(OptionalLong.of(1), store.claim("boom", "A", 100, 30));
            h.execute("CREATE TRIGGER refuse_boom BEFORE UPDATE OF result ON jobs WHEN NEW.result = 'boom' "
                    + "BEGIN SELECT RAISE(ABORT, 'boom refused'); END");
            h.execute("BEGIN IMMEDIATE");
            // A lone write waits for the lock that the holder keeps; the two completes queue behind
            // it in this order, and the next leader takes both into one batch.
            CompletableFuture<OptionalLong> lead = run("lead", () -> store.claim("lead", "L", 100, 30));
            ThreadWaits.awaitFrame(threads.get("lead"), f -> f.getMethodName().equals("runBatch"));
            CompletableFuture<Boolean> fine = run("fine", () -> store.complete("fine", "A", 1, 110, "done"));
            ThreadWaits.awaitParkedInSubmit(threads.get("fine"));
            CompletableFuture<Boolean> boom = run("boom", () -> store.complete("boom", "A", 1, 110, "boom"));
            ThreadWaits.awaitParkedInSubmit(threads.get("boom"));
            assertTrue(threads.get("lead").isAlive(), "the lone write is still waiting for the lock");
            h.execute("ROLLBACK");

            assertEquals(OptionalLong.of(1), lead.get(30, TimeUnit.SECONDS));
            assertFailed(boom, "the failing write");
            assertFailed(fine, "the write before it in the batch");
            assertEquals("0 null", doneAndResult(h, "fine"), "the write before the failing one was rolled back");
            assertEquals("0 null", doneAndResult(h, "boom"));
            // The store goes on: the same complete, alone now, is accepted and committed.
            assertTrue(store.complete("fine", "A", 1, 120, "done"));
            assertEquals("1 done", doneAndResult(h, "fine"));
        }
    }

    /** Runs the call on a thread of that name; the future holds what it returned or threw. */
    private <T> CompletableFuture<T> run(String name, Supplier<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(call.get());
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, name);
        threads.put(name, thread);
        thread.start();
        return result;
    }

    private static void assertFailed(CompletableFuture<Boolean> write, String which) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> write.get(30, TimeUnit.SECONDS), which + " did not fail");
        assertInstanceOf(LeaseStoreException.class, e.getCause(), which);
    }

    private static String doneAndResult(Statement h, String id) throws Exception {
        try (ResultSet rows = h.executeQuery("SELECT done, result FROM jobs WHERE id = '" + id + "'")) {
            assertTrue(rows.next(), id);
            return rows.getInt(1) + " " + rows.getString(2);
        }
    }
}
