package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.GroupCommitWriters.Writer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each {@link LockingStrategy#GROUP_COMMIT} batch is one {@link GroupCommitBatchEvent} in a Flight
 * Recorder recording: how many writes it held, whether it failed, and which phase its time went
 * to. A write that sleeps puts at least its sleep into the statements of its batch, a BEGIN that
 * waits for another connection's lock at least that wait into the batch's begin, and a batch run
 * as a transaction has a commit of its own, so each phase is checked against a lower bound that a
 * sleep or a held lock guarantees, never against how fast anything ran.
 */
class GroupCommitBatchEventTest {

    private static final Duration SLEEP = Duration.ofMillis(20);
    /** How long another connection holds the write lock while the transaction's BEGIN waits for it. */
    private static final Duration HOLD = Duration.ofMillis(200);

    @TempDir
    Path dir;

    @Test
    void eachBatchIsOneEventWithItsWritesItsPhasesAndWhetherItFailed() throws Exception {
        GroupCommitProtocol protocol = new GroupCommitProtocol(LeaseSql.CONTRACT);
        List<RecordedEvent> events;
        try (GroupCommitWriters writers = new GroupCommitWriters(protocol, dir.resolve("jobs.db"));
                Recording recording = new Recording()) {
            recording.enable(GroupCommitBatchEvent.class);
            recording.start();

            // A lone write holds the leadership until released; two more queue behind it and run
            // in the next batch, a transaction, where one of them sleeps, and whose BEGIN waits for
            // another connection's write lock.
            CountDownLatch leadMayEnd = new CountDownLatch(1);
            Writer lead = writers.startHolding("lead", leadMayEnd);
            long leadRunning = System.nanoTime();
            Writer fine = writers.start("fine", session -> "fine");
            ThreadWaits.awaitParkedInSubmit(fine.thread());
            Writer sleeper = writers.start("sleeper", session -> {
                sleep();
                return "slept";
            });
            ThreadWaits.awaitParkedInSubmit(sleeper.thread());
            try (Connection holder = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("jobs.db"));
                    Statement lock = holder.createStatement()) {
                lock.execute("BEGIN IMMEDIATE");
                // The lone write runs for at least the sleep: its statement is the wait on the latch.
                Thread.sleep(Math.max(0, SLEEP.toMillis() + 1 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - leadRunning)));
                leadMayEnd.countDown();
                awaitInSqliteStep(fine.thread(), sleeper.thread());
                Thread.sleep(HOLD.toMillis());
                lock.execute("COMMIT");
            }
            assertEquals("lead", lead.outcome().get(30, TimeUnit.SECONDS));
            assertEquals("fine", fine.outcome().get(30, TimeUnit.SECONDS));
            assertEquals("slept", sleeper.outcome().get(30, TimeUnit.SECONDS));

            // Then a lone write that sleeps and fails.
            Writer failing = writers.start("failing", session -> {
                sleep();
                throw new SQLException("refused");
            });
            assertThrows(ExecutionException.class, () -> failing.outcome().get(30, TimeUnit.SECONDS));

            recording.stop();
            Path file = dir.resolve("batches.jfr");
            recording.dump(file);
            events = RecordingFile.readAllEvents(file).stream()
                    .filter(e -> e.getEventType().getName().equals(GroupCommitBatchEvent.NAME))
                    .sorted(Comparator.comparing(RecordedEvent::getStartTime))
                    .toList();
        }

        assertEquals(List.of(1, 2, 1), events.stream().map(e -> e.getInt("writes")).toList(), "writes per batch");
        RecordedEvent alone = events.get(0);
        RecordedEvent shared = events.get(1);
        RecordedEvent failed = events.get(2);

        assertFalse(alone.getBoolean("failed"));
        assertAtLeast(SLEEP, alone.getDuration("statementsNanos"), "the lone write's statement, which waited on the latch");
        assertEquals(Duration.ZERO, alone.getDuration("beginNanos"), "a lone write runs in autocommit, no BEGIN of its own");
        assertEquals(Duration.ZERO, alone.getDuration("commitNanos"), "a lone write commits in autocommit, no COMMIT of its own");
        assertFalse(shared.getBoolean("failed"));
        assertAtLeast(SLEEP, shared.getDuration("statementsNanos"), "the transaction's statements, one of which slept");
        assertAtLeast(HOLD, shared.getDuration("beginNanos"), "the transaction's BEGIN, which waited for the lock");
        // Neither is the wait for the lock in the statements: those are the sleep and two writes
        // that run no statement, far less than the wait on any machine.
        assertTrue(shared.getDuration("statementsNanos").compareTo(shared.getDuration("beginNanos").plus(SLEEP)) < 0,
                "statements " + shared.getDuration("statementsNanos") + " hold the BEGIN's " + shared.getDuration("beginNanos"));
        assertTrue(shared.getDuration("commitNanos").compareTo(Duration.ZERO) > 0, "the transaction's COMMIT");
        assertTrue(failed.getBoolean("failed"));
        // The failing write slept, but its statement never finished: a phase not reached stays 0.
        assertEquals(Duration.ZERO, failed.getDuration("beginNanos"));
        assertEquals(Duration.ZERO, failed.getDuration("statementsNanos"));
        assertEquals(Duration.ZERO, failed.getDuration("commitNanos"));
        for (RecordedEvent e : events) {
            // Every phase lies inside the batch: nonnegative and no longer than the test.
            for (String phase : List.of("gatheringNanos", "beginNanos", "statementsNanos", "commitNanos")) {
                Duration took = e.getDuration(phase);
                assertFalse(took.isNegative(), phase + " " + took);
                assertTrue(took.compareTo(Duration.ofMinutes(1)) < 0, phase + " " + took);
            }
        }
        // The event's own duration is on the recorder's clock, not System.nanoTime's: half the
        // sleep leaves room for the two clocks to differ.
        assertAtLeast(SLEEP.dividedBy(2), failed.getDuration(), "the failed batch's event still spans its sleep");
    }

    /** Waits until one of the threads, the batch's leader, is inside a SQLite statement (its BEGIN, waiting for the lock). */
    private static void awaitInSqliteStep(Thread... threads) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Arrays.stream(threads).flatMap(t -> Arrays.stream(t.getStackTrace()))
                .noneMatch(f -> f.getClassName().equals("org.sqlite.core.NativeDB") && f.getMethodName().equals("step"))) {
            assertTrue(System.nanoTime() < deadline, "no leader ever ran its BEGIN");
            Thread.sleep(1);
        }
    }

    private static void assertAtLeast(Duration least, Duration actual, String what) {
        assertTrue(actual.compareTo(least) >= 0, what + ": " + actual + " < " + least);
    }

    private static void sleep() {
        try {
            Thread.sleep(SLEEP.toMillis());
        } catch (InterruptedException e) {
            throw new AssertionError("interrupted", e);
        }
    }
}
