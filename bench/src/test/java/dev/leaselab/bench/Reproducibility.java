package dev.leaselab.bench;

import dev.leaselab.bench.PairedRatios.Measure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How far the paired headline ratios move from run to run, not a unit test: it reads several run
 * folders of one profile and writes, for every strategy, storage and ratio (x floor at one thread,
 * at all threads, all threads / one thread), the median over the runs, the smallest and largest,
 * the largest distance from the median in percent, and the distance that 90% of the runs stay
 * within (with many runs the largest grows with their number; this one does not). Run from the
 * repository root:
 * <pre>
 * java -cp bench/target/benchmarks.jar:bench/target/test-classes dev.leaselab.bench.Reproducibility \
 *     results/reproducibility.md 10 results/a1 results/a2 ...
 * </pre>
 * Arguments: the output file, the target in percent, the run folders.
 */
public final class Reproducibility {

    private Reproducibility() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        double target = Double.parseDouble(args[1]);
        List<Path> runs = Arrays.stream(args).skip(2).map(Path::of).toList();
        Map<ForkKey, List<PairedRatios.Row>> byKey = new LinkedHashMap<>();
        for (Path run : runs) {
            PairedRatios.read(run.resolve(BenchResults.TALLY)).forEach((k, r) -> byKey.computeIfAbsent(k, x -> new ArrayList<>()).add(r));
        }
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "%d runs: %s.%n%n", runs.size(), String.join(", ",
                runs.stream().map(p -> "`" + p.getFileName() + "`").toList())));
        md.append("| storage | strategy | ratio | runs | median | min | max | farthest from the median | 90% of runs within | within ±")
                .append(fmt(target)).append("% |\n|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
        int rows = 0;
        int within = 0;
        double worst = 0;
        for (Map.Entry<ForkKey, List<PairedRatios.Row>> e : byKey.entrySet().stream()
                .sorted(Map.Entry.comparingByKey(ForkKey.REPORT_ORDER)).toList()) {
            for (Measure m : Measure.values()) {
                double[] medians = e.getValue().stream().mapToDouble(r -> r.estimate(m).median()).filter(Double::isFinite).toArray();
                if (medians.length == 0) {
                    continue;
                }
                double median = GateStatistics.median(medians);
                double min = Arrays.stream(medians).min().orElseThrow();
                double max = Arrays.stream(medians).max().orElseThrow();
                double far = 100 * Math.max(max / median - 1, 1 - min / median);
                double[] distances = Arrays.stream(medians).map(v -> 100 * Math.abs(v / median - 1)).sorted().toArray();
                double p90 = GateStatistics.percentile(distances, 0.9);
                boolean ok = far <= target;
                rows++;
                within += ok ? 1 : 0;
                worst = Math.max(worst, far);
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %.3f | %.3f | %.3f | %.1f%% | %.1f%% | %s |%n",
                        e.getKey().storage(), e.getKey().strategy(), m.label.replace("all threads", e.getKey().threads() + " threads"),
                        medians.length, median, min, max, far, p90, ok ? "yes" : "**no**"));
            }
        }
        md.append(String.format(Locale.ROOT, "%n%d of %d ratios within ±%s%% of their median over the runs; the farthest "
                + "was %.1f%% away.%n", within, rows, fmt(target), worst));
        Files.writeString(out, md.toString());
        System.out.print(md.substring(md.lastIndexOf("\n", md.length() - 2) + 1));
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
