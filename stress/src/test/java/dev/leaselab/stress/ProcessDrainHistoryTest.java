package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.testkit.Database;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pieces of the process drain that judge its histories, on hand-written operations: how a
 * claimNext is recorded (also when its process dies inside it), rule 7 of a drained queue, the
 * overlap count across processes and the count of a paused worker's refused late writes.
 */
class ProcessDrainHistoryTest {

    @TempDir
    Path dir;

    private long seq;

    private Op op(String process, Op.Kind kind, String job, long fence, Op.Outcome outcome, long start, long end) {
        return new Op(process, ++seq, kind, job, process, fence, 0, kind == Op.Kind.CLAIM ? 1 : 0,
                kind == Op.Kind.COMPLETE ? DrainWorker.result(process, fence) : null, outcome, start, end);
    }

    @Test
    void aClaimNextIsInTheHistoryBeforeItReturnsAndAnEmptyOneIsAnsweredAsRefused() {
        Database db = new Database.SqliteFile(dir.resolve("jobs.db"));
        Path file = dir.resolve("h.jsonl");
        try (LeaseStore store = StoreUnderTest.correct(LockingStrategy.IMMEDIATE).open(db, 2);
                JsonLinesHistory history = JsonLinesHistory.create(file)) {
            RecordedStore recorded = new RecordedStore(store, "w0", history, HostClock::nanos);
            store.enqueue("a");
            store.enqueue("b");
            List<Op> claims = recorded.claimNext("w0", 1, 10, 3);
            assertEquals(List.of("a", "b"), claims.stream().map(Op::job).toList());
            assertEquals(List.of(), recorded.claimNext("w0", 1, 10, 3));
        }
        List<Op> read = JsonLinesHistory.read(file);
        // The first lease took the number of the placeholder written before the call.
        assertEquals(List.of("a", "b", Op.ANY_JOB), read.stream().map(Op::job).toList());
        assertEquals(List.of(Op.Outcome.OK, Op.Outcome.OK, Op.Outcome.REJECTED), read.stream().map(Op::outcome).toList());
        assertTrue(HistoryChecker.check(read, db.rows()).passed());
    }

    @Test
    void onlyAClaimNextWithoutAnswerMayHaveTakenAFence() {
        Map<String, JobState> rows = Map.of("j", new JobState("j", "b", 30, 2, null, false));
        List<Op> lost = new ArrayList<>(List.of(
                op("a", Op.Kind.CLAIM, Op.ANY_JOB, 0, Op.Outcome.UNKNOWN, 0, Long.MAX_VALUE),
                op("b", Op.Kind.CLAIM, "j", 2, Op.Outcome.OK, 10, 11)));
        assertTrue(HistoryChecker.check(lost, rows).passed(), () -> HistoryChecker.check(lost, rows).describeViolations(3));

        List<Op> answered = List.of(
                op("a", Op.Kind.CLAIM, Op.ANY_JOB, 0, Op.Outcome.REJECTED, 0, 1),
                op("b", Op.Kind.CLAIM, "j", 2, Op.Outcome.OK, 10, 11));
        assertEquals(List.of(1), HistoryChecker.check(answered, rows).violations().stream().map(Violation::rule).toList());
    }

    @Test
    void aDrainedQueueHasEveryJobDoneWithTheResultOfItsLastHolder() {
        List<Op> ops = List.of(
                op("a", Op.Kind.CLAIM, "j", 1, Op.Outcome.OK, 0, 1),
                op("a", Op.Kind.COMPLETE, "j", 1, Op.Outcome.OK, 2, 3),
                op("b", Op.Kind.CLAIM, "k", 1, Op.Outcome.OK, 0, 1));
        Map<String, JobState> rows = Map.of(
                "j", new JobState("j", "a", 1, 1, "a:f1", true),
                "k", new JobState("k", "b", 1, 1, null, false));
        CheckReport report = HistoryChecker.checkDrained(ops, rows, DrainWorker::result);
        assertEquals(List.of("k"), report.violations().stream().filter(v -> v.rule() == 7).map(Violation::job).toList());

        Map<String, JobState> lateResult = Map.of("j", new JobState("j", "b", 1, 2, "a:f1", true));
        List<Op> taken = List.of(ops.get(0), op("b", Op.Kind.CLAIM, "j", 2, Op.Outcome.OK, 2, 3), ops.get(1));
        assertTrue(HistoryChecker.checkDrained(taken, lateResult, DrainWorker::result).violations().stream()
                .anyMatch(v -> v.rule() == 7 && v.message().contains("whose result would be b:f2")));
    }

