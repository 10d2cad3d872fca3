package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The smoke profile of the gate, as {@code mvn verify} runs it: every strategy of SQLite and
 * PostgreSQL across threads
 * and across worker processes with at least one {@code kill -9} and one {@code SIGSTOP} pause
 * each, the drain races of threads and of processes on the first strategy of each engine (the
 * process drain with a kill and a pause too), and every negative control caught. The verdicts must all be good.
 */
class SmokeProfileTest {

    @TempDir
    Path dir;

    @Test
    void smokeProfilePassesEveryStrategyAndCatchesEveryControl() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        List<Engine> engines = TestEngines.all();
        List<Verdict> verdicts = new StressRun(StressPlan.Profile.SMOKE.plan(), engines, dir,
                new PrintStream(progress, true, StandardCharsets.UTF_8)).run();
        VerdictReport.write(dir.resolve("report"), verdicts);
        String table = VerdictReport.table(verdicts);
        System.out.print(table);

        assertTrue(verdicts.stream().allMatch(v -> v.outcome().good()), table + "\n"
                + Files.readString(dir.resolve("report/verdicts.txt")));
        long controls = 0;
        for (Engine engine : engines) {
            for (LockingStrategy strategy : LockingStrategy.of(engine)) {
                Verdict processes = verdicts.stream()
                        .filter(v -> v.store().equals(strategy.name()) && v.check().equals("processes"))
                        .findFirst().orElseThrow();
                assertTrue(processes.kills() >= 1 && processes.pauses() >= 1, processes.row());
            }
            Verdict drain = verdicts.stream()
                    .filter(v -> v.store().equals(LockingStrategy.of(engine).get(0).name()) && v.check().equals("process-drain"))
                    .findFirst().orElseThrow();
            assertTrue(drain.kills() >= 1 && drain.pauses() >= 1, drain.row());
            Verdict threadDrain = verdicts.stream()
                    .filter(v -> v.store().equals(LockingStrategy.of(engine).get(0).name()) && v.check().equals("thread-drain"))
                    .findFirst().orElseThrow();
            assertEquals(Verdict.Outcome.PASS, threadDrain.outcome(), threadDrain.row());
            // Every control across threads, the stale writer across processes as well, and the
            // controls of both drains.
            controls += StoreUnderTest.controls(engine).size()
                    + StoreUnderTest.controls(engine).stream().filter(StoreUnderTest::isStaleWriterControl).count()
                    + DrainRaceDriver.controls(engine).size() + ProcessDrainDriver.controls(engine).size();
        }
        long caught = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.CAUGHT).count();
        assertEquals(controls, caught, table);
        assertTrue(Files.readString(dir.resolve("report/TEST-stress.xml")).contains("failures=\"0\""));
    }
}
