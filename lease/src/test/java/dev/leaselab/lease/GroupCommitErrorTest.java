package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link LockingStrategy#GROUP_COMMIT} batch in which a write throws an {@link Error} (out of
 * memory, a stack overflow): every write of the batch must still fail, the leader's and the other
 * writers', and none may be left waiting for an outcome that no leader will ever give it. The
 * writes here are test code that runs no statement, queued with {@link GroupCommitProtocol#submit},
 * since no SQL makes sqlite-jdbc throw an Error.
 */
class GroupCommitErrorTest {

    @TempDir
    Path dir;

    private final List<Session> sessions = new ArrayList<>();

    @AfterEach
    void closeSessions() {
        sessions.forEach(Session::close);
    }

    @Test
    void anErrorInOneWriteFailsEveryWriteOfItsBatchAndLeavesNoWriterWaiting() throws Exception {
        GroupCommitProtocol protocol = new GroupCommitProtocol(LeaseSql.CONTRACT);
        CountDownLatch leadRunning = new CountDownLatch(1);
        CountDownLatch leadMayEnd = new CountDownLatch(1);
        AssertionError boom = new AssertionError("boom");

        // The lone write holds the leadership until released; the next two queue behind it, in
        // this order, and whichever of their threads leads next runs both in one batch.
        Writer lead = writer("lead", protocol, session -> {
            leadRunning.countDown();
            awaitUninterruptibly(leadMayEnd);
            return "lead";
        });
        assertTrue(leadRunning.await(30, TimeUnit.SECONDS), "the lone write never ran");
        Writer fine = writer("fine", protocol, session -> "fine");
        ThreadWaits.awaitParkedInSubmit(fine.thread);
        Writer failing = writer("boom", protocol, session -> {
            throw boom;
        });
        ThreadWaits.awaitParkedInSubmit(failing.thread);
        leadMayEnd.countDown();

        assertEquals("lead", lead.outcome.get(30, TimeUnit.SECONDS));
        // 30 s for an outcome that takes microseconds: a writer left waiting fails here, not by hanging the build.
        assertSame(boom, failure(fine).getCause(), "the write before the failing one in the batch");
        assertSame(boom, failure(failing).getCause(), "the failing write");
        // The protocol goes on: the next write is led and done.
        assertEquals("after", writer("after", protocol, session -> "after").outcome.get(30, TimeUnit.SECONDS));
    }

    private record Writer(Thread thread, CompletableFuture<String> outcome) {}

    /** Submits the write on a thread of that name, with a session of its own, as a store's caller does. */
    private Writer writer(String name, GroupCommitProtocol protocol, GroupCommitProtocol.Write<String> write) throws SQLException {
        Session session = new Session(DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("jobs.db")));
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

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new AssertionError("interrupted", e);
        }
    }

    private static SQLException failure(Writer writer) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> writer.outcome.get(30, TimeUnit.SECONDS),
                writer.thread.getName() + "'s write did not fail");
        SQLException failure = assertInstanceOf(SQLException.class, e.getCause(), writer.thread.getName());
        assertEquals("a write in the batch failed", failure.getMessage());
        return failure;
    }
}
