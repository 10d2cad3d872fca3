package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Judges the runs a {@link GateProof} left behind once more with each {@link GateStatistics.Test}
 * of the paired rows, not a unit test: Mann-Whitney U per row and Welch's t-test on the logarithms
 * of the per-group ratios, both with Holm over all rows and the gate's other two conditions (ratio
 * below 0.9, bootstrap interval wholly below 1). No run is measured again, so the columns differ
 * only by the test. Run from the repository root:
 * <pre>
 * java -cp bench/target/benchmarks.jar:bench/target/test-classes dev.leaselab.bench.GateRejudge /tmp/gate-proof/runs
 * </pre>
 * The work folder holds A0, B1-STRATEGY, A1, B2-STRATEGY, A2, ...; prints a Markdown table.
 */
public final class GateRejudge {

    private GateRejudge() {}

    /** The tests judged, in their column order. */
    private static final GateStatistics.Test[] TESTS = GateStatistics.Test.values();

    public static void main(String[] args) throws Exception {
        Path work = Path.of(args[0]);
        GateStatistics stats = GateStatistics.defaults();
        StringBuilder md = new StringBuilder();
        int[][] tally = new int[TESTS.length][5];
        List<String> lines = new ArrayList<>();
        for (int t = 1; ; t++) {
            Path before = work.resolve("A" + (t - 1));
            Path after = work.resolve("A" + t);
            Path slowedRun = find(work, "B" + t + "-");
            if (slowedRun == null || !Files.isRegularFile(after.resolve(BenchResults.TALLY))) {
                break;
            }
            LockingStrategy slowed = LockingStrategy.valueOf(slowedRun.getFileName().toString().substring(("B" + t + "-").length()));
            StringBuilder row = new StringBuilder("| " + t + " | " + slowed);
            for (GateStatistics.Test test : TESTS) {
                GateStatistics withTest = stats.withPairedTest(test);
                List<GateProof.Judged> aa = GateProof.judge(GateProof.Method.PAIRED, before, after, withTest);
                List<GateProof.Judged> ab = GateProof.judge(GateProof.Method.PAIRED, before, slowedRun, withTest);
                row.append(" | ").append(GateProof.count(tally[test.ordinal()], aa, ab, slowed, false));
            }
            lines.add(row.append(" |").toString());
        }
        int tries = lines.size();
        md.append("| test | A/A: tries with no row flagged | slowed strategy flagged | tries where another strategy was flagged "
                + "| A/A rows flagged (per-row rate) |\n|---|---:|---:|---:|---:|\n");
        for (GateStatistics.Test test : TESTS) {
            int[] c = tally[test.ordinal()];
            md.append(String.format(Locale.ROOT, "| %s | %d of %d | %d of %d | %d of %d | %d of %d (%.1f%%) |%n",
                    test.name().toLowerCase(Locale.ROOT).replace('_', ' '), c[0], tries, c[1], tries, c[2], tries, c[3], c[4],
                    100.0 * c[3] / Math.max(1, c[4])));
        }
        md.append("\n| try | slowed | Mann-Whitney (the gate) | Welch t on logs |\n|---:|---|---|---|\n");
        lines.forEach(l -> md.append(l).append('\n'));
        System.out.print(md);
    }

    private static Path find(Path work, String prefix) throws java.io.IOException {
        try (Stream<Path> s = Files.list(work)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).findFirst().orElse(null);
        }
    }
}