    @Test
    void overlapsCountOnlyWinningCallsThatMetACallOfAnotherProcess() {
        List<Op> ops = List.of(
                op("a", Op.Kind.CLAIM, "j", 1, Op.Outcome.OK, 0, 10),
                op("a", Op.Kind.CLAIM, "k", 1, Op.Outcome.OK, 0, 10),       // same call as the one above
                op("a", Op.Kind.CLAIM, Op.ANY_JOB, 0, Op.Outcome.REJECTED, 5, 8),  // same process: no race
                op("b", Op.Kind.CLAIM, Op.ANY_JOB, 0, Op.Outcome.REJECTED, 9, 12),  // began while a's ran
                op("b", Op.Kind.CLAIM, "m", 1, Op.Outcome.OK, 20, 30),
                op("a", Op.Kind.CLAIM, "n", 1, Op.Outcome.OK, 40, 50),
                op("b", Op.Kind.CLAIM, Op.ANY_JOB, 0, Op.Outcome.UNKNOWN, 45, Long.MAX_VALUE));  // no span: killed
        assertArrayEquals(new long[] {3, 1}, ProcessDrainDriver.overlappingCalls(ops));
    }

    @Test
    void aPauseCountsWhenTheWorkersLateWritesAfterATakeoverWereRefused() {
        List<Op> ops = List.of(
                op("a", Op.Kind.CLAIM, "j", 1, Op.Outcome.OK, 0, 1),
                op("b", Op.Kind.CLAIM, "j", 2, Op.Outcome.OK, 50, 51),       // taken over during a's pause
                op("a", Op.Kind.RENEW, "j", 1, Op.Outcome.REJECTED, 100, 101),
                op("a", Op.Kind.COMPLETE, "j", 1, Op.Outcome.REJECTED, 102, 103),
                op("b", Op.Kind.COMPLETE, "j", 2, Op.Outcome.OK, 104, 105),
                op("a", Op.Kind.CLAIM, "k", 1, Op.Outcome.OK, 110, 111));
        List<WorkerFleet.Pause> pauses = List.of(new WorkerFleet.Pause("a", 10, 90), new WorkerFleet.Pause("b", 200, 300));
        assertArrayEquals(new long[] {2, 2, 1}, ProcessDrainDriver.pausedWrites(ops, pauses));
    }

