package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leaselab.lease.LockingStrategy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.annotations.Mode;

/**
 * The runner's open-loop runs: one JVM per strategy and storage, a failed one reported (and the
 * others still run), a resumed run skipping what it has, and the report putting each load's
 * open-loop percentiles next to the closed-loop p99.9 of the same work.
 */
class OpenLoopRunsTest {

    @TempDir
    Path dir;

    private static Profile withOpenLoop(List<LockingStrategy> strategies) {
        return Profile.named("smoke").withOpenLoops(List.of(new OpenLoopStep(2, List.of(Storage.WAL_NORMAL), strategies,
                List.of(0.5), Duration.ZERO, Duration.ofMillis(200), Duration.ofMillis(200))));
    }

    @Test
    void aFailedRunIsReportedWithItsLogAndTheOthersStillRun() throws Exception {
        StringWriter console = new StringWriter();
        List<String> failed = OpenLoopRuns.run(withOpenLoop(List.of(LockingStrategy.IMMEDIATE, LockingStrategy.GROUP_COMMIT)),
                dir, new PrintWriter(console, true), false, FailingOpenLoopMain.class.getName());
        assertEquals(2, failed.size(), failed.toString());
        assertTrue(failed.get(0).startsWith("WAL_NORMAL-IMMEDIATE: ") && failed.get(0).contains("exited with 3"), failed.get(0));
        assertTrue(failed.get(1).startsWith("WAL_NORMAL-GROUP_COMMIT: "), failed.get(1));
        String log = Files.readString(dir.resolve(OpenLoopStep.FOLDER).resolve("WAL_NORMAL-IMMEDIATE.log"));
        assertTrue(log.contains("failing on purpose: --work CLAIM --strategy IMMEDIATE --storage WAL_NORMAL --threads 2"), log);
        assertTrue(console.toString().contains("FAILED"), console.toString());
        assertTrue(OpenLoopRuns.read(dir).isEmpty());
    }

    @Test
    void aResumedRunSkipsTheRunsThatHaveTheirResults() throws Exception {
        Path folder = dir.resolve(OpenLoopStep.FOLDER);
        Files.createDirectories(folder);
        Files.writeString(folder.resolve("WAL_NORMAL-IMMEDIATE.json"), "{\"storage\":\"WAL_NORMAL\",\"strategy\":\"IMMEDIATE\"}");
        List<String> failed = OpenLoopRuns.run(withOpenLoop(List.of(LockingStrategy.IMMEDIATE, LockingStrategy.GROUP_COMMIT)),
                dir, new PrintWriter(new StringWriter(), true), true, FailingOpenLoopMain.class.getName());
        assertEquals(1, failed.size(), failed.toString());
        assertTrue(failed.get(0).startsWith("WAL_NORMAL-GROUP_COMMIT: "), failed.get(0));
        assertTrue(Files.isRegularFile(folder.resolve("WAL_NORMAL-IMMEDIATE.json")), "a kept result is not deleted");
    }

    @Test
    void aRealRunWritesItsPercentilesAndTheReportShowsThemNextToTheClosedLoop() throws Exception {
        List<String> failed = OpenLoopRuns.run(withOpenLoop(List.of(LockingStrategy.CONDITIONAL_UPDATE)), dir,
                new PrintWriter(new StringWriter(), true), false);
        assertEquals(List.of(), failed);
        List<JsonNode> runs = OpenLoopRuns.read(dir);
        assertEquals(1, runs.size());
        JsonNode result = runs.get(0).path("runs").get(0).path("result");
        assertTrue(result.path("sent").asLong() > 0, result.toString());
        assertTrue(result.path("p999Ms").asDouble() >= result.path("p50Ms").asDouble(), result.toString());

        Map<Double, Double> percentiles = new LinkedHashMap<>(Map.of(50.0, 100.0, 99.0, 900.0, 99.9, 2500.0, 100.0, 9000.0));
        BenchResults.Row closed = new BenchResults.Row(new ForkKey(BenchmarkId.CLAIM_HOT, Mode.SampleTime, 2, Storage.WAL_NORMAL,
                LockingStrategy.CONDITIONAL_UPDATE), "us/op", 150, 10, new double[] {150}, percentiles, null, new double[0]);
        String md = Report.openLoop(runs, List.of(closed));
        String line = md.lines().filter(l -> l.startsWith("| WAL_NORMAL | CONDITIONAL_UPDATE | 2 |")).findFirst().orElseThrow();
        String[] cells = line.split("\\|");
        assertEquals("0.50", cells[5].strip(), line);
        assertEquals("2.50", cells[12].strip(), "the closed-loop p99.9 of 2,500 us, in ms: " + line);
        assertEquals(result.path("p999Ms").asDouble() <= 10 ? "yes" : "**no**", cells[15].strip(), line);
        // Without a sample fork of the same work, the closed-loop cell is empty.
        assertTrue(Report.openLoop(runs, List.of()).contains("| - |"));
        assertEquals("", Report.openLoop(List.of(), List.of(closed)));
    }

    @Test
    void badStepsAreRefusedNamingWhatIsWrong() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new OpenLoopStep(8, List.of(Storage.POSTGRESQL),
                List.of(LockingStrategy.IMMEDIATE), List.of(0.5), Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1)))
                .getMessage().contains("SQLite only: storage POSTGRESQL"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new OpenLoopStep(8, List.of(Storage.WAL_NORMAL),
                List.of(LockingStrategy.IMMEDIATE), List.of(0.0), Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1)))
                .getMessage().startsWith("a load must be a fraction above 0"));
        assertEquals("duration", assertThrows(NullPointerException.class, () -> new OpenLoopStep(8, List.of(Storage.WAL_NORMAL),
                List.of(LockingStrategy.IMMEDIATE), List.of(0.5), Duration.ZERO, Duration.ofSeconds(1), null)).getMessage());
    }

    @Test
    void theProfilesRunTheOpenLoopWhereTheyRunTheClosedLoopAndTheGateDoesNot() {
        assertEquals(List.of(), Profile.named("gate").openLoops());
        OpenLoopStep quick = Profile.named("quick").openLoops().get(0);
        assertEquals(List.of(Storage.WAL_NORMAL), quick.storages());
        assertEquals(8, quick.threads());
        assertEquals(List.of(0.5, 0.8), quick.loads());
        assertEquals(Storage.of(LockingStrategy.Engine.SQLITE), Profile.named("full").openLoops().get(0).storages());
        // Filtering to PostgreSQL leaves no open loop (it runs on SQLite only).
        assertEquals(List.of(), Profile.named("quick").onlyEngine(LockingStrategy.Engine.POSTGRESQL).openLoops());
        assertEquals(List.of(LockingStrategy.GROUP_COMMIT), Profile.named("quick")
                .filter(s -> true, st -> true, ls -> ls == LockingStrategy.GROUP_COMMIT).openLoops().get(0).strategies());
    }
}
