package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.leaselab.lease.GroupCommitWriters.Writer;
import java.nio.file.Path;
import java.sql.SQLException;
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

    private GroupCommitWriters writers;

    @AfterEach
    void closeWriters() {
        writers.close();
    }

    @Test
    void anErrorInOneWriteFailsEveryWriteOfItsBatchAndLeavesNoWriterWaiting() throws Exception {
        GroupCommitProtocol protocol = new GroupCommitProtocol(LeaseSql.CONTRACT);
        writers = new GroupCommitWriters(protocol, dir.resolve("jobs.db"));
        CountDownLatch leadMayEnd = new CountDownLatch(1);
        AssertionError boom = new AssertionError("boom");

        // The lone write holds the leadership until released; the next two queue behind it, in
        // this order, and whichever of their threads leads next runs both in one batch.
        Writer lead = writers.startHolding("lead", leadMayEnd);
        Writer fine = writers.start("fine", session -> "fine");
        ThreadWaits.awaitParkedInSubmit(fine.thread());
        Writer failing = writers.start("boom", session -> {
            throw boom;
        });
        ThreadWaits.awaitParkedInSubmit(failing.thread());
        leadMayEnd.countDown();

        assertEquals("lead", lead.outcome().get(30, TimeUnit.SECONDS));
        // 30 s for an outcome that takes microseconds: a writer left waiting fails here, not by hanging the build.
        assertSame(boom, failure(fine).getCause(), "the write before the failing one in the batch");
        assertSame(boom, failure(failing).getCause(), "the failing write");
        // The protocol goes on: the next write is led and done.
        assertEquals("after", writers.start("after", session -> "after").outcome().get(30, TimeUnit.SECONDS));
    }

    private static SQLException failure(Writer writer) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> writer.outcome().get(30, TimeUnit.SECONDS),
                writer.thread().getName() + "'s write did not fail");
        SQLException failure = assertInstanceOf(SQLException.class, e.getCause(), writer.thread().getName());
        assertEquals("a write in the batch failed", failure.getMessage());
        return failure;
    }
}