    /**
     * A completeAll's completes share the call's span, so a run's batches are counted from the
     * history: two completes of one process that began together are one call, a complete alone is
     * none, a batch of unknown outcome (its worker killed inside it) is not counted, and the
     * completions a call refused are added up.
     */
    @Test
    void theCompleteAllCallsOfARunAreTheCompletesThatShareASpan() {
        List<Op> ops = List.of(
                op("a", Op.Kind.COMPLETE, "j1", 1, Op.Outcome.OK, 10, 20),
                op("a", Op.Kind.COMPLETE, "j2", 1, Op.Outcome.REJECTED, 10, 20),
                op("a", Op.Kind.COMPLETE, "j3", 1, Op.Outcome.OK, 10, 20),
                op("b", Op.Kind.COMPLETE, "j4", 1, Op.Outcome.OK, 10, 12),      // another process, alone
                op("a", Op.Kind.COMPLETE, "j5", 1, Op.Outcome.REJECTED, 30, 31), // alone: no batch
                op("b", Op.Kind.COMPLETE, "j6", 2, Op.Outcome.REJECTED, 40, 45),
                op("b", Op.Kind.COMPLETE, "j7", 2, Op.Outcome.REJECTED, 40, 45),
                op("a", Op.Kind.COMPLETE, "j8", 1, Op.Outcome.UNKNOWN, 50, Long.MAX_VALUE),
                op("a", Op.Kind.COMPLETE, "j9", 1, Op.Outcome.UNKNOWN, 50, Long.MAX_VALUE),
                op("a", Op.Kind.RENEW, "j1", 1, Op.Outcome.OK, 10, 20));
        assertArrayEquals(new long[] {2, 3}, ProcessDrainDriver.completeAllCalls(ops));
        String summary = new ProcessDrainDriver.DrainResult(new RaceResult("IMMEDIATE", "process-drain", 10, 4, 100, 0, 0, 0,
                0, 0, -1, null, new CheckReport(0, 0, 0, 0, List.of(), 0), 1, 1, "ok", 1), 1, 12, 0, 0, 2, 2, 2, 1, 2, 3).summary();
        assertTrue(summary.contains("2 completeAll calls (3 completions refused in them)"), summary);
    }

    @Test
    void aRunWithoutOverlapOrWithoutAnEffectivePauseSaysItProvedNothing() {
        CheckReport clean = new CheckReport(0, 0, 0, 0, List.of(), 0);
        RaceResult noOverlap = new RaceResult("IMMEDIATE", "process-drain", 10, 0, 100, 0, 0, 0, 0, 0, -1, null, clean, 1, 1,
                "ok", 1);
        RaceResult raced = new RaceResult("IMMEDIATE", "process-drain", 10, 4, 100, 0, 0, 0, 0, 0, -1, null, clean, 1, 1,
                "ok", 1);
        assertTrue(new ProcessDrainDriver.DrainResult(noOverlap, 1, 12, 0, 0, 2, 2, 2, 1, 0, 0).unproven().contains("never raced"));
        assertTrue(new ProcessDrainDriver.DrainResult(raced, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0).unproven().contains("pauses proved nothing"));
        assertNull(new ProcessDrainDriver.DrainResult(raced, 1, 12, 0, 0, 2, 2, 2, 1, 0, 0).unproven());

        Verdict unproven = Verdict.ofDrain(StoreUnderTest.correct(LockingStrategy.IMMEDIATE),
                new ProcessDrainDriver.DrainResult(raced, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0), 1);
        assertEquals(Verdict.Outcome.INCONCLUSIVE, unproven.outcome());
        assertTrue(!unproven.outcome().good() && !StressRun.settled(false, unproven.outcome()),
                "a run that proved nothing must neither pass nor stand: it is raced again");
        assertTrue(unproven.detail().startsWith("1 pauses, but none"), unproven.detail());
    }

    @Test
    void settingsNameTheArgumentTheyReject() {
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new ProcessDrainDriver.Settings(1, Duration.ofSeconds(2), 1, 1, 12, 200, 42)).getMessage().startsWith("workers"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new ProcessDrainDriver.Settings(3, Duration.ofSeconds(2), 1, 1, 0, 200, 42)).getMessage().startsWith("jobsPerRound"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new ProcessDrainDriver.Settings(3, Duration.ofSeconds(2), 1, 1, 12, 20, 42)).getMessage().startsWith("ttlMillis"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new ProcessDrainDriver.Settings(3, Duration.ofSeconds(2), 1, 1, 12, 401, 42)).getMessage().startsWith("duration"));
        assertEquals("duration", assertThrows(NullPointerException.class,
                () -> new ProcessDrainDriver.Settings(3, null, 1, 1, 12, 200, 42)).getMessage());
        assertEquals("sut", assertThrows(NullPointerException.class,
                () -> ProcessDrainDriver.run(null, dir, new ProcessDrainDriver.Settings(3, Duration.ofSeconds(2), 1, 1, 12, 200, 42)))
                .getMessage());
    }
}
