package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.StoreOptions.BusyWait;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner's multi-process runs: one {@link MultiProcessMain} JVM per storage, a failed one
 * reported with its log (and the others still run), a resumed run skipping what it has, and the
 * steps of the profiles. A real run and the report's table are in {@link BenchSmokeTest}.
 */
class MultiProcessRunsTest {

    @TempDir
    Path dir;

    private static Profile withProcesses(List<Storage> storages, List<MultiProcessMain.Split> splits) {
        return Profile.named("smoke").withMultiProcess(List.of(new MultiProcessStep(storages,
                List.of(LockingStrategy.IMMEDIATE), splits, Duration.ofMillis(50), Duration.ofMillis(200), List.of())));
    }

    @Test
    void aFailedRunIsReportedWithItsLogAndTheOthersStillRun() throws Exception {
        StringWriter console = new StringWriter();
        List<String> failed = MultiProcessRuns.run(withProcesses(List.of(Storage.WAL_NORMAL, Storage.WAL_FULL),
                        List.of(new MultiProcessMain.Split(2, 1))), dir, new PrintWriter(console, true), false,
                FailingOpenLoopMain.class.getName());
        assertEquals(2, failed.size(), failed.toString());
        assertTrue(failed.get(0).startsWith("WAL_NORMAL: ") && failed.get(0).contains("exited with 3"), failed.get(0));
        assertTrue(failed.get(1).startsWith("WAL_FULL: "), failed.get(1));
        String log = Files.readString(dir.resolve(MultiProcessStep.FOLDER).resolve("WAL_NORMAL.log"));
        assertTrue(log.contains("failing on purpose: --storage WAL_NORMAL --strategies IMMEDIATE --splits 2x1"), log);
        assertTrue(console.toString().contains("FAILED"), console.toString());
        assertTrue(MultiProcessRuns.read(dir).isEmpty());
    }

    @Test
    void aResumedRunSkipsTheStoragesThatHaveTheirResults() throws Exception {
        Path folder = dir.resolve(MultiProcessStep.FOLDER);
        Files.createDirectories(folder);
        Files.writeString(folder.resolve("WAL_NORMAL.json"), "{\"storage\":\"WAL_NORMAL\",\"runs\":[]}");
        List<String> failed = MultiProcessRuns.run(withProcesses(List.of(Storage.WAL_NORMAL, Storage.WAL_FULL),
                        List.of(new MultiProcessMain.Split(2, 1))), dir, new PrintWriter(new StringWriter(), true), true,
                FailingOpenLoopMain.class.getName());
        assertEquals(1, failed.size(), failed.toString());
        assertTrue(failed.get(0).startsWith("WAL_FULL: "), failed.get(0));
        assertTrue(Files.isRegularFile(folder.resolve("WAL_NORMAL.json")), "a kept result is not deleted");
    }

    /**
     * With timelines the runner's open loops write every request of every process beside the
     * storage's JSON: a real {@link MultiProcessMain} run, one worker, one open loop.
     */
    @Test
    void aStepWithTimelinesWritesTheRequestsOfItsOpenLoops() throws Exception {
        MultiProcessStep step = new MultiProcessStep(List.of(Storage.WAL_NORMAL), List.of(LockingStrategy.IMMEDIATE),
                List.of(new MultiProcessMain.Split(1, 1)), Duration.ofMillis(50), Duration.ofMillis(200), List.of(0.5)).withTimelines();
        StringWriter console = new StringWriter();
        List<String> failed = MultiProcessRuns.run(Profile.named("smoke").withMultiProcess(List.of(step)), dir,
                new PrintWriter(console, true), false);
        assertEquals(List.of(), failed, console.toString());
        Path timelines = dir.resolve(MultiProcessStep.FOLDER).resolve("WAL_NORMAL-timelines");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(timelines)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        assertFalse(files.isEmpty(), "no timeline in " + timelines);
        for (Path file : files) {
            assertTrue(Files.size(file) > 0, file + " is empty");
        }
        assertEquals(1, MultiProcessRuns.read(dir).size());
    }

