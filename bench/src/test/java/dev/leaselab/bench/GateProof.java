package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.DoubleStream;
import org.openjdk.jmh.annotations.Mode;

/**
 * The gate's proof on real runs, not a unit test (with the arguments below it took 12 minutes
 * here): each try builds three runs, A, B with every store operation slowed by 25%
 * ({@link SlowedStore}), and A' (the same code as A), and asks the gate about A against A' (must
 * not regress) and A against B (must regress). {@code results/gate-proof.md} holds what it gave.
 *
 * <p>Each run is made of {@code rounds} short forks, and the forks of A, B and A' are interleaved
 * in time (A1 B1 A'1 A2 B2 A'2 ...), so a change in the machine's other load hits all three runs
 * alike instead of landing on one of them; a gate fed with runs taken at different times inherits
 * the drift between them. The price: each run mixes forks from different moments, so its
 * iterations vary more. With {@code rounds = 1} it is the plain sequential design. Run from the
 * repository root after {@code mvn -B -pl bench verify} (the committed proof, sequential design,
 * SQLite's files in memory):
 * <pre>
 * java -Djava.io.tmpdir=/dev/shm -cp bench/target/benchmarks.jar:bench/target/test-classes \
 *     dev.leaselab.bench.GateProof 20 /tmp/gate-proof results/gate-proof.md CONDITIONAL_UPDATE 1 2 8 1000
 * </pre>
 * Arguments: tries, a work folder for the result folders, the summary file, the strategies,
 * rounds (forks per run), warmup iterations, measurement iterations per fork, iteration time in ms.
 */
public final class GateProof {

    private GateProof() {}

