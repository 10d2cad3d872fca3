package dev.leaselab.bench;

import dev.leaselab.bench.GateStatistics.Comparison;
import dev.leaselab.bench.GateStatistics.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The regression gate over two runs: matches rows by benchmark, mode, parameters and thread
 * count, compares the iteration scores of each pair with {@link GateStatistics}, and renders a
 * Markdown table fit for a pull-request comment.
 *
 * <p>When both rows carry {@link MachineReference}'s measurement around each iteration, each
 * iteration's score is first divided by it (a time per operation multiplied by it), so that the
 * verdict compares the store against the machine's speed of the moment rather than two moments of
 * a machine whose SQLite speed switches by 30%. The {@code machine} column shows how much the
 * reference itself moved between the runs: a change of SQLite (or of the machine) moves it, and
 * with it the floor rows' raw scores. {@code byReference = false} compares the raw scores.
 */
final class Gate {

    /**
     * One compared row.
     *
     * @param machine the current run's median reference over the baseline's, or NaN when the
     *     comparison is of raw scores
     */
    record Line(ForkKey key, String unit, double baseline, double current, int baselineN, int currentN,
                String failures, double machine, Comparison comparison) {

        boolean byReference() {
            return !Double.isNaN(machine);
        }
    }

    /**
     * The gate's outcome.
     *
     * @param lines the compared rows
     * @param geomean the geometric mean over all compared rows
     * @param onlyInBaseline forks measured in the baseline but not in the current run
     * @param onlyInCurrent forks measured only in the current run
     */
    record Outcome(List<Line> lines, Comparison geomean, List<ForkKey> onlyInBaseline, List<ForkKey> onlyInCurrent,
                   double threshold) {

        /**
         * Whether any row regressed: the gate fails. The geomean's verdict is shown but does not
         * fail the gate: it has no rank test, and a drift of the machine's load between the two
         * runs moves every row the same way, which the geomean would add up into a false alarm.
         */
        boolean regressed() {
            return lines.stream().anyMatch(l -> l.comparison().verdict() == Verdict.REGRESSED);
        }

        long count(Verdict v) {
            return lines.stream().filter(l -> l.comparison().verdict() == v).count();
        }
    }

    private Gate() {}

    /** Compares by the machine reference wherever both rows have one. */
    static Outcome compare(List<BenchResults.Row> baseline, List<BenchResults.Row> current, GateStatistics stats) {
        return compare(baseline, current, stats, true);
    }

    static Outcome compare(List<BenchResults.Row> baseline, List<BenchResults.Row> current, GateStatistics stats,
                           boolean byReference) {
        Map<ForkKey, BenchResults.Row> base = index(baseline);
        Map<ForkKey, BenchResults.Row> cur = index(current);
        List<Line> lines = new ArrayList<>();
        List<ForkKey> onlyBase = new ArrayList<>();
        List<ForkKey> onlyCur = new ArrayList<>();
        for (Map.Entry<ForkKey, BenchResults.Row> e : base.entrySet()) {
            BenchResults.Row c = cur.get(e.getKey());
            if (c == null) {
                onlyBase.add(e.getKey());
                continue;
            }
            BenchResults.Row b = e.getValue();
            if (!b.unit().equals(c.unit())) {
                throw new IllegalArgumentException("the unit of " + e.getKey().label() + " differs: " + b.unit()
                        + " in the baseline, " + c.unit() + " now (run both with the same -tu)");
            }
            boolean higherIsBetter = GateStatistics.higherIsBetter(b.unit());
            boolean normalize = byReference && b.hasReference() && c.hasReference();
            Comparison cmp = normalize
                    ? stats.compare(perReference(b, higherIsBetter), perReference(c, higherIsBetter), higherIsBetter)
                    : stats.compare(b.samples(), c.samples(), higherIsBetter);
            double machine = normalize ? GateStatistics.median(c.reference()) / GateStatistics.median(b.reference()) : Double.NaN;
            lines.add(new Line(e.getKey(), b.unit(), b.score(), c.score(), b.samples().length, c.samples().length,
                    failed(b) + "/" + failed(c), machine, cmp));
        }
        for (ForkKey k : cur.keySet()) {
            if (!base.containsKey(k)) {
                onlyCur.add(k);
            }
        }
        Comparison geomean = stats.geomean(lines.stream().map(Line::comparison).toList());
        return new Outcome(lines, geomean, onlyBase, onlyCur, stats.threshold());
    }

