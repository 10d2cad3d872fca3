package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.SqliteLeaseStore;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * Open-loop tail latency of the lease store ({@link OpenLoop}): requests arrive at a fixed rate and
 * each one's latency is measured from its intended start, so a stall of the store is charged to
 * every request that queued behind it, which JMH's closed-loop {@code SampleTime} cannot show.
 * Prints one line per rate (p50 / p90 / p99 / p99.9 / max, won/s achieved, counts per outcome, late
 * starts); {@code --json FILE} also writes the results with each run's HdrHistogram.
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.OpenLoopMain --strategy GROUP_COMMIT --storage WAL_NORMAL \
 *     --threads 8 --rate 20000 --warmup 1s --duration 5s
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.OpenLoopMain --strategy IMMEDIATE --load 0.5,0.8 --json openloop.json
 * </pre>
 * Without {@code --rate}, it first measures the closed-loop maximum (requests/s, every outcome) for
 * {@code --calibrate} with the same threads, after a closed-loop warmup of {@code --warmup} that is
 * not counted, and runs each {@code --load} fraction of it (0.5 by default). SQLite only for now: a fresh file under {@code java.io.tmpdir}, deleted afterwards. The
 * same hygiene as for the benchmarks holds: a quiet machine, and ratios rather than absolute numbers.
 * Exit codes: 0 success, 2 a usage or runtime error.
 */
@Command(name = "leaselab-openloop", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Open-loop latency of the lease store: requests arrive at a fixed rate, and each one's latency is measured "
                    + "from its intended start, so a stall is charged to every request queued behind it "
                    + "(no coordinated omission). Latency covers every outcome; only won requests count as throughput.",
            "SQLite only for now (a fresh temporary file): a PostgreSQL strategy or storage is an error."},
        footer = {"", "Example:",
            "  java -cp bench/target/benchmarks.jar dev.leaselab.bench.OpenLoopMain --strategy GROUP_COMMIT "
                    + "--storage WAL_NORMAL --threads 8 --load 0.5,0.8 --warmup 1s --duration 5s"})
public final class OpenLoopMain implements Callable<Integer> {

    /** Exit code for usage errors and failures, as {@link BenchMain#ERROR}. */
    public static final int ERROR = 2;

    /** What each request does. */
    enum Work {
        /** {@link OpenLoopWork#hotClaim}: the hot-job claim of {@link ClaimBenchmark#hotJob}. */
        CLAIM,
        /** {@link OpenLoopWork.Floor}: the plain {@code UPDATE} of {@link FloorBenchmark}, one connection per thread. */
        FLOOR
    }

    @Spec
    CommandSpec spec;
    @Option(names = "--work", defaultValue = "CLAIM",
            description = "claim: the hot-job claim (ClaimBenchmark.hotJob); floor: the plain UPDATE of FloorBenchmark "
                    + "(--strategy then only creates the file). Default: ${DEFAULT-VALUE}")
    Work work;
    @Option(names = "--strategy", defaultValue = "IMMEDIATE",
            description = "a SQLite locking strategy: IMMEDIATE, EXCLUSIVE, CONDITIONAL_UPDATE, SERIALIZED, DEFERRED_RETRY, "
                    + "GROUP_COMMIT (default: ${DEFAULT-VALUE})")
    LockingStrategy strategy;
    @Option(names = "--storage", defaultValue = "WAL_NORMAL",
            description = "WAL_NORMAL, WAL_FULL or DELETE_FULL (default: ${DEFAULT-VALUE}); busy timeout 1 s")
    Storage storage;
    @Option(names = "--threads", defaultValue = "8", description = "worker threads (default: ${DEFAULT-VALUE})")
    int threads;
    @Option(names = "--rate", split = ",", description = "arrival rates in requests/s, e.g. 20000 or 5000,10000")
    List<Double> rates;
    @Option(names = "--load", split = ",",
            description = "without --rate: fractions of the closed-loop maximum to run at (default: 0.5), e.g. 0.5,0.8")
    List<Double> loads;
    @Option(names = "--calibrate", defaultValue = "2s", converter = DurationConverter.class,
            description = "how long the closed-loop maximum is measured, without --rate, after a closed-loop --warmup "
                    + "(default: ${DEFAULT-VALUE})")
    Duration calibrate;
    @Option(names = "--warmup", defaultValue = "1s", converter = DurationConverter.class,
            description = "run at the rate but not recorded, per rate (default: ${DEFAULT-VALUE}; 0s for none)")
    Duration warmup;
    @Option(names = "--duration", defaultValue = "5s", converter = DurationConverter.class,
            description = "the measured window per rate (default: ${DEFAULT-VALUE})")
    Duration duration;
    @Option(names = "--drain", defaultValue = "2s", converter = DurationConverter.class,
            description = "how long after the window requests still queued or in flight are waited for; those not done "
                    + "by then are failed, charged up to that moment (default: ${DEFAULT-VALUE})")
    Duration drain;
    @Option(names = "--json", description = "also write the results, with each run's HdrHistogram (compressed, base64), to this file")
    Path json;

