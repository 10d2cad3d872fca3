package dev.leaselab.bench;

import dev.leaselab.bench.GateStatistics.Comparison;
import dev.leaselab.bench.GateStatistics.Verdict;
import dev.leaselab.bench.PairedClaimBenchmark.Slice;
import dev.leaselab.lease.LockingStrategy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The gate's proof on real runs of the {@code gate} profile, not a unit test (one gate run takes
 * minutes). The runs alternate A, B1, A, B2, A, ...: every A is the same code; every B has one
 * strategy's store slowed by 25% ({@link SlowedStore} with {@code leaselab.bench.decorator.only}),
 * a different strategy each time. Try t compares the A before B_t with the A after it (A/A: no row
 * may be flagged) and with B_t (the slowed strategy's rows must be flagged, and no other row). So
 * each A serves two tries, and a try costs two gate runs instead of three.
 *
 * <p>Every try is judged two ways on the same runs:
 * <ul>
 *   <li><b>paired</b> (the gate): the strategy over its floor, per group of slices ({@link Gate});
 *   <li><b>raw</b>: each claim slice's won/s as it is, without its floor.
 * </ul>
 * Both go through the same statistics and Holm's correction over the same 24 rows. (The earlier
 * proof also judged each slice by {@link MachineReference}; it did no better than the paired
 * method there and spread more between runs, so the paired step no longer measures it.)
 * Run from the repository root after {@code mvn -B -pl bench -am package -DskipTests} and
 * {@code mvn -B -pl bench test-compile}:
 * <pre>
 * java -cp bench/target/benchmarks.jar:bench/target/test-classes dev.leaselab.bench.GateProof 20 /tmp/gate-proof results/gate-proof.md
 * </pre>
 * Arguments: tries, the work folder for the run folders, the summary file.
 */
public final class GateProof {

    private GateProof() {}

    /** How a try's rows are judged. */
    enum Method { PAIRED, RAW }

    public static void main(String[] args) throws Exception {
        int tries = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        Path work = Path.of(args.length > 1 ? args[1] : "/tmp/gate-proof");
        Path summary = Path.of(args.length > 2 ? args[2] : "gate-proof.md");
        Profile profile = Profile.named("gate");
        List<LockingStrategy> strategies = profile.steps().get(0).strategies();
        GateStatistics stats = GateStatistics.defaults();
        java.io.PrintWriter console = new java.io.PrintWriter(System.out, true);
        Instant started = Instant.now();
        String loadAtStart = loadAverage();
        Map<String, Object> environment = Environment.describe();

        Path previousA = BenchRun.run(profile, work.resolve("A0"), console, false).folder();
        Map<Method, int[]> tally = new LinkedHashMap<>();
        for (Method m : Method.values()) {
            tally.put(m, new int[5]);  // A/A clean, slowed caught, another flagged, A/A rows flagged, A/A rows
        }
        List<String> lines = new ArrayList<>();
        List<Double> runSeconds = new ArrayList<>();
        for (int t = 1; t <= tries; t++) {
            LockingStrategy slowed = strategies.get((t - 1) % strategies.size());
            System.setProperty(BenchDb.DECORATOR_PROPERTY, SlowedStore.class.getName());
            System.setProperty(BenchDb.DECORATOR_ONLY_PROPERTY, slowed.name());
            Path b;
            Instant runStart = Instant.now();
            try {
                b = BenchRun.run(profile, work.resolve("B" + t + "-" + slowed), console, false).folder();
            } finally {
                System.clearProperty(BenchDb.DECORATOR_PROPERTY);
                System.clearProperty(BenchDb.DECORATOR_ONLY_PROPERTY);
            }
            runSeconds.add(Duration.between(runStart, Instant.now()).toMillis() / 1000.0);
            runStart = Instant.now();
            Path a = BenchRun.run(profile, work.resolve("A" + t), console, false).folder();
            runSeconds.add(Duration.between(runStart, Instant.now()).toMillis() / 1000.0);
            StringBuilder row = new StringBuilder("| " + t + " | " + slowed);
            for (Method m : Method.values()) {
                List<Judged> aa = judge(m, previousA, a, stats);
                List<Judged> ab = judge(m, previousA, b, stats);
                row.append(" | ").append(count(tally.get(m), aa, ab, slowed, true));
            }
            lines.add(row.append(" |").toString());
            console.println(lines.get(lines.size() - 1));
            previousA = a;
            write(summary, header(started, tries, profile, environment, loadAtStart, runSeconds), tally, tries, t, lines);
        }
    }

    /**
     * Adds one try's judgements to {@code c} (A/A clean, slowed caught, another flagged, A/A rows
     * flagged, A/A rows) and returns its table cell, with the slowed rows' ratios if {@code ratios}.
     */
    static String count(int[] c, List<Judged> aa, List<Judged> ab, LockingStrategy slowed, boolean ratios) {
        long aaFlagged = aa.stream().filter(j -> j.verdict() == Verdict.REGRESSED || j.verdict() == Verdict.IMPROVED).count();
        boolean caught = ab.stream().anyMatch(j -> j.strategy() == slowed && j.verdict() == Verdict.REGRESSED);
        long others = ab.stream().filter(j -> j.strategy() != slowed && j.verdict() == Verdict.REGRESSED).count();
        c[0] += aaFlagged == 0 ? 1 : 0;
        c[1] += caught ? 1 : 0;
        c[2] += others > 0 ? 1 : 0;
        c[3] += (int) aaFlagged;
        c[4] += aa.size();
        String detail = ratios ? " " + slowedRows(ab, slowed) : "";
        return String.format(Locale.ROOT, "%s; %s%s", aaFlagged == 0 ? "A/A clean" : "**A/A " + aaFlagged + " flagged**",
                (caught ? "slowed caught" : "**slowed missed**") + detail, others > 0 ? ", **" + others + " other flagged**" : "");
    }

