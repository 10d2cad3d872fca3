package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The smoke profile of the gate, as {@code mvn verify} runs it: every strategy across threads
 * and across worker processes with at least one {@code kill -9} and one {@code SIGSTOP} pause
 * each, and every negative control caught. The verdicts must all be good.
 */
class SmokeProfileTest {

    @TempDir
    Path dir;

    @Test
    void smokeProfilePassesEveryStrategyAndCatchesEveryControl() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        List<Verdict> verdicts = new StressRun(StressPlan.Profile.SMOKE.plan(), dir,
                new PrintStream(progress, true, StandardCharsets.UTF_8)).run();
        VerdictReport.write(dir.resolve("report"), verdicts);
        String table = VerdictReport.table(verdicts);
        System.out.print(table);

        assertTrue(verdicts.stream().allMatch(v -> v.outcome().good()), table + "\n"
                + Files.readString(dir.resolve("report/verdicts.txt")));
        for (LockingStrategy strategy : LockingStrategy.of(LockingStrategy.Engine.SQLITE)) {
            Verdict processes = verdicts.stream()
                    .filter(v -> v.store().equals(strategy.name()) && v.check().equals("processes"))
                    .findFirst().orElseThrow();
            assertTrue(processes.kills() >= 1 && processes.pauses() >= 1, processes.row());
        }
        long caught = verdicts.stream().filter(v -> v.outcome() == Verdict.Outcome.CAUGHT).count();
        assertEquals(StoreUnderTest.CONTROLS.size() + 1, caught, table);
        assertTrue(Files.readString(dir.resolve("report/TEST-stress.xml")).contains("failures=\"0\""));
    }
}
