package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.SqliteLeaseStore;
import dev.leaselab.lease.StoreOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MultiProcessMain} on a short run: two worker JVMs of two threads each, the floor and two
 * strategies. Every process must have done work (so they really ran side by side on the file),
 * and the run itself checks that the stored fence equals the wins all processes counted.
 */
class MultiProcessTest {

    @TempDir
    Path dir;

    @Test
    void twoProcessesShareOneFileAndTheirWinsAddUpToTheStoredFence() {
        Path json = dir.resolve("mp.json");
        Ran ran = run("--storage", "WAL_NORMAL", "--strategies", "IMMEDIATE,SERIALIZED", "--splits", "2x2",
                "--warmup", "200ms", "--duration", "600ms", "--busy-timeout", "5s", "--json", json.toString());
        assertEquals(0, ran.code(), ran.console());
        // Every worker reported the 5 s (the command checks it), and this JVM got its own setting back.
        assertEquals(5000, Json.read(json).path("busyTimeoutMillis").asLong());
        assertEquals(null, System.getProperty(Storage.BUSY_TIMEOUT_PROPERTY));
        JsonNode runs = Json.read(json).path("runs");
        assertEquals(3, runs.size(), runs.toString());
        for (JsonNode run : runs) {
            JsonNode r = run.path("result");
            assertEquals(2, r.path("perProcessWon").size(), r.toString());
            for (JsonNode processWon : r.path("perProcessWon")) {
                assertTrue(processWon.asLong() > 0, "a process won nothing: " + r);
            }
            assertTrue(r.path("jain").asDouble() > 0 && r.path("jain").asDouble() <= 1.0 + 1e-9, r.toString());
            assertEquals(0, r.path("failed").asLong(), r.toString());
        }
        assertTrue(runs.get(1).path("xFloor").asDouble() > 0, runs.get(1).toString());
        assertTrue(ran.out().contains("x floor unpaired: "), "an unpaired ratio says so: " + ran.out());
    }

    /**
     * The same on one PostgreSQL schema: two worker JVMs of two threads, the floor and
     * PG_CONDITIONAL_UPDATE. The stored fence check runs on the schema as it does on the file.
     */
    @Test
    void twoProcessesShareOnePostgresSchemaAndTheirWinsAddUpToTheStoredFence() {
        PostgresTests.useTestServerUnlessOneIsGiven();
        PostgresTests.require(PostgresTarget.configured().isPresent(), "no PostgreSQL server for the multi-process run");
        Path json = dir.resolve("mp-pg.json");
        Ran ran = run("--storage", "POSTGRESQL", "--strategies", "PG_CONDITIONAL_UPDATE", "--splits", "2x2",
                "--warmup", "200ms", "--duration", "600ms", "--json", json.toString());
        assertEquals(0, ran.code(), ran.console());
        JsonNode runs = Json.read(json).path("runs");
        assertEquals(2, runs.size(), runs.toString());
        for (JsonNode run : runs) {
            JsonNode r = run.path("result");
            assertEquals(2, r.path("perProcessWon").size(), r.toString());
            for (JsonNode processWon : r.path("perProcessWon")) {
                assertTrue(processWon.asLong() > 0, "a process won nothing: " + r);
            }
            assertEquals(0, r.path("failed").asLong(), r.toString());
        }
        assertTrue(runs.get(1).path("xFloor").asDouble() > 0, runs.get(1).toString());
    }

    @Test
    void aStrategyOfAnotherEngineThanTheStorageIsRefusedNamingBoth() {
        Ran ran = run("--storage", "POSTGRESQL", "--strategies", "IMMEDIATE");
        assertEquals(2, ran.code());
        String message = ran.err();
        assertTrue(message.contains("POSTGRESQL") && message.contains("IMMEDIATE"), message);
    }