    private static String slowedRows(List<Judged> judged, LockingStrategy slowed) {
        StringBuilder s = new StringBuilder("(");
        judged.stream().filter(j -> j.strategy() == slowed).forEach(j -> s.append(s.length() == 1 ? "" : ", ")
                .append(String.format(Locale.ROOT, "%.2f", j.ratio())));
        return s.append(")").toString();
    }

    /** One row's verdict under one method. */
    record Judged(LockingStrategy strategy, String row, double ratio, Verdict verdict) {}

    /** The rows of a baseline and a current gate run, judged by {@code method} with Holm over all rows. */
    static List<Judged> judge(Method method, Path baseline, Path current, GateStatistics stats) {
        Gate.Run base = Gate.Run.load(baseline);
        Gate.Run cur = Gate.Run.load(current);
        if (method == Method.PAIRED) {
            return Gate.compare(base, cur, stats, true).paired().stream().map(l -> new Judged(l.key().strategy(), l.label(),
                    l.comparison().ratio(), l.comparison().verdict())).toList();
        }
        List<String> names = new ArrayList<>();
        List<LockingStrategy> owners = new ArrayList<>();
        List<Comparison> comparisons = new ArrayList<>();
        base.paired().forEach((key, b) -> {
            PairedRatios.Row c = cur.paired().get(key);
            if (c == null) {
                return;
            }
            for (Slice slice : List.of(Slice.CLAIM_ONE, Slice.CLAIM_ALL)) {
                names.add(key.strategy() + " " + key.storage() + " " + slice);
                owners.add(key.strategy());
                comparisons.add(stats.compare(rates(b, slice), rates(c, slice), true));
            }
        });
        double[] p = comparisons.stream().mapToDouble(Comparison::pValue).toArray();
        boolean[] significant = Holm.significant(p, 1 - stats.confidence());
        List<Judged> out = new ArrayList<>();
        for (int i = 0; i < comparisons.size(); i++) {
            Comparison c = comparisons.get(i);
            Verdict v = (c.verdict() == Verdict.REGRESSED || c.verdict() == Verdict.IMPROVED) && !significant[i]
                    ? Verdict.INCONCLUSIVE : c.verdict();
            out.add(new Judged(owners.get(i), names.get(i), c.ratio(), v));
        }
        return out;
    }

    /** The claim slice's rate in every group. */
    private static double[] rates(PairedRatios.Row row, Slice slice) {
        return row.groups().stream().mapToDouble(g -> g.slices().get(slice).rate()).filter(Double::isFinite).toArray();
    }

    private static String header(Instant started, int tries, Profile profile, Map<String, Object> environment,
                                 String loadAtStart, List<Double> runSeconds) {
        double mean = runSeconds.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        double max = runSeconds.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return String.format(Locale.ROOT, "Started %s, last written %s, %d tries planned. Profile `gate`: %s. Each gate run "
                        + "took %.0f s on average (longest %.0f s). Machine: %s, %d cores; load average (1 min) %s at the "
                        + "start and %s at the last write. SQLite files on %s (%s); busy wait %s. Gate settings: 10%% noise threshold, "
                        + "95%% bootstrap interval, Mann-Whitney U p-values corrected by Holm over all %d rows at a "
                        + "family-wise 5%%.%n%n",
                started, Instant.now(), tries, profile.steps().get(0).describe().replaceAll(" +", " "), mean, max,
                environment.get("cpuModel"), Runtime.getRuntime().availableProcessors(), loadAtStart, loadAverage(),
                environment.get("databaseFileSystem"), environment.get("databaseDirectory"), profile.busyWait(),
                profile.steps().get(0).combinations() * Gate.GATED.size());
    }

    private static void write(Path summary, String header, Map<Method, int[]> tally, int tries, int done, List<String> lines)
            throws java.io.IOException {
        StringBuilder md = new StringBuilder("# Gate proof: A/A and one strategy slowed by 25%\n\n").append(header);
        md.append(String.format(Locale.ROOT, "%d of %d tries done.%n%n", done, tries));
        md.append("| method | A/A: tries with no row flagged | slowed strategy flagged | tries where another strategy was flagged "
                + "| A/A rows flagged (per-row rate) |\n|---|---:|---:|---:|---:|\n");
        for (Map.Entry<Method, int[]> e : tally.entrySet()) {
            int[] c = e.getValue();
            md.append(String.format(Locale.ROOT, "| %s | %d of %d | %d of %d | %d of %d | %d of %d (%.1f%%) |%n",
                    e.getKey().name().toLowerCase(Locale.ROOT), c[0], done, c[1], done, c[2], done, c[3], c[4],
                    100.0 * c[3] / Math.max(1, c[4])));
        }
        md.append("\nPer try (the slowed strategy's rows: current over baseline; each cell: paired, raw):\n\n");
        md.append("| try | slowed | paired | raw |\n|---:|---|---|---|\n");
        lines.forEach(l -> md.append(l).append('\n'));
        if (summary.toAbsolutePath().getParent() != null) {
            Files.createDirectories(summary.toAbsolutePath().getParent());
        }
        Files.writeString(summary, md.toString());
    }

    /** The 1-minute load average, which says whether the machine was quiet. */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
