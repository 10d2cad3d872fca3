package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leaselab.lease.StoreOptions;
import dev.leaselab.lease.StoreOptions.BusyWait;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.testkit.process.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Contention between processes, not only threads: the same number of threads split over P worker
 * JVMs ({@link MultiProcessWorker}) on one SQLite file (or one PostgreSQL schema), each process with
 * its own store, so that only the database's locks (and SQLite's busy handler) decide who goes
 * next (an in-process queue such as
 * {@code SERIALIZED}'s or {@code GROUP_COMMIT}'s can order only its own process's threads). For
 * each split P x T, the floor (P processes running the plain {@code UPDATE}) and then every
 * strategy's hot-job claim; all processes pass a common start gate. Per run: won per wall second
 * over all threads of all processes, failures (busy past the timeout), lost claims, Jain's index
 * over all threads, the slowest thread's share, and x floor against the floor of the same split.
 * The hot job's final fence must equal the wins counted (warmup included): a check that every
 * process counted what it did.
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.MultiProcessMain --storage WAL_FULL --splits 1x8,2x4,4x2,8x1
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.MultiProcessMain --strategies IMMEDIATE,GROUP_COMMIT --json mp.json
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.MultiProcessMain --splits 4x2 --load 0.5 --busy-timeout 5s
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.MultiProcessMain --splits 4x2 --paired --duration 6s
 * java -Dleaselab.bench.busyWait=SQLITE_SLEEPS -cp bench/target/benchmarks.jar dev.leaselab.bench.MultiProcessMain \
 *     --splits 4x2 --strategies IMMEDIATE --rate 2000 --busy-timeout 5s
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.MultiProcessMain --splits 4x2 --rate 2000 --longest-busy-sleep 1ms
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.MultiProcessMain --splits 4x2 --strategies GROUP_COMMIT --rate 2000 \
 *     --duration 10s --timeline timelines
 * </pre>
 * With {@code --paired} the floor has no run of its own: every process switches between the floor
 * and the strategy in slices that all processes share ({@link PairedSlices}), and x floor is the
 * median over groups of a floor slice and a claim slice, with a bootstrap interval. Unpaired, the
 * floor and the strategy run seconds apart, and on this machine the floor of one split moved by
 * half between runs minutes apart.
 * With {@code --load}, each strategy's closed loop is followed by open loops across the processes
 * ({@link OpenLoop} in every worker, each sending its share of the rate from the common gate on):
 * latency from each request's intended start, the processes' histograms merged. {@code --rate}
 * asks for the same requests/s whatever the run: what two busy waits are compared on, one run of
 * each, since a fraction of each run's own closed loop would give the faster one more work.
 * {@code --open-loop-only} runs those fixed-rate open loops alone, without the floor and the closed loops.
 * {@code -Dleaselab.bench.busyWait=JITTERED} sets every SQLite process's busy wait. With
 * {@code --storage POSTGRESQL} the processes share a fresh schema of the server that
 * {@code ./with-postgres.sh} (or {@code LEASELAB_POSTGRES_URL}) names, and the busy timeout is the
 * statement timeout.
 * With {@code --timeline}, every open loop's processes write each measured request (intended
 * start, start, end, outcome; {@link OpenLoop#run(OpenLoop.Op, Path)}) to a folder of their own
 * under it, and the command reports the longest stretch in which no request completed, in all
 * processes together and in each ({@link OpenLoopTimeline}): whether a tail came from a stall that
 * all processes shared.
 * Exit codes: 0 success, 2 a usage or runtime error.
 */
@Command(name = "leaselab-multiprocess", mixinStandardHelpOptions = true, sortOptions = false,
        description = "The same threads in 1, 2, 4, 8 processes on one SQLite file or PostgreSQL schema: hot-job claims and the floor, "
                + "each process with its own store, all starting at one gate.")
public final class MultiProcessMain implements Callable<Integer> {

    @Spec
    CommandSpec spec;
    @Option(names = "--storage", defaultValue = "WAL_FULL", description = "WAL_NORMAL, WAL_FULL, DELETE_FULL or POSTGRESQL (default: ${DEFAULT-VALUE})")
    Storage storage;
    @Option(names = "--strategies", split = ",", description = "strategies of the storage's engine (default: all of them)")
    List<LockingStrategy> strategies;
    @Option(names = "--splits", split = ",", defaultValue = "1x8,2x4,4x2,8x1",
            description = "processes x threads per process (default: ${DEFAULT-VALUE})")
    List<String> splits;
    @Option(names = "--warmup", defaultValue = "1s", converter = OpenLoopMain.DurationConverter.class,
            description = "per run, not counted (default: ${DEFAULT-VALUE})")
    Duration warmup;
    @Option(names = "--duration", defaultValue = "3s", converter = OpenLoopMain.DurationConverter.class,
            description = "the measured window per run (default: ${DEFAULT-VALUE})")
    Duration duration;
    @Option(names = "--json", description = "also write the results to this file")
    Path json;
    @Option(names = "--load", split = ",", description = "after each strategy's closed loop, an open loop at these "
            + "fractions of its requests/s, the rate split evenly over the processes (e.g. 0.5; default: none)")
    List<Double> loads;
    @Option(names = "--rate", split = ",", description = "after each strategy's closed loop (and its --load loops), an open loop at "
            + "each of these requests/s over all processes: the same work whatever the strategy or busy wait, so that tails of "
            + "two runs compare (e.g. 2000; default: none)")
    List<Double> rates;
    @Option(names = "--paired", description = "measure each strategy and the floor in one run, every process switching between them "
            + "in slices of --slice that all processes share; x floor is the median over groups of a floor and a claim slice, "
            + "with a 95%% bootstrap interval (default: the floor and each strategy in runs of their own)")
    boolean paired;
    @Option(names = "--slice", defaultValue = "100ms", converter = OpenLoopMain.DurationConverter.class,
            description = "with --paired, how long each slice lasts; --duration holds the groups of two slices (default: ${DEFAULT-VALUE})")
    Duration slice;
    @Option(names = "--busy-timeout", converter = OpenLoopMain.DurationConverter.class,
            description = "every process's busy timeout (default: 1s, the benchmarks'; issue 17's targets use 5s)")
    Duration busyTimeout;
    @Option(names = "--longest-busy-sleep", converter = OpenLoopMain.DurationConverter.class,
            description = "the jittered busy wait's longest sleep in every SQLite process, 50us to 1s (default: the store's, 4ms): "
                    + "shorter sleeps cost throughput and can shorten the tail (results/busy-sleep-20261206)")
    Duration longestBusySleep;
    @Option(names = "--open-loop-only", description = "run only the --rate open loops: no floor and no closed loop, so no x floor "
            + "and no load (what a tail comparison at fixed rates needs, in half the time; default: the closed loops first)")
    boolean openLoopOnly;
    @Option(names = "--timeline", description = "write every open-loop request of every process (intended start, start, end, "
            + "outcome, in System.nanoTime ns) to a folder per open loop under this new or empty folder, and report the longest "
            + "stretch in which no request completed, in all processes together and in each (default: none)")
    Path timeline;
    @Option(names = "--record-batches", description = "record every GROUP_COMMIT worker process with Flight Recorder, a folder "
            + "per run under this new or empty folder, and print where each process's batches spent their time (BenchMain "
            + "batches; the recording covers the process's warmup too). Recording costs some throughput: use it to see where "
            + "the time goes, not for the rates (default: none)")
    Path recordBatches;

    /** Numbers the open loops' timeline folders in the order they ran. */
    private int openLoopsRun;
    /** Numbers the recorded runs' folders in the order they ran. */
    private int recordedRuns;

    public static void main(String[] args) {
        if (System.getProperty(BenchMain.SLF4J_VERBOSITY) == null) {
            System.setProperty(BenchMain.SLF4J_VERBOSITY, "ERROR");
        }
        System.exit(execute(System.out, System.err, args));
    }

    /** Runs the command and returns its exit code instead of exiting (tests call this). */
    static int execute(PrintStream out, PrintStream err, String... args) {
        CommandLine cli = new CommandLine(new MultiProcessMain());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        return BenchMain.execute(cli, out, err, args);
    }

    /** A split of the threads: {@code processes} JVMs of {@code threads} threads each. */
    record Split(int processes, int threads) {
        static Split parse(String text) {
            String[] parts = text.trim().toLowerCase(Locale.ROOT).split("x");
            try {
                if (parts.length == 2) {
                    Split s = new Split(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
                    if (s.processes >= 1 && s.threads >= 1) {
                        return s;
                    }
                }
            } catch (NumberFormatException e) {
                // the message below says what is expected
            }
            throw new IllegalArgumentException("--splits takes PROCESSESxTHREADS, each at least 1, e.g. 2x4: '" + text + "'");
        }

        @Override
        public String toString() {
            return processes + "x" + threads;
        }
    }

    /**
     * One run's figures.
     *
     * @param work the strategy, or {@value MultiProcessWorker#FLOOR}
     * @param wonPerSecond won operations over all threads per wall second of the measured window
     * @param jain Jain's index of the threads' won counts
     * @param slowestShare the smallest thread's won count over the mean
     * @param perProcessWon each process's won count, in start order
     */
    record RunResult(String work, Split split, double wonPerSecond, long won, long lost, long failed, double jain,
                     double slowestShare, List<Long> perProcessWon, double seconds) {

        /** Every attempt of the measured window per second: what an open loop's load is a fraction of. */
        double requestsPerSecond() {
            return (won + lost + failed) / seconds;
        }

        String line() {
            return String.format(Locale.ROOT, "%-18s %-4s %10.0f won/s  lost %d  failed %d  Jain %.2f  slowest %.2f  per process %s",
                    work, split, wonPerSecond, lost, failed, jain, slowestShare, perProcessWon);
        }
    }

    /**
     * One open loop across the processes of a split: the processes' histograms merged, so the
     * percentiles are over every request of every process, each from its intended start.
     *
     * @param load the fraction of the closed loop's requests/s asked for; null with --open-loop-only, which runs no closed loop
     * @param rateAsked requests per second over all processes
     * @param late requests that started more than 1 ms after they were due
     * @param perProcessP999Ms each process's own p99.9, in start order: whether the tail is every
     *     process's or comes from some of them falling behind
     * @param timeline the folder of the processes' timelines, or null without {@code --timeline}
     * @param gaps what the timelines show, or null without them
     */
    record OpenRun(String work, Split split, Double load, double rateAsked, double wonPerSecond, long sent, long won,
                   long failed, long late, double p50Ms, double p99Ms, double p999Ms, double maxMs, List<Double> perProcessP999Ms,
                   String timeline, OpenLoopTimeline.Gaps gaps) {

        String line() {
            String line = String.format(Locale.ROOT, "%-18s %-4s open loop %s(%.0f req/s): p50 %.3f  p99 %.3f  p99.9 %.3f  "
                            + "max %.3f ms  %.0f won/s  failed %d  late %d  p99.9 per process %s ms",
                    work, split, load == null ? "" : String.format(Locale.ROOT, "at %.2f ", load), rateAsked, p50Ms, p99Ms, p999Ms, maxMs, wonPerSecond, failed, late,
                    perProcessP999Ms.stream().map(ms -> String.format(Locale.ROOT, "%.1f", ms)).toList());
            return gaps == null ? line : line + System.lineSeparator() + "    timeline " + timeline + ": " + gaps.describe();
        }

        OpenRun withTimeline(Path folder, OpenLoopTimeline.Gaps found) {
            return new OpenRun(work, split, load, rateAsked, wonPerSecond, sent, won, failed, late, p50Ms, p99Ms, p999Ms, maxMs,
                    perProcessP999Ms, folder.toString(), found);
        }
    }

    @Override
    public Integer call() throws Exception {
        List<LockingStrategy> measured = strategies != null ? strategies : LockingStrategy.of(storage.engine());
        for (LockingStrategy s : measured) {
            if (s.engine() != storage.engine()) {
                throw new IllegalArgumentException("--strategies takes strategies of the storage's engine (" + storage.engine()
                        + " for --storage " + storage + "): " + s);
            }
        }
        if (longestBusySleep != null) {
            if (storage.engine() != Engine.SQLITE) {
                throw new IllegalArgumentException("--longest-busy-sleep is a setting of SQLite's busy wait, not of --storage " + storage);
            }
            if (longestBusySleep.toNanos() % 1000 != 0) {
                throw new IllegalArgumentException("--longest-busy-sleep takes whole microseconds: " + longestBusySleep);
            }
            // StoreOptions names what is wrong (the range, or SQLITE_SLEEPS's own sleeps) before any process starts.
            StoreOptions.defaults().withBusyWait(Storage.busyWait()).withLongestBusySleep(longestBusySleep);
        }
        if (storage.engine() == Engine.POSTGRESQL) {
            PostgresTarget.require(); // before any process starts: without a server, say how to name one
        }
        List<Split> parsed = splits.stream().map(Split::parse).toList();
        for (double load : loads == null ? List.<Double>of() : loads) {
            if (!(load > 0) || Double.isInfinite(load)) {
                throw new IllegalArgumentException("--load takes fractions above 0 of the closed loop's requests/s: " + loads);
            }
        }
        for (double rate : rates == null ? List.<Double>of() : rates) {
            if (!(rate >= 1) || Double.isInfinite(rate)) {
                throw new IllegalArgumentException("--rate takes requests per second over all processes, at least 1: " + rates);
            }
        }
        if (paired && (slice.toMillis() < 10 || duration.toMillis() < 4 * slice.toMillis())) {
            throw new IllegalArgumentException("--paired needs a --slice of at least 10 ms and a --duration of at least two groups "
                    + "(4 slices): --slice " + slice + ", --duration " + duration);
        }
        if (paired && storage.engine() == Engine.SQLITE && Storage.busyWait() != BusyWait.JITTERED) {
            // Measured: 1 x 8 on WAL_NORMAL under SQLite's handler, the floor's slices ran at
            // 60-67k won/s against about 37k in runs of its own (results/processes-20261203).
            throw new IllegalArgumentException("--paired on SQLite needs the jittered busy wait (-D" + Storage.BUSY_WAIT_PROPERTY
                    + "=JITTERED), not " + Storage.busyWait() + ": SQLite's handler sleeps up to 100 ms at a time, so a write "
                    + "started in one slice runs on through the next and the other work's slice runs with fewer threads");
        }
        if (busyTimeout != null && busyTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("--busy-timeout must be at least 1 ms: " + busyTimeout);
        }
        if (openLoopOnly && (rates == null || rates.isEmpty() || (loads != null && !loads.isEmpty()) || paired)) {
            throw new IllegalArgumentException("--open-loop-only runs the --rate open loops alone: give --rate, and neither --load "
                    + "(a fraction of a closed loop it does not run) nor --paired");
        }
        if (recordBatches != null) {
            if (!measured.contains(LockingStrategy.GROUP_COMMIT)) {
                throw new IllegalArgumentException("--record-batches records GROUP_COMMIT's batches: measure GROUP_COMMIT "
                        + "(--strategies), not only " + measured);
            }
            requireNewOrEmpty(recordBatches, "--record-batches");
        }
        if (timeline != null) {
            checkTimeline(parsed);
        }
        // This JVM's own connections (the schema, the check) and, passed on, every worker's; put
        // back afterwards, since a test runs this command inside its own JVM.
        Map<String, String> before = new LinkedHashMap<>();
        try {
            if (busyTimeout != null) {
                before.put(Storage.BUSY_TIMEOUT_PROPERTY,
                        System.setProperty(Storage.BUSY_TIMEOUT_PROPERTY, Long.toString(busyTimeout.toMillis())));
            }
            if (longestBusySleep != null) {
                before.put(Storage.LONGEST_BUSY_SLEEP_PROPERTY,
                        System.setProperty(Storage.LONGEST_BUSY_SLEEP_PROPERTY, Long.toString(longestBusySleep.toNanos() / 1000)));
            }
            return measure(measured, parsed);
        } finally {
            before.forEach((key, value) -> {
                if (value == null) {
                    System.clearProperty(key);
                } else {
                    System.setProperty(key, value);
                }
            });
        }
    }

    /** Refuses a folder that holds files already: nothing a run writes may overwrite an earlier run's. */
    private static void requireNewOrEmpty(Path folder, String option) throws IOException {
        if (Files.exists(folder)) {
            boolean empty;
            try (var entries = Files.isDirectory(folder) ? Files.list(folder) : null) {
                empty = entries != null && entries.findAny().isEmpty();
            }
            if (!empty) {
                throw new IllegalArgumentException(option + " takes a new or empty folder, so that no earlier run's files are "
                        + "overwritten: " + folder);
            }
        }
    }

    /**
     * Refuses a --timeline that records nothing, would overwrite files, or asks a worker for more
     * requests than a timeline keeps (for --rate; a --load's rate is known only after its closed
     * loop, and its worker refuses it then).
     */
    private void checkTimeline(List<Split> parsed) throws IOException {
        if ((loads == null || loads.isEmpty()) && (rates == null || rates.isEmpty())) {
            throw new IllegalArgumentException("--timeline records the open loops: give --load or --rate as well");
        }
        requireNewOrEmpty(timeline, "--timeline");
        for (Split split : parsed) {
            for (double rate : rates == null ? List.<Double>of() : rates) {
                long requests = new OpenLoop(rate / split.processes(), split.threads(), warmup, duration).measuredRequests();
                if (requests > OpenLoop.TIMELINE_MAX_REQUESTS) {
                    throw new IllegalArgumentException("--timeline keeps at most " + OpenLoop.TIMELINE_MAX_REQUESTS + " requests a "
                            + "process, and --rate " + rate + " over " + split + " for --duration " + duration + " gives each "
                            + requests + ": lower the rate or the duration");
                }
            }
        }
    }

    private int measure(List<LockingStrategy> measured, List<Split> parsed) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (timeline != null) {
            Files.createDirectories(timeline);
        }
        out.printf(Locale.ROOT, "%s, busy wait %s%s, busy timeout %d ms, warmup %s, measured %s per run; hot-job claims (now = nanoTime, ttl %s)%n",
                storage, Storage.busyWait(), describeLongestSleep(), Storage.busyTimeout().toMillis(), warmup, duration,
                describeTtl());
        if (!paired && !openLoopOnly) {
            // Measured 2026-12-07, 4 x 2 on WAL_FULL: 1.71-1.97x unpaired, 1.10-1.17x paired (results/group-commit-time-20261207).
            out.println("x floor unpaired: each strategy against a floor that ran in a run of its own, which moves with the "
                    + "machine between runs; --paired measures both in the same slices (the runner's profiles do)");
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Split split : parsed) {
            if (paired) {
                rows.addAll(measurePaired(measured, split, out));
                continue;
            }
            if (openLoopOnly) {
                for (LockingStrategy strategy : measured) {
                    rows.add(new LinkedHashMap<>(Map.of("openLoop", openLoops(strategy, split, Double.NaN, out))));
                }
                out.flush();
                continue;
            }
            RunResult floor = runOne(MultiProcessWorker.FLOOR, split);
            out.println(floor.line());
            rows.add(row(floor, Double.NaN));
            for (LockingStrategy strategy : measured) {
                RunResult r = runOne(strategy.name(), split);
                double xFloor = r.wonPerSecond() / floor.wonPerSecond();
                out.println(r.line() + String.format(Locale.ROOT, "  x floor %.2f", xFloor));
                Map<String, Object> row = row(r, xFloor);
                row.put("openLoop", openLoops(strategy, split, r.requestsPerSecond(), out));
                rows.add(row);
            }
            out.flush();
        }
        if (json != null) {
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("storage", storage.name());
            report.put("busyWait", Storage.busyWait().name());
            report.put("busyTimeoutMillis", Storage.busyTimeout().toMillis());
            if (storage.engine() == Engine.SQLITE && Storage.busyWait() == BusyWait.JITTERED) {
                report.put("longestBusySleepMicros", Storage.longestBusySleep().toNanos() / 1000);
            }
            report.put("warmupMillis", warmup.toMillis());
            report.put("measureMillis", duration.toMillis());
            report.put("loads", loads == null ? List.of() : loads);
            report.put("rates", rates == null ? List.of() : rates);
            report.put("openLoopOnly", openLoopOnly);
            if (paired) {
                report.put("sliceMillis", slice.toMillis());
            }
            report.put("runs", rows);
            Json.writeFile(json, report);
            out.println("wrote " + json);
        }
        return 0;
    }

    /** The hot-job claim's lease for the header, in plain digits (a double prints a microsecond as 1.0E-6). */
    static String describeTtl() {
        return java.math.BigDecimal.valueOf(MultiProcessWorker.TTL_SECONDS).stripTrailingZeros().toPlainString() + " s";
    }

    /** The jittered wait's longest sleep for the header, where it applies. */
    private String describeLongestSleep() {
        if (storage.engine() != Engine.SQLITE || Storage.busyWait() != BusyWait.JITTERED) {
            return "";
        }
        return String.format(Locale.ROOT, " (longest sleep %d us)", Storage.longestBusySleep().toNanos() / 1000);
    }

    /** Each strategy paired with the floor in one run of the split, then its open loops. */
    private List<Map<String, Object>> measurePaired(List<LockingStrategy> measured, Split split, PrintWriter out) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (LockingStrategy strategy : measured) {
            PairedSlices.Result r = runPaired(strategy.name(), split);
            out.println(r.line());
            out.flush();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("paired", r);
            row.put("xFloor", r.xFloor().median());
            row.put("openLoop", openLoops(strategy, split, r.claimRequestsPerSecond(), out));
            rows.add(row);
        }
        return rows;
    }

    /**
     * The open loops after a strategy's closed loop: one per --load, at that fraction of
     * {@code requestsPerSecond}, then one per --rate, whose load is the rate over it.
     */
    private List<OpenRun> openLoops(LockingStrategy strategy, Split split, double requestsPerSecond, PrintWriter out)
            throws IOException, InterruptedException, SQLException {
        List<OpenRun> open = new ArrayList<>();
        for (double load : loads == null ? List.<Double>of() : loads) {
            open.add(runOpen(strategy.name(), split, load, load * requestsPerSecond));
            out.println(open.get(open.size() - 1).line());
        }
        for (double rate : rates == null ? List.<Double>of() : rates) {
            open.add(runOpen(strategy.name(), split, rate / requestsPerSecond, rate));
            out.println(open.get(open.size() - 1).line());
        }
        return open;
    }

    /**
     * One paired run ({@link PairedSlices}): every process runs the floor and {@code work}'s claim
     * in alternating slices; the stored fences of the hot job and of the floor's row must equal
     * the wins the processes counted of each.
     */
    PairedSlices.Result runPaired(String work, Split split) throws IOException, InterruptedException, SQLException {
        long sliceMillis = slice.toMillis();
        int groups = (int) (duration.toMillis() / (2 * sliceMillis));
        return runProcesses(MultiProcessWorker.PAIRED + work, split, List.of(Long.toString(sliceMillis), Integer.toString(groups)), null,
                (db, outputs, origin) -> {
                    List<JsonNode> workers = outputs.stream().map(MultiProcessMain::readWorker).toList();
                    try (Connection c = db.connect()) {
                        checkPairedFences(work, c, workers);
                    }
                    return new PairedSlices(origin, warmup.toNanos(), TimeUnit.MILLISECONDS.toNanos(sliceMillis), groups)
                            .fold(work, split, workers);
                });
    }

    /** {@link #checkFence} for a paired run: the claims' wins on the hot job, the floor's on its row. */
    static void checkPairedFences(String work, Connection c, List<JsonNode> workers) throws SQLException {
        long claims = 0;
        long floors = 0;
        for (JsonNode worker : workers) {
            for (JsonNode t : worker.path("threads")) {
                claims += t.path("claimWonTotal").asLong();
                floors += t.path("floorWonTotal").asLong();
            }
        }
        checkStoredFence(work, c, ClaimBenchmark.HOT, claims);
        checkStoredFence(MultiProcessWorker.FLOOR, c, PairedClaimBenchmark.FLOOR_ROW, floors);
    }

    private static Map<String, Object> row(RunResult r, double xFloor) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("result", r);
        m.put("xFloor", Double.isNaN(xFloor) ? null : xFloor);
        return m;
    }

    /** Creates a fresh file, starts the split's processes, opens the gate, and reads back their counts. */
    RunResult runOne(String work, Split split) throws IOException, InterruptedException, SQLException {
        return runProcesses(work, split, List.of(), null, (db, outputs, origin) -> {
            RunResult result = fold(work, split, outputs);
            try (Connection c = db.connect()) {
                checkFence(work, c, outputs);
            }
            return result;
        });
    }

    /**
     * The same with an open loop of {@code rate} requests per second over all processes, each
     * process sending its share; reads back and merges their latency histograms. The fence check
     * does not apply: an open loop does not count its warmup's wins.
     */
    OpenRun runOpen(String work, Split split, double load, double rate) throws IOException, InterruptedException, SQLException {
        Path folder = null;
        if (timeline != null) {
            folder = timeline.resolve(String.format(Locale.ROOT, "%02d-%s-%s-%.0f-per-s", ++openLoopsRun, work, split, rate));
            Files.createDirectory(folder);
        }
        Path timelines = folder;
        return runProcesses(work, split, List.of(Double.toString(rate / split.processes())), timelines,
                (db, outputs, origin) -> {
                    OpenRun run = foldOpen(work, split, load, outputs);
                    if (timelines == null) {
                        return run;
                    }
                    List<Path> files = new ArrayList<>();
                    List<Long> sent = new ArrayList<>();
                    for (int p = 0; p < outputs.size(); p++) {
                        files.add(timelineFile(timelines, p));
                        sent.add(readWorker(outputs.get(p)).path("openLoop").path("sent").asLong());
                    }
                    return run.withTimeline(timelines, OpenLoopTimeline.read(files, sent));
                });
    }

    private static Path recordingFile(Path folder, int process) {
        return folder.resolve("process-" + process + ".jfr");
    }

    /** Each recorded process's batches over its whole recording, a line each. */
    private void printBatches(Path recordings, Split split) throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        for (int p = 0; p < split.processes(); p++) {
            Path file = recordingFile(recordings, p);
            out.println("  batches of process " + p + " (" + file + "): " + BatchProfile.line(BatchProfile.all(BatchProfile.read(file))));
        }
        out.flush();
    }

    private static Path timelineFile(Path folder, int process) {
        return folder.resolve("process-" + process + ".tsv");
    }

    private interface Fold<T> {
        /** @param origin the {@link System#nanoTime()} that the start gate handed every process */
        T apply(BenchDb db, List<Path> outputs, long origin) throws SQLException;
    }

    /** How long after the gate the workers' clock starts: every process has read the gate line by then. */
    private static final long GATE_TO_ORIGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    /**
     * Creates a fresh database (a SQLite file, or a PostgreSQL schema) with the hot job and the
     * floor's row, starts the split's processes, opens the gate, waits for them and folds their outputs.
     *
     * @param timelines where each process writes its open loop's timeline, or null for none
     */
    private <T> T runProcesses(String work, Split split, List<String> extraArguments, Path timelines, Fold<T> fold)
            throws IOException, InterruptedException, SQLException {
        Path dir = Files.createTempDirectory("leaselab-multiprocess-");
        List<Process> processes = new ArrayList<>();
        List<Path> outputs = new ArrayList<>();
        Path recordings = null;
        if (recordBatches != null && work.endsWith(LockingStrategy.GROUP_COMMIT.name())) {
            // Not createDirectories' result: that is absolute when it had to create a parent too.
            recordings = recordBatches.resolve(String.format(Locale.ROOT, "%02d-%s-%s", ++recordedRuns, work, split));
            Files.createDirectories(recordings);
        }
        try (BenchDb db = BenchDb.openWithoutStore(storage)) {
            db.insertJobs(new String[] {ClaimBenchmark.HOT, PairedClaimBenchmark.FLOOR_ROW}, null, 0);
            try {
                for (int p = 0; p < split.processes(); p++) {
                    Path output = dir.resolve("process-" + p + ".json");
                    outputs.add(output);
                    List<String> command = new ArrayList<>(List.of(ChildJvm.java(),
                            "-cp", ChildJvm.classPath()));
                    command.addAll(Storage.childJvmProperties());
                    command.add("-D" + BenchMain.SLF4J_VERBOSITY + "=ERROR");
                    if (timelines != null) {
                        command.add("-D" + MultiProcessWorker.TIMELINE_PROPERTY + "=" + timelineFile(timelines, p));
                    }
                    if (recordings != null) {
                        command.add("-XX:StartFlightRecording=filename=" + recordingFile(recordings, p));
                    }
                    command.addAll(List.of(MultiProcessWorker.class.getName(), db.workerArgument(), storage.name(), work,
                            Integer.toString(split.threads()), Long.toString(warmup.toMillis()), Long.toString(duration.toMillis()),
                            output.toString()));
                    command.addAll(extraArguments);
                    processes.add(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
                }
                for (Process process : processes) {
                    awaitReady(process, work, split);
                }
                // The gate line carries a common origin; only the paired mode's workers read it.
                long origin = System.nanoTime() + GATE_TO_ORIGIN_NANOS;
                for (Process process : processes) {
                    OutputStream gate = process.getOutputStream();
                    gate.write((origin + "\n").getBytes(StandardCharsets.US_ASCII));
                    gate.flush();
                }
                // An open loop may wait out its drain (OpenLoop.DEFAULT_DRAIN) after the window.
                long limit = warmup.toMillis() + duration.toMillis() + OpenLoop.DEFAULT_DRAIN.toMillis() + 60_000;
                for (Process process : processes) {
                    if (!process.waitFor(limit, TimeUnit.MILLISECONDS)) {
                        throw new IllegalStateException("a worker process of " + work + " " + split + " did not finish within "
                                + limit + " ms");
                    }
                    if (process.exitValue() != 0) {
                        throw new IllegalStateException("a worker process of " + work + " " + split + " exited with " + process.exitValue());
                    }
                }
                if (recordings != null) {
                    printBatches(recordings, split);
                }
                return fold.apply(db, outputs, origin);
            } finally {
                // Before the database goes: a worker left running would hold it.
                processes.forEach(Process::destroyForcibly);
            }
        } finally {
            SqliteBenchDb.deleteDirectory(dir);
        }
    }

    /** A worker's output, refused if the worker ran with another busy timeout or longest busy sleep than this run asked for. */
    static JsonNode readWorker(Path output) {
        JsonNode result = Json.read(output);
        if (result.path("busyTimeoutMillis").asLong() != Storage.busyTimeout().toMillis()) {
            throw new IllegalStateException("a worker ran with a busy timeout of " + result.path("busyTimeoutMillis")
                    + " ms, not " + Storage.busyTimeout().toMillis() + " ms: " + output);
        }
        long longestSleepMicros = Storage.longestBusySleep().toNanos() / 1000;
        if (result.path("longestBusySleepMicros").asLong(-1) != longestSleepMicros) {
            throw new IllegalStateException("a worker ran with a longest busy sleep of " + result.path("longestBusySleepMicros")
                    + " us, not " + longestSleepMicros + " us: " + output);
        }
        return result;
    }

    /** Merges the processes' open-loop results: counts added, histograms added, percentiles of the sum. */
    static OpenRun foldOpen(String work, Split split, double load, List<Path> outputs) {
        Histogram all = null;
        double rate = 0;
        double wonPerSecond = 0;
        long sent = 0;
        long won = 0;
        long failed = 0;
        long late = 0;
        List<Double> perProcessP999Ms = new ArrayList<>();
        for (Path output : outputs) {
            JsonNode o = readWorker(output).path("openLoop");
            if (o.isMissingNode()) {
                throw new IllegalStateException("a worker wrote no open-loop result: " + output);
            }
            Histogram h = OpenLoop.decode(o.path("histogram").asText());
            perProcessP999Ms.add(h.getValueAtPercentile(99.9) / 1e6); // before the first process's histogram takes the others in
            if (all == null) {
                all = h;
            } else {
                all.add(h);
            }
            rate += o.path("rateAsked").asDouble();
            wonPerSecond += o.path("achievedWonPerSecond").asDouble();
            sent += o.path("sent").asLong();
            won += o.path("won").asLong();
            failed += o.path("failed").asLong();
            late += o.path("late").asLong();
        }
        if (all == null) {
            throw new IllegalArgumentException("outputs must name at least one process's result");
        }
        return new OpenRun(work, split, Double.isNaN(load) ? null : load, rate, wonPerSecond, sent, won, failed, late,
                all.getValueAtPercentile(50) / 1e6, all.getValueAtPercentile(99) / 1e6, all.getValueAtPercentile(99.9) / 1e6,
                all.getMaxValue() / 1e6, List.copyOf(perProcessP999Ms), null, null);
    }

    private static void awaitReady(Process process, String work, Split split) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        for (String line; (line = lines.readLine()) != null; ) {
            if (line.strip().equals(MultiProcessWorker.READY)) {
                return;
            }
        }
        throw new IllegalStateException("a worker process of " + work + " " + split + " ended before it was ready");
    }

    static RunResult fold(String work, Split split, List<Path> outputs) {
        List<long[]> threads = new ArrayList<>();
        List<Long> perProcess = new ArrayList<>();
        long lost = 0;
        long failed = 0;
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        for (Path output : outputs) {
            long processWon = 0;
            JsonNode result = readWorker(output);
            for (JsonNode t : result.path("threads")) {
                long won = t.path("won").asLong();
                processWon += won;
                threads.add(new long[] {won});
                lost += t.path("lost").asLong();
                failed += t.path("failed").asLong();
                start = Math.min(start, t.path("startNanos").asLong());
                end = Math.max(end, t.path("endNanos").asLong());
            }
            perProcess.add(processWon);
        }
        long won = perProcess.stream().mapToLong(Long::longValue).sum();
        double seconds = Math.max(1e-9, (end - start) / 1e9);
        double sum = 0;
        double squares = 0;
        long smallest = Long.MAX_VALUE;
        for (long[] t : threads) {
            sum += t[0];
            squares += (double) t[0] * t[0];
            smallest = Math.min(smallest, t[0]);
        }
        double jain = squares == 0 ? Double.NaN : sum * sum / (threads.size() * squares);
        double mean = sum / threads.size();
        return new RunResult(work, split, won / seconds, won, lost, failed, jain, mean == 0 ? Double.NaN : smallest / mean,
                List.copyOf(perProcess), seconds);
    }

    /**
     * Every won claim and every floor update raised a fence by one, so the stored fence must be
     * the wins counted by all processes, warmup included: a process that miscounted, or a win that
     * did not commit, shows here.
     */
    static void checkFence(String work, Connection c, List<Path> outputs) throws SQLException {
        long counted = 0;
        for (Path output : outputs) {
            for (JsonNode t : Json.read(output).path("threads")) {
                counted += t.path("won").asLong() + t.path("warmupWon").asLong();
            }
        }
        checkStoredFence(work, c, MultiProcessWorker.FLOOR.equals(work) ? PairedClaimBenchmark.FLOOR_ROW : ClaimBenchmark.HOT, counted);
    }

    private static void checkStoredFence(String work, Connection c, String row, long counted) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT fence FROM jobs WHERE id = '" + row + "'")) {
            long stored = r.next() ? r.getLong(1) : -1;
            if (stored != counted) {
                throw new IllegalStateException(work + ": the stored fence of '" + row + "' is " + stored + " but the processes "
                        + "counted " + counted + " wins");
            }
        }
    }
}