    public static void main(String[] args) throws Exception {
        int tries = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        Path work = Path.of(args.length > 1 ? args[1] : "/tmp/gate-proof");
        Path summary = Path.of(args.length > 2 ? args[2] : "gate-proof.md");
        List<LockingStrategy> strategies = Arrays.stream((args.length > 3 ? args[3] : "CONDITIONAL_UPDATE").split(","))
                .map(LockingStrategy::valueOf).toList();
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        int warmups = args.length > 5 ? Integer.parseInt(args[5]) : 1;
        int iterations = args.length > 6 ? Integer.parseInt(args[6]) : 3;
        int millis = args.length > 7 ? Integer.parseInt(args[7]) : 500;
        Profile profile = new Profile("gate-proof", 1, warmups, millis, iterations, millis, List.of(
                new Profile.Step(BenchmarkId.CLAIM_HOT, Mode.Throughput, 1, List.of(Storage.WAL_NORMAL), strategies)));
        GateStatistics stats = GateStatistics.defaults();
        java.io.PrintWriter console = new java.io.PrintWriter(System.out, true);
        List<String> lines = new ArrayList<>();
        int aaRegressed = 0;
        int slowCaught = 0;
        int aaRegressedRaw = 0;
        int slowCaughtRaw = 0;
        Instant started = Instant.now();
        String loadAtStart = loadAverage();
        Map<String, Object> environment = Environment.describe();
        for (int t = 1; t <= tries; t++) {
            List<Path> a = new ArrayList<>();
            List<Path> b = new ArrayList<>();
            List<Path> a2 = new ArrayList<>();
            for (int r = 1; r <= rounds; r++) {
                a.add(BenchRun.run(profile, work.resolve("try" + t + "-A-" + r), console, false).folder());
                System.setProperty(BenchDb.DECORATOR_PROPERTY, SlowedStore.class.getName());
                try {
                    b.add(BenchRun.run(profile, work.resolve("try" + t + "-B-slowed-" + r), console, false).folder());
                } finally {
                    System.clearProperty(BenchDb.DECORATOR_PROPERTY);
                }
                a2.add(BenchRun.run(profile, work.resolve("try" + t + "-A2-" + r), console, false).folder());
            }
            Gate.Outcome aa = Gate.compare(merge(a), merge(a2), stats, true);
            Gate.Outcome slow = Gate.compare(merge(a), merge(b), stats, true);
            Gate.Outcome aaRaw = Gate.compare(merge(a), merge(a2), stats, false);
            Gate.Outcome slowRaw = Gate.compare(merge(a), merge(b), stats, false);
            aaRegressed += aa.regressed() ? 1 : 0;
            slowCaught += slow.regressed() ? 1 : 0;
            aaRegressedRaw += aaRaw.regressed() ? 1 : 0;
            slowCaughtRaw += slowRaw.regressed() ? 1 : 0;
            lines.add(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s | %s | %s | %s |", t, machine(aa), aaMark(aa), verdicts(aa),
                    slowMark(slow), verdicts(slow), aaMark(aaRaw) + ", " + verdicts(aaRaw), slowMark(slowRaw) + ", " + verdicts(slowRaw)));
            console.printf(Locale.ROOT, "try %d: by reference A/A %s, slowed %s; raw A/A %s, slowed %s%n", t, aaMark(aa),
                    slowMark(slow), aaMark(aaRaw), slowMark(slowRaw));
        }
        StringBuilder md = new StringBuilder();
        md.append("# Gate proof: A/A and a 25% slowed store\n\n");
        md.append(String.format(Locale.ROOT, "Started %s, finished %s. %d tries; each try builds three runs A, B (every store "
                        + "operation followed by a spin of 25%% of its own time) and A' (same code as A) from %d interleaved "
                        + "rounds of one fork each (A B A' A B A' ...). Benchmark: ClaimBenchmark.hotJob %s, WAL_NORMAL, "
                        + "1 thread, per fork %d x %d ms warmup and %d x %d ms measurement, so %d iterations per run. "
                        + "Gate defaults: each iteration's score divided by the machine reference measured around it "
                        + "(MachineReference, %d ms before and after), 10%% threshold, 95%% bootstrap interval of the ratio of "
                        + "medians, Mann-Whitney U p < 0.05; the raw columns give the gate's verdict on the same runs "
                        + "without the reference (`compare --raw`). Machine: %s, %d cores; load average (1 min) %s at the start and %s at the end. "
                        + "SQLite files on %s (%s).%n%n",
                started, Instant.now(), tries, rounds, strategies, warmups, millis, iterations, millis, rounds * iterations,
                profile.referenceMillis(),
                environment.get("cpuModel"), Runtime.getRuntime().availableProcessors(), loadAtStart,
                loadAverage(), environment.get("databaseFileSystem"), environment.get("databaseDirectory")));
        md.append(String.format(Locale.ROOT, "**By the machine reference (the gate's default): A/A %d of %d tries not regressed, "
                        + "slowed store %d of %d tries regressed.**%n%n", tries - aaRegressed, tries, slowCaught, tries));
        md.append(String.format(Locale.ROOT, "Raw scores (`--raw`): A/A %d of %d tries not regressed, slowed store %d of %d "
                        + "tries regressed.%n%n", tries - aaRegressedRaw, tries, slowCaughtRaw, tries));
        md.append("`machine`: the reference's median in A' over A, how much the machine itself moved between the two runs.\n\n");
        md.append("| try | machine A'/A | A vs A' | A/A speed ratio [95% CI] verdict | A vs slowed | slowed speed ratio [95% CI] "
                + "verdict | raw: A vs A' | raw: A vs slowed |\n");
        md.append("|---:|---:|---|---|---|---|---|---|\n");
        lines.forEach(l -> md.append(l).append('\n'));
        if (summary.toAbsolutePath().getParent() != null) {
            Files.createDirectories(summary.toAbsolutePath().getParent());
        }
        Files.writeString(summary, md.toString());
        console.println(md);
    }

    /** The 1-minute load average, which says whether the machine was quiet (it counts idle-priority tasks too). */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** One run from several folders: the rows of the same key get the iterations of all of them. */
    static List<BenchResults.Row> merge(List<Path> folders) {
        Map<ForkKey, BenchResults.Row> merged = new LinkedHashMap<>();
        for (Path folder : folders) {
            for (BenchResults.Row r : BenchResults.load(folder)) {
                merged.merge(r.key(), r, (x, y) -> new BenchResults.Row(x.key(), x.unit(), x.score(), x.error(),
                        DoubleStream.concat(Arrays.stream(x.samples()), Arrays.stream(y.samples())).toArray(), x.percentiles(),
                        x.tally(), DoubleStream.concat(Arrays.stream(x.reference()), Arrays.stream(y.reference())).toArray()));
            }
        }
        // The score shown is the mean of all merged iterations, as JMH would report one run of all forks.
        return merged.values().stream().map(x -> new BenchResults.Row(x.key(), x.unit(),
                Arrays.stream(x.samples()).average().orElse(Double.NaN), Double.NaN, x.samples(), x.percentiles(), x.tally(),
                x.reference())).toList();
    }

    private static String aaMark(Gate.Outcome o) {
        return o.regressed() ? "**regressed**" : "passed";
    }

    private static String slowMark(Gate.Outcome o) {
        return o.regressed() ? "regressed" : "**missed**";
    }

    private static String machine(Gate.Outcome o) {
        return o.lines().isEmpty() || !o.lines().get(0).byReference() ? "-"
                : String.format(Locale.ROOT, "%.3f", o.lines().get(0).machine());
    }

    private static String verdicts(Gate.Outcome o) {
        StringBuilder s = new StringBuilder();
        for (Gate.Line l : o.lines()) {
            GateStatistics.Comparison c = l.comparison();
            s.append(s.length() == 0 ? "" : "; ").append(String.format(Locale.ROOT, "%.3f [%.3f, %.3f] %s", c.ratio(),
                    c.low(), c.high(), c.verdict().name().toLowerCase(Locale.ROOT)));
        }
        return s.toString();
    }
}
