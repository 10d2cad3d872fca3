package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Writers for tests that queue writes straight into a {@link GroupCommitProtocol} with
 * {@link GroupCommitProtocol#submit}, each on a thread of its own with a session of its own on one
 * SQLite file, as a store's callers do. Close it after the test.
 */
final class GroupCommitWriters implements AutoCloseable {

    /** A writer's thread and the outcome of its write. */
    record Writer(Thread thread, CompletableFuture<String> outcome) {}

    private final GroupCommitProtocol protocol;
    private final Path database;
    private final List<Session> sessions = new ArrayList<>();

    GroupCommitWriters(GroupCommitProtocol protocol, Path database) {
        this.protocol = protocol;
        this.database = database;
    }

    /** Submits the write on a thread of that name, with a session of its own. */
    Writer start(String name, GroupCommitProtocol.Write<String> write) throws SQLException {
        Session session = new Session(DriverManager.getConnection("jdbc:sqlite:" + database));
        sessions.add(session);
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                outcome.complete(protocol.submit(session, false, write));
            } catch (Throwable e) {
                outcome.completeExceptionally(e);
            }
        }, name);
        // A writer left waiting by a broken protocol must not keep the test JVM alive.
        thread.setDaemon(true);
        thread.start();
        return new Writer(thread, outcome);
    }

    /**
     * Submits a lone write that holds the leadership, and so every write queued after it, until
     * {@code mayEnd} opens; returns once it runs. Its outcome is its name.
     */
    Writer startHolding(String name, CountDownLatch mayEnd) throws SQLException, InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        Writer writer = start(name, session -> {
            running.countDown();
            awaitUninterruptibly(mayEnd);
            return name;
        });
        assertTrue(running.await(30, TimeUnit.SECONDS), "the lone write never ran");
        return writer;
    }

    /** Waits for the latch in a write, where an interrupt is a failure of the test. */
    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new AssertionError("interrupted", e);
        }
    }

    @Override
    public void close() {
        sessions.forEach(Session::close);
    }
}
