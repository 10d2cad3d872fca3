package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leaselab.lease.BrokenStore;
import dev.leaselab.lease.Completion;
import dev.leaselab.lease.ForwardingLeaseStore;
import dev.leaselab.lease.LeaseStoreException;
import dev.leaselab.lease.LockingStrategy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PeerDrainMain} on SQLite at a small size: both systems drain every job exactly once with
 * no error, and the counters are proven to count (negative controls): a db-scheduler task that
 * throws on some executions shows up as errors and jobs left, and a leaselab store that hands out a
 * completed job again shows up as duplicate runs and duplicate accepted completions. No timing is
 * asserted.
 */
class PeerDrainTest {

    private static final int JOBS = 300;
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @Test
    void bothSystemsDrainEveryJobExactlyOnceThroughTheCommandLine(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("peer.json");
        Path md = dir.resolve("peer.md");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = PeerDrainMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "--jobs", Integer.toString(JOBS), "--threads", "2",
                "--rounds", "1", "--warmup-jobs", "0", "--postgres", "SKIP", "--strategies", "CONDITIONAL_UPDATE",
                "--batches", "1,16", "--completes", "EACH,ALL", "--deadline", "20s", "--out", md.toString(), "--json", json.toString());
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, stderr);

        JsonNode rounds = Json.read(json).get("rounds");
        assertEquals(5, rounds.size(), stderr);
        for (JsonNode r : rounds) {
            String line = r.toString();
            assertEquals(JOBS, r.get("distinctRun").asLong(), line);
            assertEquals(JOBS, r.get("acceptedCompletions").asLong(), line);
            assertEquals(0, r.get("duplicateRuns").asLong(), line);
            assertEquals(0, r.get("duplicateAccepted").asLong(), line);
            assertEquals(0, r.get("errors").asLong(), line);
            assertEquals(0, r.get("left").asLong(), line);
            assertFalse(r.get("timedOut").asBoolean(), line);
        }
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("| leaselab CONDITIONAL_UPDATE |") && table.contains("| leaselab CONDITIONAL_UPDATE batch 16 |")
                && table.contains("| leaselab CONDITIONAL_UPDATE batch 16 completeAll |")
                && table.contains("| db-scheduler FETCH |"), table);
        assertEquals(table, Files.readString(md));
    }

    /**
     * The same on PostgreSQL: both systems on one server (each table analyzed after its prefill),
     * leaselab's batches completed job by job and in one completeAll.
     */
    @Test
    void bothSystemsDrainEveryJobExactlyOnceOnPostgres(@TempDir Path dir) throws Exception {
        PostgresTests.useTestServerUnlessOneIsGiven();
        PostgresTests.require(PostgresTarget.configured().isPresent(), "no PostgreSQL server for the peer drain");
        Path json = dir.resolve("peer-pg.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = PeerDrainMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "--jobs", Integer.toString(JOBS), "--threads", "2",
                "--rounds", "1", "--warmup-jobs", "0", "--postgres", "ONLY", "--pg-strategies", "PG_CONDITIONAL_UPDATE",
                "--batches", "16", "--completes", "EACH,ALL", "--deadline", "20s", "--json", json.toString());
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, stderr);

        JsonNode rounds = Json.read(json).get("rounds");
        assertEquals(3, rounds.size(), stderr);
        for (JsonNode r : rounds) {
            String line = r.toString();
            assertEquals("POSTGRESQL", r.get("storage").asText(), line);
            assertEquals(JOBS, r.get("distinctRun").asLong(), line);
            assertEquals(JOBS, r.get("acceptedCompletions").asLong(), line);
            assertEquals(0, r.get("duplicateAccepted").asLong(), line);
            assertEquals(0, r.get("left").asLong(), line);
        }
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("| leaselab PG_CONDITIONAL_UPDATE batch 16 completeAll |"),
                out.toString(StandardCharsets.UTF_8));
    }

    /**
     * The zombie comparison with a real stall: each system's worker is stopped by SIGSTOP in a
     * child JVM while it works on the job, the job is taken over, and the resumed worker's late
     * completion must be refused, on SQLite and on PostgreSQL.
     */
    @Test
    void aWorkerStoppedBySigstopRunsTheJobTwiceButCannotCompleteIt() {
        PostgresTests.useTestServerUnlessOneIsGiven();
        PostgresTests.require(PostgresTarget.configured().isPresent(), "no PostgreSQL server for the zombie trials");
        List<PeerZombie.Result> results = List.of(
                ProcessZombie.leaselab(LockingStrategy.CONDITIONAL_UPDATE, Storage.WAL_NORMAL, 1, null),
                ProcessZombie.dbScheduler(Storage.WAL_NORMAL, 1),
                ProcessZombie.leaselab(LockingStrategy.PG_CONDITIONAL_UPDATE, Storage.POSTGRESQL, 1, null),
                ProcessZombie.dbScheduler(Storage.POSTGRESQL, 1));
        for (PeerZombie.Result r : results) {
            assertEquals(0, r.errors(), r.line());
            assertEquals(1, r.workRanTwice(), r.line());
            assertEquals(0, r.lateCompletionAccepted(), r.line());
            assertEquals(1, r.lateCompletionRefused(), r.line());
        }
    }

    /** The negative control: a store whose complete checks no owner or fence accepts the stopped worker's late completion. */
    @Test
    void aStoreWithoutTheFenceCheckAcceptsTheStoppedWorkersLateCompletion() {
        PeerZombie.Result r = ProcessZombie.leaselab(LockingStrategy.CONDITIONAL_UPDATE, Storage.WAL_NORMAL, 1,
                BrokenStore.COMPLETE_WITHOUT_FENCE_CHECK);

        assertEquals(0, r.errors(), r.line());
        assertEquals(1, r.lateCompletionAccepted(), r.line());
    }

    @Test
    void aDbSchedulerTaskThatThrowsShowsUpAsErrorsAndJobsLeft() throws Exception {
        // job-9, job-19, ...: 30 of the 300 executions fail; db-scheduler reschedules them for later.
        PeerRound r = DbSchedulerDrain.run(Storage.WAL_NORMAL,
                DbSchedulerDrain.Settings.defaults(DbSchedulerDrain.Polling.FETCH, 2), JOBS, 2, 1, DEADLINE,
                id -> id.endsWith("9"));

        assertEquals(JOBS / 10, r.errorsByKind().get("execution failed"), r.line());
        // Every other error is one of db-scheduler's own events: on SQLite a heartbeat can meet the
        // write lock and fail (FAILED_HEARTBEAT, seen once in a clean-clone CI run), which the peer
        // comparison rightly counts, but which this test does not bring about.
        long schedulerEvents = r.errorsByKind().entrySet().stream().filter(e -> e.getKey().startsWith("scheduler event "))
                .mapToLong(Map.Entry::getValue).sum();
        assertEquals(JOBS / 10 + schedulerEvents, r.errors(), r.line() + " " + r.errorsByKind());
        assertEquals(JOBS - JOBS / 10, r.acceptedCompletions(), r.line());
        assertEquals(JOBS / 10, r.left(), r.line());
        assertEquals(JOBS, r.distinctRun(), r.line());
        assertFalse(r.clean(), r.line());
    }

    @Test
    void aStoreThatHandsOutACompletedJobAgainShowsUpAsDuplicates() throws Exception {
        PeerRound r = LeaselabDrain.run(LockingStrategy.CONDITIONAL_UPDATE, 1, Storage.WAL_NORMAL, JOBS, 2, 1, DEADLINE,
                new ForgetfulStore());

        assertTrue(r.duplicateRuns() > 0, r.line());
        // A re-handed job whose "last completed" moved on meanwhile is refused by the real store, so not every duplicate run is accepted.
        assertTrue(r.duplicateAccepted() > 0 && r.duplicateAccepted() <= r.duplicateRuns(), r.line());
        assertEquals(JOBS, r.distinctRun(), r.line());
        assertEquals(0, r.left(), r.line());
        assertFalse(r.clean(), r.line());
    }

    @Test
    void aStoreThatHandsOutACompletedJobAgainInABatchShowsUpAsDuplicates() throws Exception {
        // 2,400 jobs in batches of 16: 150 claimNext calls, every 25th of them handing a done job out again.
        PeerRound r = LeaselabDrain.run(LockingStrategy.CONDITIONAL_UPDATE, 16, Storage.WAL_NORMAL, JOBS * 8, 2, 1,
                DEADLINE, new ForgetfulStore());

        assertTrue(r.duplicateRuns() > 0 && r.duplicateAccepted() > 0, r.line());
        assertEquals(JOBS * 8, r.distinctRun(), r.line());
        assertEquals(0, r.left(), r.line());
        assertFalse(r.clean(), r.line());
    }

    /** Every 4th completeAll fails whole: its jobs ran, none was accepted, and they stay held. */
    @Test
    void aCompleteAllThatFailsShowsUpAsErrorsAndJobsLeft() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        PeerRound r = LeaselabDrain.run(LockingStrategy.CONDITIONAL_UPDATE, 10, LeaselabDrain.Completes.ALL, Storage.WAL_NORMAL,
                JOBS, 1, 1, DEADLINE, store -> new ForwardingLeaseStore(store) {
                    @Override
                    public List<Boolean> completeAll(List<Completion> completions, double now) {
                        if (calls.incrementAndGet() % 4 == 0) {
                            throw new LeaseStoreException("a failed batch (test)", null);
                        }
                        return super.completeAll(completions, now);
                    }
                });

        // 300 jobs in batches of 10 on one thread: 30 batches, the 4th, 8th, ... 28th fail (7).
        assertEquals(7, r.errors(), r.line());
        assertEquals(70, r.left(), r.line());
        assertEquals(JOBS - 70, r.acceptedCompletions(), r.line());
        assertEquals(JOBS, r.distinctRun(), r.line());
        assertEquals(0, r.duplicateRuns(), r.line());
        assertFalse(r.clean(), r.line());
    }

    @Test
    void aBatchBelowOneIsRefusedBeforeAnythingRuns() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = PeerDrainMain.execute(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8), "--batches", "1,0", "--postgres", "SKIP");

        assertEquals(OpenLoopMain.ERROR, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--batches"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theCommandFailsARunWithDuplicates() {
        PeerDrainMain command = new PeerDrainMain();
        command.leaselabDecorator = new ForgetfulStore();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = PeerDrainMain.execute(command, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8), "--jobs", "100", "--threads", "2", "--rounds", "1",
                "--warmup-jobs", "0", "--postgres", "SKIP", "--strategies", "CONDITIONAL_UPDATE", "--deadline", "20s");

        assertEquals(PeerDrainMain.UNCLEAN, code, err.toString(StandardCharsets.UTF_8));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("NOT CLEAN"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theTallyCountsASecondRunAndASecondAcceptedCompletion() {
        ExecutionTally tally = new ExecutionTally();
        tally.ran("a");
        tally.ran("b");
        tally.ran("a");
        tally.accepted("a");
        tally.accepted("a");

        assertEquals(2, tally.distinctRun());
        assertEquals(1, tally.duplicateRuns());
        assertEquals(2, tally.acceptedCompletions());
        assertEquals(1, tally.duplicateAccepted());
    }

    @Test
    void lockAndFetchOnSqliteIsRefusedBeforeAnythingRuns() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = PeerDrainMain.execute(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8), "--polling", "LOCK_AND_FETCH", "--postgres", "SKIP");

        assertEquals(OpenLoopMain.ERROR, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("does not support lock-and-fetch"), err.toString(StandardCharsets.UTF_8));
    }
}