    /**
     * The negative control of the busy-timeout check: a worker that ignored the timeout it was
     * started with (its output reports another) must fail the run, never be folded into it.
     */
    @Test
    void aWorkerThatRanWithAnotherBusyTimeoutIsRefused() throws Exception {
        long asked = Storage.busyTimeout().toMillis();
        Path obeyed = workerOutput("obeyed.json", asked, 40);
        Path ignored = workerOutput("ignored.json", asked + 4000, 50);
        MultiProcessMain.Split split = new MultiProcessMain.Split(2, 1);

        MultiProcessMain.RunResult both = MultiProcessMain.fold("IMMEDIATE", split, List.of(obeyed, workerOutput("also.json", asked, 60)));
        assertEquals(100, both.won(), "the guard passes workers that ran with the timeout asked for");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> MultiProcessMain.fold("IMMEDIATE", split, List.of(obeyed, ignored)));
        assertTrue(e.getMessage().contains("busy timeout of " + (asked + 4000)) && e.getMessage().contains("ignored.json"), e.getMessage());
    }

    /**
     * The negative control of the fence check: worker outputs that add up to the hot job's stored
     * fence pass, and a process that counted one win too many (a lost claim counted as won) fails
     * the run, naming both numbers.
     */
    @Test
    void winsThatDoNotAddUpToTheStoredFenceFailTheRun() throws Exception {
        Path file = dir.resolve("fence.db");
        try (LeaseStore store = SqliteLeaseStore.open(file,
                LockingStrategy.IMMEDIATE, Storage.WAL_NORMAL.options())) {
            store.enqueue(ClaimBenchmark.HOT);
            for (int i = 0; i < 90; i++) {
                assertTrue(store.claim(ClaimBenchmark.HOT, "w" + i, i * 10.0, 5).isPresent());
            }
        }
        List<Path> addsUp = List.of(workerOutput("a.json", Storage.busyTimeout().toMillis(), 40),
                workerOutput("b.json", Storage.busyTimeout().toMillis(), 50));
        try (java.sql.Connection c = Storage.WAL_NORMAL.connect(file)) {
            MultiProcessMain.checkFence("IMMEDIATE", c, addsUp);
        }

        List<Path> oneTooMany = List.of(workerOutput("c.json", Storage.busyTimeout().toMillis(), 40),
                workerOutput("d.json", Storage.busyTimeout().toMillis(), 51));
        IllegalStateException e;
        try (java.sql.Connection c = Storage.WAL_NORMAL.connect(file)) {
            e = assertThrows(IllegalStateException.class, () -> MultiProcessMain.checkFence("IMMEDIATE", c, oneTooMany));
        }
        assertTrue(e.getMessage().contains("is 90") && e.getMessage().contains("counted 91"), e.getMessage());
    }

    /** A worker's output as {@link MultiProcessWorker} writes it: one thread that won {@code won}. */
    private Path workerOutput(String name, long busyTimeoutMillis, long won) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, "{\"pid\":1,\"busyTimeoutMillis\":" + busyTimeoutMillis + ",\"longestBusySleepMicros\":4000,\"threads\":[{\"won\":" + won
                + ",\"lost\":0,\"failed\":0,\"warmupWon\":0,\"startNanos\":1000000000,\"endNanos\":2000000000}]}");
        return file;
    }

    /**
     * The open loop across processes is judged on the merged histogram: one process that stalled
     * (every request of its share 500 ms late) must show in the p99.9 and the max, however fast
     * the other one was; a worker that wrote no open-loop result fails the fold.
     */
    @Test
    void theOpenLoopsOfTheProcessesAreMergedSoOneStalledProcessShowsInTheTail() throws Exception {
        Histogram fast = new Histogram(OpenLoop.HIGHEST_TRACKABLE_NANOS, OpenLoop.SIGNIFICANT_DIGITS);
        Histogram stalled = new Histogram(OpenLoop.HIGHEST_TRACKABLE_NANOS, OpenLoop.SIGNIFICANT_DIGITS);
        for (int i = 0; i < 990; i++) {
            fast.recordValue(1_000_000); // 1 ms
        }
        for (int i = 0; i < 10; i++) {
            stalled.recordValue(500_000_000); // 500 ms
        }
        MultiProcessMain.Split split = new MultiProcessMain.Split(2, 1);
        MultiProcessMain.OpenRun merged = MultiProcessMain.foldOpen("IMMEDIATE", split, 0.5,
                List.of(openOutput("a.json", fast, 990, 2), openOutput("b.json", stalled, 10, 10)));

        assertEquals(1000, merged.sent());
        assertEquals(1000, merged.won());
        assertEquals(12, merged.late());
        assertEquals(1.0, merged.p50Ms(), 0.01);
        assertEquals(500.0, merged.p999Ms(), 1.0);
        assertEquals(500.0, merged.maxMs(), 1.0);
        assertEquals(200.0, merged.rateAsked(), 1e-9, "the two processes' shares");
        assertEquals(1.0, merged.perProcessP999Ms().get(0), 0.01, "the fast process's own p99.9");
        assertEquals(500.0, merged.perProcessP999Ms().get(1), 1.0, "the stalled one's");

        Path closedOnly = workerOutput("closed.json", 1000, 5);
        assertThrows(IllegalStateException.class, () -> MultiProcessMain.foldOpen("IMMEDIATE", split, 0.5, List.of(closedOnly)));
    }

    private Path openOutput(String name, Histogram histogram, long sent, long late) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, "{\"pid\":1,\"busyTimeoutMillis\":1000,\"longestBusySleepMicros\":4000,\"openLoop\":{\"rateAsked\":100.0,"
                + "\"achievedWonPerSecond\":" + sent + ",\"sent\":" + sent + ",\"won\":" + sent + ",\"failed\":0,\"late\":" + late
                + ",\"histogram\":\"" + OpenLoop.encode(histogram) + "\"},\"threads\":[]}");
        return file;
    }

    /**
     * The paired mode on a short run: two worker JVMs of two threads alternate the floor and the
     * claim in 50 ms slices. Every group must have a ratio, both works must have won in every
     * process, and the run itself checks both stored fences against the wins counted.
     */
    @Test
    void aPairedRunAlternatesTheFloorAndTheClaimInEveryProcess() {
        Path json = dir.resolve("paired.json");
        Ran ran = run("--storage", "WAL_NORMAL", "--strategies", "CONDITIONAL_UPDATE", "--splits", "2x2", "--paired", "--slice", "50ms",
                "--warmup", "200ms", "--duration", "400ms", "--busy-timeout", "5s", "--json", json.toString());
        assertEquals(0, ran.code(), ran.console());
        assertFalse(ran.out().contains("x floor unpaired"), ran.out());
        JsonNode runs = Json.read(json).path("runs");
        assertEquals(1, runs.size(), runs.toString());
        JsonNode r = runs.get(0).path("paired");
        assertEquals(4, r.path("groups").asInt(), r.toString());
        assertEquals(4, r.path("xFloor").path("pairs").asInt(), "a group without a ratio: " + r);
        assertTrue(r.path("xFloor").path("median").asDouble() > 0, r.toString());
        assertTrue(r.path("floorWonPerSecond").asDouble() > 0 && r.path("claimWonPerSecond").asDouble() > 0, r.toString());
        assertEquals(2, r.path("perProcessClaimWon").size(), r.toString());
        for (JsonNode processWon : r.path("perProcessClaimWon")) {
            assertTrue(processWon.asLong() > 0, "a process won no claim: " + r);
        }
        assertEquals(0, r.path("claimFailed").asLong() + r.path("floorFailed").asLong(), r.toString());
        // Each of the 8 measured slices ends once, and each of the 4 threads has at most one operation across it.
        assertTrue(r.path("acrossSwitch").asLong() <= 8 * 4, r.toString());
        assertEquals(50, Json.read(json).path("sliceMillis").asLong());
    }

    /**
     * The negative control of the paired run's fence checks: totals that add up to both stored
     * fences pass; a floor win counted as a claim win fails, naming the row.
     */
    @Test
    void pairedWinsThatDoNotAddUpToBothStoredFencesFailTheRun() throws Exception {
        Path file = dir.resolve("paired-fence.db");
        try (LeaseStore store = SqliteLeaseStore.open(file, LockingStrategy.IMMEDIATE, Storage.WAL_NORMAL.options())) {
            store.enqueue(ClaimBenchmark.HOT);
            store.enqueue(PairedClaimBenchmark.FLOOR_ROW);
            for (int i = 0; i < 30; i++) {
                assertTrue(store.claim(ClaimBenchmark.HOT, "w" + i, i * 10.0, 5).isPresent());
            }
            for (int i = 0; i < 20; i++) {
                assertTrue(store.claim(PairedClaimBenchmark.FLOOR_ROW, "f" + i, i * 10.0, 5).isPresent());
            }
        }
        JsonNode addsUp = Json.MAPPER.readTree("{\"threads\":[{\"claimWonTotal\":30,\"floorWonTotal\":20}]}");
        JsonNode mixedUp = Json.MAPPER.readTree("{\"threads\":[{\"claimWonTotal\":31,\"floorWonTotal\":19}]}");
        try (java.sql.Connection c = Storage.WAL_NORMAL.connect(file)) {
            MultiProcessMain.checkPairedFences("IMMEDIATE", c, List.of(addsUp));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> MultiProcessMain.checkPairedFences("IMMEDIATE", c, List.of(mixedUp)));
            assertTrue(e.getMessage().contains(ClaimBenchmark.HOT) && e.getMessage().contains("counted 31"), e.getMessage());
        }
    }

    @Test
    void aPairedRunWithTooShortASliceOrTooFewGroupsIsRefusedNamingTheOptions() {
        for (String[] options : List.of(new String[] {"--slice", "5ms"}, new String[] {"--slice", "100ms", "--duration", "300ms"})) {
            List<String> args = new ArrayList<>(List.of("--paired", "--storage", "WAL_NORMAL"));
            args.addAll(List.of(options));
            Ran ran = run(args.toArray(String[]::new));
            assertEquals(BenchMain.ERROR, ran.code(), List.of(options).toString());
            String message = ran.err();
            assertTrue(message.contains("--slice") && message.contains("--duration"), message);
        }
    }

    /**
     * Under SQLite's sleeping handler a write runs on into the next slices, so the paired mode
     * refuses it on SQLite, naming the property that sets the jittered wait.
     */
    @Test
    void aPairedRunUnderSqlitesSleepingHandlerIsRefused() {
        Ran ran = underSqlitesSleeps(() -> run("--paired", "--storage", "WAL_NORMAL"));
        assertEquals(BenchMain.ERROR, ran.code());
        String message = ran.err();
        assertTrue(message.contains("--paired") && message.contains(Storage.BUSY_WAIT_PROPERTY + "=JITTERED"), message);
    }

    /**
     * {@code --rate} asks every run for the same requests/s over all processes, whatever its closed
     * loop reached: the open loop's rate is the one given, its load that rate over the closed loop's.
     */
    @Test
    void anOpenLoopAtAFixedRateAsksForThatRateOverAllProcesses() {
        Path json = dir.resolve("rate.json");
        Ran ran = run("--storage", "WAL_NORMAL", "--strategies", "CONDITIONAL_UPDATE", "--splits", "2x1", "--rate", "300",
                "--warmup", "200ms", "--duration", "600ms", "--busy-timeout", "5s", "--json", json.toString());
        assertEquals(0, ran.code(), ran.console());
        JsonNode report = Json.read(json);
        assertEquals(300.0, report.path("rates").get(0).asDouble());
        JsonNode run = report.path("runs").get(1);
        JsonNode open = run.path("openLoop").get(0);
        assertEquals(300.0, open.path("rateAsked").asDouble(), 1e-6, "the two processes' shares add up to the rate: " + open);
        double closedRequestsPerSecond = (run.path("result").path("won").asLong() + run.path("result").path("lost").asLong()
                + run.path("result").path("failed").asLong()) / run.path("result").path("seconds").asDouble();
        assertEquals(300.0 / closedRequestsPerSecond, open.path("load").asDouble(), 1e-9, open.toString());
        // 0.6 s at 300/s, give or take the requests the window's edges cut.
        assertTrue(open.path("sent").asLong() > 120 && open.path("sent").asLong() < 240, open.toString());
        assertEquals(0, open.path("failed").asLong(), open.toString());
    }

    /**
     * {@code --timeline}: each process of the open loop writes every request it sent to the loop's
     * own folder, the command reads them back (refusing one that lost requests,
     * {@link OpenLoopTimelineTest}) and reports the longest stretch without a completion.
     */
    @Test
    void theTimelineOfAnOpenLoopHoldsEveryRequestOfEveryProcess() throws Exception {
        Path json = dir.resolve("timeline.json");
        Path timelines = dir.resolve("timelines");
        Ran ran = run("--storage", "WAL_NORMAL", "--strategies", "CONDITIONAL_UPDATE", "--splits", "2x1", "--rate", "300",
                "--warmup", "200ms", "--duration", "600ms", "--timeline", timelines.toString(), "--json", json.toString());
        String console = ran.console();
        assertEquals(0, ran.code(), console);
        assertTrue(console.contains("ttl 0.000001 s"), "the lease in plain digits: " + console);
        Path folder = timelines.resolve("01-CONDITIONAL_UPDATE-2x1-300-per-s");
        assertTrue(console.contains("timeline " + folder + ": no request completed for "), console);
        assertEquals(List.of(folder), Files.list(timelines).toList(), "one folder per open loop, none for closed loops");
        JsonNode open = Json.read(json).path("runs").get(1).path("openLoop").get(0);
        assertEquals(folder.toString(), open.path("timeline").asText());
        assertEquals(2, open.path("gaps").path("perProcessLongestMs").size(), open.toString());
        long rows = 0;
        for (int p = 0; p < 2; p++) {
            List<String> lines = Files.readAllLines(folder.resolve("process-" + p + ".tsv"));
            assertEquals(OpenLoop.TIMELINE_HEADER, lines.get(0));
            assertTrue(lines.size() > 1, "process " + p + " sent requests");
            rows += lines.size() - 1;
        }
        assertEquals(open.path("sent").asLong(), rows, "the two timelines hold every request the open loop sent");
    }

    /**
     * {@code --record-batches}: every process of a GROUP_COMMIT run records its batches, a folder
     * per run, and the command prints each process's; the floor's runs record nothing. Every
     * measured attempt was a write in some batch, so the processes' batches hold at least as many
     * writes (the warmup's too).
     */
    @Test
    void theBatchesOfEveryGroupCommitProcessAreRecordedAndPrinted() throws Exception {
        Path json = dir.resolve("batches.json");
        Path recordings = dir.resolve("recordings");
        Ran ran = run("--storage", "WAL_NORMAL", "--strategies", "GROUP_COMMIT", "--splits", "2x2",
                "--warmup", "200ms", "--duration", "600ms", "--record-batches", recordings.toString(), "--json", json.toString());
        String console = ran.console();
        assertEquals(0, ran.code(), console);
        Path folder = recordings.resolve("01-GROUP_COMMIT-2x2");
        assertEquals(List.of(folder), Files.list(recordings).toList(), "one folder for the GROUP_COMMIT run, none for the floor's");
        JsonNode result = Json.read(json).path("runs").get(1).path("result");
        long attempts = result.path("won").asLong() + result.path("lost").asLong() + result.path("failed").asLong();
        long writes = 0;
        for (int p = 0; p < 2; p++) {
            Path file = folder.resolve("process-" + p + ".jfr");
            assertTrue(console.contains("batches of process " + p + " (" + file + "): "), console);
            writes += BatchProfile.all(BatchProfile.read(file)).writes();
        }
        assertTrue(attempts > 0 && writes >= attempts, "writes in the batches " + writes + ", measured attempts " + attempts);

        Ran refused = run("--storage", "WAL_NORMAL", "--strategies", "IMMEDIATE", "--splits", "2x1",
                "--record-batches", dir.resolve("none").toString());
        assertEquals(2, refused.code());
        assertTrue(refused.err().contains("--record-batches records GROUP_COMMIT's batches"), refused.err());
        refused = run("--storage", "WAL_NORMAL", "--strategies", "GROUP_COMMIT", "--splits", "2x1",
                "--record-batches", recordings.toString());
        assertEquals(2, refused.code());
        assertTrue(refused.err().contains("--record-batches takes a new or empty folder"), refused.err());
        assertTrue(!Files.exists(dir.resolve("none")), "refused before anything was written");
    }

    /** {@code --open-loop-only}: the --rate open loop and nothing else, so no floor and no closed loop in the results. */
    @Test
    void anOpenLoopOnlyRunHasNoFloorAndNoClosedLoop() {
        Path json = dir.resolve("open-only.json");
        Ran ran = run("--storage", "WAL_NORMAL", "--strategies", "CONDITIONAL_UPDATE,IMMEDIATE", "--splits", "2x1", "--rate", "300",
                "--warmup", "200ms", "--duration", "600ms", "--open-loop-only", "--json", json.toString());
        String console = ran.console();
        assertEquals(0, ran.code(), console);
        assertTrue(!console.contains("FLOOR") && !console.contains("won/s  lost"), "no floor and no closed loop: " + console);
        assertTrue(console.contains("CONDITIONAL_UPDATE 2x1  open loop (300 req/s)"), console);
        JsonNode report = Json.read(json);
        assertTrue(report.path("openLoopOnly").asBoolean());
        assertTrue(report.path("runs").get(0).path("openLoop").get(0).path("load").isNull(), "no closed loop, so no load");
        JsonNode runs = report.path("runs");
        assertEquals(2, runs.size(), runs.toString());
        for (JsonNode run : runs) {
            assertTrue(run.path("result").isMissingNode(), run.toString());
            JsonNode open = run.path("openLoop").get(0);
            assertEquals(300.0, open.path("rateAsked").asDouble(), 1e-6, open.toString());
            assertTrue(open.path("sent").asLong() > 120, open.toString());
            assertEquals(2, open.path("perProcessP999Ms").size(), open.toString());
        }
        for (String[] wrong : List.of(new String[] {"--open-loop-only"}, new String[] {"--open-loop-only", "--rate", "300", "--load", "0.5"},
                new String[] {"--open-loop-only", "--rate", "300", "--paired"})) {
            List<String> args = new ArrayList<>(List.of("--storage", "WAL_NORMAL", "--splits", "2x1"));
            args.addAll(List.of(wrong));
            Ran refused = run(args.toArray(String[]::new));
            assertEquals(2, refused.code(), String.join(" ", wrong));
            assertTrue(refused.err().contains("--open-loop-only runs the --rate open loops alone"), refused.err());
        }
    }

    @Test
    void aTimelineWithoutAnOpenLoopOrIntoAFolderInUseIsRefused() throws Exception {
        Ran ran = run("--storage", "WAL_NORMAL", "--strategies", "CONDITIONAL_UPDATE",
                "--splits", "2x1", "--timeline", dir.resolve("t").toString());
        assertEquals(2, ran.code());
        assertTrue(ran.err().contains("--timeline records the open loops"), ran.err());

        Path used = Files.createDirectories(dir.resolve("used"));
        Path earlier = Files.writeString(used.resolve("earlier.tsv"), "kept");
        ran = run("--storage", "WAL_NORMAL", "--strategies", "CONDITIONAL_UPDATE",
                "--splits", "2x1", "--rate", "300", "--timeline", used.toString());
        assertEquals(2, ran.code());
        assertTrue(ran.err().contains("--timeline takes a new or empty folder"), ran.err());
        assertEquals("kept", Files.readString(earlier));

        ran = run("--storage", "WAL_NORMAL", "--strategies", "CONDITIONAL_UPDATE",
                "--splits", "1x1", "--rate", "2000000", "--duration", "6s", "--timeline", dir.resolve("big").toString());
        assertEquals(2, ran.code());
        assertTrue(ran.err().contains("--timeline keeps at most"), ran.err());
        assertTrue(!Files.exists(dir.resolve("big")), "refused before anything was written");
    }

    /**
     * {@code --longest-busy-sleep} reaches every worker: the command refuses a worker that reports
     * another longest sleep ({@link #aWorkerThatRanWithAnotherLongestBusySleepIsRefused}), so a run
     * that ends with 0 had it in both processes, closed loop and open loop alike.
     */
    @Test
    void theLongestBusySleepReachesEveryWorkerAndIsRecorded() {
        Path json = dir.resolve("sleep.json");
        Ran ran = run("--storage", "WAL_NORMAL", "--strategies", "CONDITIONAL_UPDATE", "--splits", "2x1", "--rate", "300",
                "--warmup", "200ms", "--duration", "400ms", "--longest-busy-sleep", "500us", "--json", json.toString());
        String console = ran.console();
        assertEquals(0, ran.code(), console);
        assertTrue(console.contains("busy wait JITTERED (longest sleep 500 us)"), console);
        assertEquals(500, Json.read(json).path("longestBusySleepMicros").asLong());
        assertEquals(null, System.getProperty(Storage.LONGEST_BUSY_SLEEP_PROPERTY), "this JVM got its own setting back");
        assertEquals(StoreOptions.defaults().longestBusySleep(), Storage.WAL_NORMAL.options().longestBusySleep());
    }

    /** The negative control of that check: a worker that ignored the longest sleep it was given fails the run. */
    @Test
    void aWorkerThatRanWithAnotherLongestBusySleepIsRefused() throws Exception {
        Path obeyed = workerOutput("obeyed.json", Storage.busyTimeout().toMillis(), 40);
        assertEquals(40, MultiProcessMain.readWorker(obeyed).path("threads").get(0).path("won").asLong());
        Path ignored = dir.resolve("ignored.json");
        Files.writeString(ignored, Files.readString(obeyed).replace("\"longestBusySleepMicros\":4000",
                "\"longestBusySleepMicros\":1000"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> MultiProcessMain.readWorker(ignored));
        assertTrue(e.getMessage().contains("longest busy sleep of 1000 us, not 4000 us") && e.getMessage().contains("ignored.json"),
                e.getMessage());
        Path unsaid = dir.resolve("unsaid.json");
        Files.writeString(unsaid, Files.readString(obeyed).replace("\"longestBusySleepMicros\":4000,", ""));
        assertThrows(IllegalStateException.class, () -> MultiProcessMain.readWorker(unsaid));
    }

    /** Out of range, in fractions of a microsecond, on PostgreSQL or with SQLite's own sleeps: refused before any process starts. */
    @Test
    void aLongestBusySleepThatCannotApplyIsRefusedNamingWhy() {
        Map<List<String>, String> refusals = new LinkedHashMap<>();
        refusals.put(List.of("--longest-busy-sleep", "49us"), "longestBusySleep must be between 50 µs and 1000 ms");
        refusals.put(List.of("--longest-busy-sleep", "2s"), "longestBusySleep must be between 50 µs and 1000 ms");
        refusals.put(List.of("--longest-busy-sleep", "0.0005ms"), "--longest-busy-sleep takes whole microseconds");
        refusals.put(List.of("--longest-busy-sleep", "1ms", "--storage", "POSTGRESQL", "--strategies", "PG_CONDITIONAL_UPDATE"),
                "--longest-busy-sleep is a setting of SQLite's busy wait");
        for (Map.Entry<List<String>, String> refusal : refusals.entrySet()) {
            Ran ran = run(refusal.getKey().toArray(String[]::new));
            assertEquals(BenchMain.ERROR, ran.code(), refusal.getKey().toString());
            assertTrue(ran.err().contains(refusal.getValue()), ran.err());
        }
        Ran ran = underSqlitesSleeps(() -> run("--storage", "WAL_NORMAL", "--longest-busy-sleep", "1ms"));
        assertEquals(BenchMain.ERROR, ran.code());
        assertTrue(ran.err().contains("longestBusySleep is a setting of the JITTERED busy wait"), ran.err());
    }

    @Test
    void aRateBelowOneRequestPerSecondIsRefusedNamingTheOption() {
        for (String rate : List.of("0", "-5", "0.5", "Infinity")) {
            Ran ran = run("--storage", "WAL_NORMAL", "--rate", rate);
            assertEquals(BenchMain.ERROR, ran.code(), rate);
            assertTrue(ran.err().contains("--rate"), ran.err());
        }
    }

    @Test
    void aSplitThatIsNotProcessesTimesThreadsIsRefusedNamingTheOption() {
        Ran ran = run("--splits", "2by4");
        assertEquals(BenchMain.ERROR, ran.code());
        assertTrue(ran.err().contains("--splits"), ran.err());
    }

    /** What one {@link MultiProcessMain#execute} printed, and its exit code. */
    private record Ran(int code, String out, String err) {
        /** Both streams, as an assertion's message. */
        String console() {
            return out + err;
        }
    }

    private static Ran run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MultiProcessMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Ran(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Runs {@code command} with SQLite's own sleeping busy handler asked for, then gives this JVM its setting back. */
    private static Ran underSqlitesSleeps(Supplier<Ran> command) {
        String before = System.setProperty(Storage.BUSY_WAIT_PROPERTY, "SQLITE_SLEEPS");
        try {
            return command.get();
        } finally {
            if (before == null) {
                System.clearProperty(Storage.BUSY_WAIT_PROPERTY);
            } else {
                System.setProperty(Storage.BUSY_WAIT_PROPERTY, before);
            }
        }
    }
}