    public static void main(String[] args) {
        if (System.getProperty(BenchMain.SLF4J_VERBOSITY) == null) {
            System.setProperty(BenchMain.SLF4J_VERBOSITY, "ERROR");
        }
        System.exit(execute(System.out, System.err, args));
    }

    /** Runs the command and returns its exit code instead of exiting (tests call this). */
    static int execute(PrintStream out, PrintStream err, String... args) {
        CommandLine cli = new CommandLine(new OpenLoopMain());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        return BenchMain.execute(cli, out, err, args);
    }

    @Override
    public Integer call() throws IOException, SQLException {
        if (strategy.engine() != Engine.SQLITE || storage.engine() != Engine.SQLITE) {
            throw new IllegalArgumentException("OpenLoopMain runs on SQLite only for now: --strategy " + strategy
                    + " (" + strategy.engine() + ") --storage " + storage + " (" + storage.engine() + "); use a SQLite "
                    + "strategy (" + LockingStrategy.of(Engine.SQLITE) + ") and storage (WAL_NORMAL, WAL_FULL, DELETE_FULL)");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("--threads must be at least 1, was " + threads);
        }
        if (rates != null && loads != null) {
            throw new IllegalArgumentException("--rate and --load exclude each other: --rate runs at the rates given, "
                    + "--load at fractions of the closed-loop maximum measured first");
        }
        List<Double> fractions = loads != null ? loads : List.of(0.5);
        for (double load : fractions) {
            if (!(load > 0) || Double.isInfinite(load)) {
                throw new IllegalArgumentException("--load must be a fraction above 0 (above 1 overloads the store), was " + load);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        Path dir = Files.createTempDirectory("leaselab-openloop-");
        Path file = dir.resolve("openloop.db");
        LeaseStore store = null;
        OpenLoopWork.Floor floor = null;
        try {
            store = SqliteLeaseStore.open(file, strategy, storage.options());
            store.enqueue(OpenLoopWork.HOT);
            OpenLoop.Op op;
            if (work == Work.FLOOR) {
                // The store only created the schema and the row; the floor writes through plain connections.
                store.close();
                store = null;
                floor = OpenLoopWork.Floor.open(storage, file, threads);
                op = floor.op();
            } else {
                // One op for the calibration and every rate: it carries the claim clock (see hotClaim).
                op = OpenLoopWork.hotClaim(store);
            }
            out.printf(Locale.ROOT, "%s, %s on %s, %d threads, warmup %s, measured %s per rate, drain %s "
                            + "(latency from each request's intended start, every outcome; won/s counts won only)%n",
                    work == Work.FLOOR ? "floor UPDATE" : "hot-job claim", work == Work.FLOOR ? "plain JDBC" : strategy,
                    storage, threads, text(warmup), text(duration), text(drain));

            Map<String, Object> report = new LinkedHashMap<>();
            report.put("work", work.name());
            report.put("strategy", work == Work.FLOOR ? null : strategy.name());
            report.put("storage", storage.name());
            report.put("threads", threads);
            // The file is deleted afterwards; where it was says which file system was measured.
            report.put("tmpdir", System.getProperty("java.io.tmpdir"));
            List<Double> asked = rates;
            List<Double> runLoads = new ArrayList<>();
            if (asked == null) {
                if (!warmup.isZero()) {
                    // Not counted: a fresh JVM's first seconds tend to run slower (one try here, hot-job
                    // claim, GROUP_COMMIT, 8 threads: 17k requests/s in the first 2 s, 28-31k in the next
                    // three 2 s windows), which would make every --load a smaller fraction than it says.
                    // This shared 2-core machine also varies from second to second (13k-30k in 1 s
                    // windows of one JVM), so a --load is a fraction of one noisy measurement: use
                    // --rate to compare runs.
                    OpenLoop.closedLoop(op, threads, warmup, drain);
                }
                OpenLoop.ClosedLoop closed = OpenLoop.closedLoop(op, threads, calibrate, drain);
                out.println(closed.line() + (warmup.isZero() ? "" : " after a warmup of " + text(warmup)));
                report.put("closedLoop", closed);
                if (closed.requests() == 0) {
                    throw new IllegalStateException("the closed loop completed no request in " + text(calibrate)
                            + ": there is no maximum to take a load of");
                }
                asked = new ArrayList<>();
                for (double load : fractions) {
                    asked.add(load * closed.requestsPerSecond());
                    runLoads.add(load);
                }
            }
            List<Map<String, Object>> runs = new ArrayList<>();
            for (int r = 0; r < asked.size(); r++) {
                OpenLoop.Result result = new OpenLoop(asked.get(r), threads, warmup, duration, drain).run(op);
                Double load = runLoads.isEmpty() ? null : runLoads.get(r);
                out.println((load == null ? "" : String.format(Locale.ROOT, "load %.2f, ", load)) + result.line());
                if (result.firstFailure() != null) {
                    out.println("  first failure: " + result.firstFailure());
                }
                Map<String, Object> run = new LinkedHashMap<>();
                run.put("load", load);
                run.put("result", result);
                runs.add(run);
            }
            report.put("runs", runs);
            if (json != null) {
                Json.writeFile(json, report);
                out.println("wrote " + json);
            }
            return 0;
        } finally {
            if (floor != null) {
                floor.close();
            }
            if (store != null) {
                store.close();
            }
            SqliteBenchDb.deleteDirectory(dir);
        }
    }

    private static String text(Duration d) {
        return d.toString().substring(2).toLowerCase(Locale.ROOT);
    }

    /** A duration as {@code 500ms}, {@code 1s}, {@code 1.5s}, {@code 2m}, or ISO-8601 ({@code PT1S}). */
    static final class DurationConverter implements ITypeConverter<Duration> {
        private static final Pattern SHORT = Pattern.compile("(\\d+(?:\\.\\d+)?)(us|ms|s|m)");

        @Override
        public Duration convert(String value) {
            Matcher m = SHORT.matcher(value.trim());
            if (m.matches()) {
                BigDecimal amount = new BigDecimal(m.group(1));
                long nanosPerUnit = switch (m.group(2)) {
                    case "us" -> 1_000L;
                    case "ms" -> 1_000_000L;
                    case "s" -> 1_000_000_000L;
                    default -> 60_000_000_000L;
                };
                return Duration.ofNanos(amount.multiply(BigDecimal.valueOf(nanosPerUnit)).longValueExact());
            }
            try {
                return Duration.parse(value.trim());
            } catch (DateTimeParseException e) {
                throw new TypeConversionException("'" + value + "' is not a duration: use e.g. 250us, 500ms, 1s, 1.5s, 2m or PT1S");
            }
        }
    }
}