    /** A timeline folder that a failed run left behind is never written into again, and a step without open loops has none. */
    @Test
    void aTimelineFolderLeftBehindIsNotReused() throws Exception {
        Path json = dir.resolve("WAL_FULL.json");
        assertEquals(dir.resolve("WAL_FULL-timelines"), MultiProcessStep.timelineFolder(json, Storage.WAL_FULL));
        Files.createDirectories(dir.resolve("WAL_FULL-timelines"));
        Files.writeString(dir.resolve("WAL_FULL-timelines").resolve("kept.csv"), "from the failed run");
        assertEquals(dir.resolve("WAL_FULL-timelines-2"), MultiProcessStep.timelineFolder(json, Storage.WAL_FULL));
        Files.createDirectories(dir.resolve("WAL_FULL-timelines-2"));
        assertEquals(dir.resolve("WAL_FULL-timelines-3"), MultiProcessStep.timelineFolder(json, Storage.WAL_FULL));

        MultiProcessStep quick = Profile.named("quick").multiProcess().get(0);
        assertFalse(quick.arguments(Storage.WAL_FULL, json, true).contains("--timeline"));
        List<String> arguments = quick.withTimelines().arguments(Storage.WAL_FULL, json, true);
        assertEquals(dir.resolve("WAL_FULL-timelines-3").toString(), arguments.get(arguments.indexOf("--timeline") + 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new MultiProcessStep(List.of(Storage.WAL_FULL),
                List.of(LockingStrategy.IMMEDIATE), List.of(new MultiProcessMain.Split(1, 1)), Duration.ZERO, Duration.ofMillis(200),
                List.of(), true));
        assertTrue(e.getMessage().startsWith("timelines record a step's open loops, and this one has no loads"), e.getMessage());
    }

    /**
     * The runner pairs each strategy with the floor in one run wherever the busy wait allows it:
     * always on PostgreSQL, with the jittered wait on SQLite; under SQLite's own handler (which the
     * paired mode refuses) the SQLite runs stay unpaired.
     */
    @Test
    void theRunnerPairsTheFloorWhereTheBusyWaitAllowsIt() {
        MultiProcessStep sqlite = Profile.named("quick").multiProcess().get(0);
        MultiProcessStep postgres = Profile.named("quick").multiProcess().get(1);
        assertTrue(sqlite.pairedUnder(BusyWait.JITTERED));
        assertFalse(sqlite.pairedUnder(BusyWait.SQLITE_SLEEPS));
        assertTrue(postgres.pairedUnder(BusyWait.SQLITE_SLEEPS));
        Path json = dir.resolve("run.json");
        List<String> paired = sqlite.arguments(Storage.WAL_FULL, json, true);
        assertTrue(paired.contains("--paired"), paired.toString());
        assertEquals("100ms", paired.get(paired.indexOf("--slice") + 1), "quick's 1.5 s hold 7 groups of 100 ms slices");
        assertFalse(sqlite.arguments(Storage.WAL_FULL, json, false).contains("--paired"));
        // The smoke's 300 ms must still hold the two groups of two slices that --paired asks for.
        MultiProcessStep smoke = Profile.named("smoke").multiProcess().get(0);
        assertEquals(Duration.ofMillis(75), smoke.slice());
        assertTrue(smoke.duration().toMillis() >= 4 * smoke.slice().toMillis());
    }

    @Test
    void withoutRunsTheReportHasNoSection() {
        // A real run and its table are checked by BenchSmokeTest, whose smoke profile runs one.
        assertEquals("", Report.processes(List.of()));
    }

    /** The open-loop table gives each process's own p99.9, and a dash for a run recorded before there was one. */
    @Test
    void theOpenLoopTableGivesEachProcesssP999() throws Exception {
        String open = "{\"work\":\"GROUP_COMMIT\",\"split\":{\"processes\":2,\"threads\":1},\"load\":0.5,\"rateAsked\":2000,"
                + "\"wonPerSecond\":1900,\"p50Ms\":0.5,\"p99Ms\":30,\"p999Ms\":250,\"maxMs\":300,\"failed\":0,\"late\":7";
        com.fasterxml.jackson.databind.JsonNode run = Json.MAPPER.readTree("{\"storage\":\"WAL_FULL\",\"busyWait\":\"JITTERED\",\"runs\":["
                + "{\"openLoop\":[" + open + ",\"perProcessP999Ms\":[45.5,250.0]}]},{\"openLoop\":[" + open + "}]}]}");
        String table = Report.processes(List.of(run));
        assertTrue(table.contains("p99.9 per process ms"), table);
        assertTrue(table.contains("| 250 | 45.5, 250 | 300 |"), table);
        assertTrue(table.contains("| 250 | - | 300 |"), table);
    }

    @Test
    void badStepsAreRefusedNamingWhatIsWrong() {
        List<MultiProcessMain.Split> split = List.of(new MultiProcessMain.Split(2, 1));
        assertEquals("a multi-process step on POSTGRESQL takes its strategies only: strategy IMMEDIATE",
                assertThrows(IllegalArgumentException.class, () -> new MultiProcessStep(List.of(Storage.POSTGRESQL),
                        List.of(LockingStrategy.IMMEDIATE), split, Duration.ZERO, Duration.ofSeconds(1), List.of())).getMessage());
        assertEquals("a multi-process step on SQLITE takes its strategies only: strategy PG_ROW_LOCK",
                assertThrows(IllegalArgumentException.class, () -> new MultiProcessStep(List.of(Storage.WAL_NORMAL),
                        List.of(LockingStrategy.PG_ROW_LOCK), split, Duration.ZERO, Duration.ofSeconds(1), List.of())).getMessage());
        assertEquals("a multi-process step is of one engine: storages [WAL_NORMAL, POSTGRESQL]",
                assertThrows(IllegalArgumentException.class, () -> new MultiProcessStep(List.of(Storage.WAL_NORMAL, Storage.POSTGRESQL),
                        List.of(LockingStrategy.IMMEDIATE), split, Duration.ZERO, Duration.ofSeconds(1), List.of())).getMessage());
        assertEquals(Engine.POSTGRESQL, new MultiProcessStep(List.of(Storage.POSTGRESQL), List.of(LockingStrategy.PG_ROW_LOCK), split,
                Duration.ZERO, Duration.ofSeconds(1), List.of()).engine());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new MultiProcessStep(List.of(Storage.WAL_NORMAL),
                List.of(LockingStrategy.IMMEDIATE), List.of(), Duration.ZERO, Duration.ofSeconds(1), List.of()))
                .getMessage().startsWith("a multi-process step needs"));
        assertEquals("duration", assertThrows(NullPointerException.class, () -> new MultiProcessStep(List.of(Storage.WAL_NORMAL),
                List.of(LockingStrategy.IMMEDIATE), split, Duration.ZERO, null, List.of())).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new MultiProcessStep(List.of(Storage.WAL_NORMAL),
                List.of(LockingStrategy.IMMEDIATE), split, Duration.ZERO, Duration.ofSeconds(1), List.of(0.0)))
                .getMessage().startsWith("a load must be a fraction above 0"));
    }

    @Test
    void theProfilesSplitEightThreadsOnBothWalStoragesAndTheGateDoesNot() {
        assertEquals(List.of(), Profile.named("gate").multiProcess());
        MultiProcessStep full = Profile.named("full").multiProcess().get(0);
        assertEquals(List.of(Storage.WAL_NORMAL, Storage.WAL_FULL), full.storages());
        assertEquals(LockingStrategy.of(Engine.SQLITE), full.strategies());
        assertEquals("[1x8, 2x4, 4x2, 8x1]", full.splits().toString());
        full.splits().forEach(s -> assertEquals(8, s.processes() * s.threads(), s.toString()));
        assertEquals(List.of(0.5, 0.8), full.loads());
        assertEquals("[1x8, 4x2]", Profile.named("quick").multiProcess().get(0).splits().toString());
        assertEquals(List.of(0.5), Profile.named("quick").multiProcess().get(0).loads());
        // PostgreSQL in the same splits, a step of its own; a filter to one strategy keeps only it.
        for (String name : List.of("quick", "full")) {
            List<MultiProcessStep> pg = Profile.named(name).onlyEngine(Engine.POSTGRESQL).multiProcess();
            assertEquals(1, pg.size(), name);
            assertEquals(List.of(Storage.POSTGRESQL), pg.get(0).storages(), name);
            assertEquals(LockingStrategy.of(Engine.POSTGRESQL), pg.get(0).strategies(), name);
            assertEquals(Profile.named(name).multiProcess().get(0).splits(), pg.get(0).splits(), name);
            assertEquals(List.of(Storage.WAL_NORMAL, Storage.WAL_FULL),
                    Profile.named(name).onlyEngine(Engine.SQLITE).multiProcess().get(0).storages(), name);
        }
        assertEquals(List.of(LockingStrategy.GROUP_COMMIT), Profile.named("quick")
                .filter(s -> true, st -> true, ls -> ls == LockingStrategy.GROUP_COMMIT).multiProcess().get(0).strategies());
        assertEquals(List.of(), Profile.named("quick")
                .filter(s -> true, st -> st == Storage.DELETE_FULL, ls -> true).multiProcess());
    }
}