    /**
     * Each iteration's score against the reference around it: operations per reference update for a
     * rate, reference updates per operation for a time, so the direction of the unit is kept.
     */
    static double[] perReference(BenchResults.Row r, boolean higherIsBetter) {
        double[] out = new double[r.samples().length];
        for (int i = 0; i < out.length; i++) {
            out[i] = higherIsBetter ? r.samples()[i] / r.reference()[i] : r.samples()[i] * r.reference()[i];
        }
        return out;
    }

    /**
     * JMH's score counts every call, failed ones too, so a change that makes operations fail fast
     * can look faster: the gate shows the failures of both runs next to the ratio.
     */
    private static String failed(BenchResults.Row r) {
        return r.tally() == null ? "?" : String.valueOf(r.tally().failed());
    }

    private static Map<ForkKey, BenchResults.Row> index(List<BenchResults.Row> rows) {
        Map<ForkKey, BenchResults.Row> map = new LinkedHashMap<>();
        for (BenchResults.Row r : rows) {
            if (map.put(r.key(), r) != null) {
                throw new IllegalArgumentException("the run holds " + r.key().label() + " twice");
            }
        }
        return map;
    }

    /** The outcome as Markdown: a summary line, one table row per comparison, the geomean. */
    static String markdown(Outcome o, String baselineName, String currentName) {
        StringBuilder md = new StringBuilder();
        md.append("## Benchmark gate: ").append(o.regressed() ? "REGRESSED" : "passed").append("\n\n");
        md.append(String.format(Locale.ROOT,
                "Baseline `%s`, current `%s`. Speed ratio > 1 is faster (direction from the unit); "
                        + "95%% bootstrap interval of the ratio of medians of the iteration scores, each divided by the "
                        + "machine reference measured around it where both runs have one (basis `÷ ref`; `machine` is "
                        + "the reference's own ratio, current over baseline), else of the raw scores (basis `raw`); "
                        + "Mann-Whitney U p; n = iterations per side; failed = exceptions in baseline/current "
                        + "(JMH's score counts them, the verdict does not look at them); noise threshold %.0f%%. %d regressed, %d improved, %d unchanged, "
                        + "%d inconclusive.%n%n",
                baselineName, currentName, o.threshold() * 100, o.count(Verdict.REGRESSED), o.count(Verdict.IMPROVED),
                o.count(Verdict.UNCHANGED), o.count(Verdict.INCONCLUSIVE)));
        md.append("| benchmark | unit | baseline | current | basis | machine | speed ratio | 95% CI | p (U test) | n | failed "
                + "| verdict |\n");
        md.append("|---|---|---:|---:|---|---:|---:|---|---:|---|---|---|\n");
        for (Line l : o.lines()) {
            Comparison c = l.comparison();
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %.3f | [%.3f, %.3f] | %s | %s | %s | %s |%n",
                    l.key().label(), l.unit(), Report.number(l.baseline()), Report.number(l.current()),
                    l.byReference() ? "÷ ref" : "raw",
                    l.byReference() ? String.format(Locale.ROOT, "%.3f", l.machine()) : "-", c.ratio(), c.low(),
                    c.high(), Double.isNaN(c.pValue()) ? "-" : String.format(Locale.ROOT, "%.3g", c.pValue()),
                    l.baselineN() + "/" + l.currentN(), l.failures(), mark(c.verdict())));
        }
        Comparison g = o.geomean();
        md.append(String.format(Locale.ROOT, "| **geomean** (%d rows) | | | | | | **%.3f** | [%.3f, %.3f] | | | | %s |%n",
                o.lines().size(), g.ratio(), g.low(), g.high(), mark(g.verdict())));
        if (!o.onlyInBaseline().isEmpty()) {
            md.append("\nOnly in the baseline (not compared): ").append(labels(o.onlyInBaseline())).append('\n');
        }
        if (!o.onlyInCurrent().isEmpty()) {
            md.append("\nOnly in the current run (not compared): ").append(labels(o.onlyInCurrent())).append('\n');
        }
        return md.toString();
    }

    private static String labels(List<ForkKey> keys) {
        return String.join("; ", keys.stream().map(ForkKey::label).toList());
    }

    private static String mark(Verdict v) {
        return switch (v) {
            case REGRESSED -> "**regressed**";
            case IMPROVED -> "improved";
            case UNCHANGED -> "unchanged";
            case INCONCLUSIVE -> "inconclusive";
        };
    }
}
