package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.leaselab.bench.GateStatistics.Comparison;
import dev.leaselab.bench.GateStatistics.Verdict;
import dev.leaselab.bench.PairedRatios.Measure;
import java.nio.file.Files;
import java.nio.file.Path;
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
 *
 * <p>Rows of {@link PairedClaimBenchmark} are compared by their paired ratios instead (x floor at
 * one thread and at all threads, {@link PairedRatios}): the per-group ratios of the baseline
 * against those of the current run. Their JMH score, which mixes the slices, is not compared.
 *
 * <p>A CI job fails on one red row, so what must be controlled is the chance that any row of a run
 * turns red when nothing changed: every row's rank-test p-value goes through Holm's correction
 * ({@link Holm}) at the family-wise rate {@code 1 - confidence}, and a row is {@code REGRESSED}
 * (or {@code IMPROVED}) only if it is significant after the correction, its ratio is beyond the
 * noise threshold and its interval excludes 1. The verdict prints the rate it was calibrated to.
 *
 * <p>Two runs are compared only if they were measured alike ({@link #differences}): the same
 * profile and settings (forks, iterations, steps and so thread counts, busy timeout) and the same
 * SQLite and PostgreSQL versions; otherwise the comparison is refused, naming what differs.
 */
final class Gate {

    /**
     * One run as the gate reads it.
     *
     * @param rows JMH's rows, with their tallies
     * @param paired the paired rows, from the tally
     * @param environment its environment.json, or null for a bare JMH JSON file
     */
    record Run(List<BenchResults.Row> rows, Map<ForkKey, PairedRatios.Row> paired, JsonNode environment) {

        /**
         * Several runs of one profile as one baseline: each paired row holds the groups of every run,
         * so that one run whose row happened to shift weighs a third (of three runs), not all. JMH
         * rows and the environment are the first run's.
         *
         * @throws IllegalArgumentException if the runs were not measured alike
         */
        static Run merged(List<Run> runs) {
            if (runs.isEmpty()) {
                throw new IllegalArgumentException("a baseline needs at least one run");
            }
            Run first = runs.get(0);
            Map<ForkKey, List<PairedRatios.Group>> groups = new LinkedHashMap<>();
            for (Run r : runs) {
                List<String> differences = r == first ? List.of() : differences(first.environment(), r.environment());
                if (!differences.isEmpty()) {
                    throw new IllegalArgumentException("the baseline's runs were not measured alike: " + differences);
                }
                r.paired().forEach((key, row) -> groups.computeIfAbsent(key, k -> new ArrayList<>()).addAll(row.groups()));
            }
            Map<ForkKey, PairedRatios.Row> paired = new LinkedHashMap<>();
            groups.forEach((key, g) -> paired.put(key, new PairedRatios.Row(g)));
            return new Run(first.rows(), paired, first.environment());
        }

        /** Reads a results folder, or a JMH JSON file (which has no paired rows and no environment). */
        static Run load(Path path) {
            List<BenchResults.Row> rows = BenchResults.load(path);
            if (!Files.isDirectory(path)) {
                return new Run(rows, Map.of(), null);
            }
            Path env = path.resolve("environment.json");
            return new Run(rows, PairedRatios.read(path.resolve(BenchResults.TALLY)),
                    Files.isRegularFile(env) ? Json.read(env) : null);
        }
    }

    /** The settings of environment.json that two compared runs must share: what was measured, and how. */
    static final List<String> SETTINGS = List.of("profile", "forks", "warmupIterations", "warmupMillis",
            "measurementIterations", "measurementMillis", "busyTimeoutMillis", "busyWait", "pairedSyncIterations", "steps");

    /** What runs from before the busy wait was recorded used: SQLite's own busy handler. */
    static final String BUSY_WAIT_BEFORE_RECORDED = "SQLITE_SLEEPS";

    /** How runs from before it was recorded ran the paired slices: in JMH's synchronised iterations. */
    static final boolean PAIRED_SYNC_BEFORE_RECORDED = true;

    /**
     * What makes a confirmation run incomparable with the run it confirms: as {@link #differences},
     * except the steps, which a confirmation narrows to the screened strategies and storages.
     */
    static List<String> confirmationDifferences(JsonNode run, JsonNode confirmation) {
        return differences(run, confirmation).stream().filter(d -> !d.startsWith("settings.steps:")).toList();
    }

    /**
     * What makes two runs incomparable: each difference as text, empty if they were measured alike.
     * The profile's settings, the steps (and so thread counts and storages), and the versions of
     * SQLite and PostgreSQL; a run without an environment cannot be checked and is said so.
     */
    static List<String> differences(JsonNode baseline, JsonNode current) {
        List<String> out = new ArrayList<>();
        if (baseline == null || current == null) {
            out.add("no environment.json in " + (baseline == null ? "the baseline" : "the current run")
                    + ": cannot check that both were measured alike");
            return out;
        }
        out.addAll(settingsDifferences(baseline, current));
        for (String key : List.of("sqliteVersion", "sqliteJdbcVersion")) {
            if (!baseline.path(key).equals(current.path(key))) {
                out.add(key + ": " + baseline.path(key) + " in the baseline, " + current.path(key) + " now");
            }
        }
        JsonNode pgA = baseline.path("postgresql").path("serverVersion");
        JsonNode pgB = current.path("postgresql").path("serverVersion");
        if (!pgA.equals(pgB)) {
            out.add("postgresql.serverVersion: " + pgA + " in the baseline, " + pgB + " now");
        }
        return out;
    }

    /** The differences of {@link #differences} in the profile's settings only (what a planned run can be checked for). */
    static List<String> settingsDifferences(JsonNode baseline, JsonNode current) {
        List<String> out = new ArrayList<>();
        for (String key : SETTINGS) {
            JsonNode a = recorded(baseline, key);
            JsonNode b = recorded(current, key);
            if (!a.equals(b)) {
                out.add("settings." + key + ": " + a + " in the baseline, " + b + " now");
            }
        }
        return out;
    }

    private static JsonNode recorded(JsonNode environment, String key) {
        JsonNode value = environment.path("settings").path(key);
        if (!value.isMissingNode()) {
            return value;
        }
        return switch (key) {
            case "busyWait" -> TextNode.valueOf(BUSY_WAIT_BEFORE_RECORDED);
            case "pairedSyncIterations" -> BooleanNode.valueOf(PAIRED_SYNC_BEFORE_RECORDED);
            default -> value;
        };
    }

    /**
     * One compared paired row: a strategy on a storage, by one of its paired ratios.
     *
     * @param baseline the baseline's median ratio and interval
     * @param current the current run's
     */
    record PairedLine(ForkKey key, Measure measure, PairedRatios.Estimate baseline, PairedRatios.Estimate current,
                      String failures, Comparison comparison) {

        /** Whether this row's own test called a change, before the family was accounted for: a row to confirm. */
        boolean screened() {
            return comparison.verdict() == Verdict.REGRESSED || comparison.verdict() == Verdict.IMPROVED;
        }

        String label() {
            return key.strategy() + " on " + key.storage() + ", " + switch (measure) {
                case X_FLOOR_ONE -> "x floor at 1 thread";
                case X_FLOOR_ALL -> "x floor at " + key.threads() + " threads";
                case SCALING -> key.threads() + " / 1 threads";
                case SCALING_OVER_FLOOR -> key.threads() + " / 1 threads over the floor's";
            };
        }
    }

    /** The paired ratios the gate judges: the strategy against its floor, at one thread and at all. */
    static final List<Measure> GATED = List.of(Measure.X_FLOOR_ONE, Measure.X_FLOOR_ALL);

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
    record Outcome(List<Line> lines, List<PairedLine> paired, Comparison geomean, List<ForkKey> onlyInBaseline,
                   List<ForkKey> onlyInCurrent, double threshold, double familyWiseRate, GateStatistics.Test pairedTest,
                   Confirmation confirmation) {

        Outcome(List<Line> lines, List<PairedLine> paired, Comparison geomean, List<ForkKey> onlyInBaseline,
                List<ForkKey> onlyInCurrent, double threshold, double familyWiseRate, GateStatistics.Test pairedTest) {
            this(lines, paired, geomean, onlyInBaseline, onlyInCurrent, threshold, familyWiseRate, pairedTest, null);
        }

        /**
         * Whether any row regressed: the gate fails. The geomean's verdict is shown but does not
         * fail the gate: it has no rank test, and a drift of the machine's load between the two
         * runs moves every row the same way, which the geomean would add up into a false alarm.
         */
        boolean regressed() {
            return count(Verdict.REGRESSED) > 0;
        }

        long count(Verdict v) {
            return lines.stream().filter(l -> l.comparison().verdict() == v).count()
                    + paired.stream().filter(l -> l.comparison().verdict() == v).count();
        }

        /** How many rows were tested together, and so share the family-wise rate. */
        int tested() {
            return lines.size() + paired.size();
        }
    }

    /**
     * The second stage of a confirmed gate: the paired rows that the current run screened (by
     * default those the one-stage gate calls, {@link #SCREEN}) measured once more in a separate run,
     * each against the same baseline, with Holm over the screened rows only.
     *
     * <p>Why two stages: the gate proof's A/A false alarms were single runs in which one row of one
     * strategy had moved by 20% (a whole fork's shift, which more groups in a fork cannot average
     * out), and a second fork of that row does not repeat it; a real slowdown does. With the
     * one-stage gate's calls as the screen, the confirmation can only withdraw calls: never more
     * false alarms than one stage, at the price of the slowdowns the second look misses.
     *
     * @param folder where the confirmation run is
     * @param rows each screened row, baseline against the confirmation run, judged for the family of screened rows
     */
    record Confirmation(String folder, List<PairedLine> rows) {}

    private Gate() {}

    /** Compares by the machine reference wherever both rows have one. */
    static Outcome compare(List<BenchResults.Row> baseline, List<BenchResults.Row> current, GateStatistics stats) {
        return compare(baseline, current, stats, true);
    }

    static Outcome compare(List<BenchResults.Row> baseline, List<BenchResults.Row> current, GateStatistics stats,
                           boolean byReference) {
        return compare(new Run(baseline, Map.of(), null), new Run(current, Map.of(), null), stats, byReference);
    }

    static Outcome compare(Run baseline, Run current, GateStatistics stats, boolean byReference) {
        Map<ForkKey, BenchResults.Row> base = index(baseline.rows());
        Map<ForkKey, BenchResults.Row> cur = index(current.rows());
        List<Line> lines = new ArrayList<>();
        List<ForkKey> onlyBase = new ArrayList<>();
        List<ForkKey> onlyCur = new ArrayList<>();
        for (Map.Entry<ForkKey, BenchResults.Row> e : base.entrySet()) {
            if (e.getKey().benchmark() == BenchmarkId.PAIRED) {
                continue;
            }
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
            if (!base.containsKey(k) && k.benchmark() != BenchmarkId.PAIRED) {
                onlyCur.add(k);
            }
        }
        List<PairedLine> paired = pairedLines(baseline, current, stats, onlyBase);
        current.paired().keySet().stream().filter(k -> !baseline.paired().containsKey(k)).forEach(onlyCur::add);

        // Holm over every row tested: a verdict stands only if its row is significant for the family.
        double familyWise = 1 - stats.confidence();
        double[] p = new double[lines.size() + paired.size()];
        for (int i = 0; i < lines.size(); i++) {
            p[i] = lines.get(i).comparison().pValue();
        }
        for (int i = 0; i < paired.size(); i++) {
            p[lines.size() + i] = paired.get(i).comparison().pValue();
        }
        boolean[] significant = Holm.significant(p, familyWise);
        List<Line> judged = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Line l = lines.get(i);
            judged.add(new Line(l.key(), l.unit(), l.baseline(), l.current(), l.baselineN(), l.currentN(), l.failures(),
                    l.machine(), forFamily(l.comparison(), significant[i])));
        }
        List<PairedLine> judgedPaired = new ArrayList<>();
        for (int i = 0; i < paired.size(); i++) {
            PairedLine l = paired.get(i);
            judgedPaired.add(new PairedLine(l.key(), l.measure(), l.baseline(), l.current(), l.failures(),
                    forFamily(l.comparison(), significant[lines.size() + i])));
        }
        Comparison geomean = stats.geomean(judged.stream().map(Line::comparison).toList());
        return new Outcome(judged, judgedPaired, geomean, onlyBase, onlyCur, stats.threshold(), familyWise, stats.pairedTest());
    }

    /** Every paired row of both runs, each judged by its own test (no correction for the family yet). */
    private static List<PairedLine> pairedLines(Run baseline, Run current, GateStatistics stats, List<ForkKey> onlyInBaseline) {
        List<PairedLine> paired = new ArrayList<>();
        baseline.paired().forEach((key, b) -> {
            PairedRatios.Row c = current.paired().get(key);
            if (c == null) {
                onlyInBaseline.add(key);
                return;
            }
            for (Measure m : GATED) {
                paired.add(pairedLine(key, m, b, c, stats));
            }
        });
        return paired;
    }

    private static PairedLine pairedLine(ForkKey key, Measure m, PairedRatios.Row b, PairedRatios.Row c, GateStatistics stats) {
        return new PairedLine(key, m, b.estimate(m), c.estimate(m),
                b.failed(PairedClaimBenchmark.Slice.CLAIM_ALL) + "/" + c.failed(PairedClaimBenchmark.Slice.CLAIM_ALL),
                stats.compareRatios(b.ratios(m), c.ratios(m)));
    }

    /**
     * The paired rows that {@code current} screened against {@code baseline} with {@link #SCREEN}
     * (the rows the one-stage gate calls). A confirmation run must measure
     * their strategies on their storages again ({@link #confirm}).
     */
    static List<PairedLine> screened(Run baseline, Run current, GateStatistics stats) {
        return screened(baseline, current, stats, SCREEN);
    }

    /** Which rows of the current run go on to be measured again. */
    enum Screen {
        /** Every row whose own test called a change, with no correction for the family: the most power. */
        OWN_TEST,
        /** Only the rows the one-stage gate calls (Holm over all rows): the confirmation can only take calls away. */
        FAMILY
    }

    /**
     * The screen the {@code gate} command uses: the one-stage gate's calls. Screening by each
     * row's own test caught more slowdowns on stand-in confirmations, but with the command's own,
     * immediate confirmations it flagged 3 of 10 A/A tries where the one-stage gate flagged none
     * (results/gate-proof.md): a second look at a loosely screened row against the same baseline
     * repeats a baseline that was itself unusual.
     */
    static final Screen SCREEN = Screen.FAMILY;

    static List<PairedLine> screened(Run baseline, Run current, GateStatistics stats, Screen screen) {
        List<PairedLine> lines = switch (screen) {
            case OWN_TEST -> pairedLines(baseline, current, stats, new ArrayList<>());
            case FAMILY -> compare(baseline, current, stats, true).paired();
        };
        return lines.stream().filter(PairedLine::screened).toList();
    }

    /**
     * The two-stage gate ({@link Confirmation}): a paired row is {@code REGRESSED} (or
     * {@code IMPROVED}) only if the current run screened it and the confirmation run, compared with
     * the same baseline, calls the same change after Holm over the screened rows at the family-wise
     * rate {@code 1 - confidence}. Rows that were not screened, or not confirmed, are not called.
     * JMH rows (not paired) are judged as by {@link #compare(Run, Run, GateStatistics, boolean)}.
     *
     * @throws IllegalArgumentException if the confirmation run lacks a screened row
     */
    static Outcome confirm(Run baseline, Run current, Run confirmation, String confirmationName, GateStatistics stats) {
        return confirm(baseline, current, confirmation, confirmationName, stats, SCREEN);
    }

    /** As {@link #confirm(Run, Run, Run, String, GateStatistics)} with another {@link Screen}. */
    static Outcome confirm(Run baseline, Run current, Run confirmation, String confirmationName, GateStatistics stats,
                           Screen screen) {
        Outcome single = compare(baseline, current, stats, true);
        List<PairedLine> own = pairedLines(baseline, current, stats, new ArrayList<>());
        java.util.Set<String> screened = new java.util.HashSet<>();
        screened(baseline, current, stats, screen).forEach(l -> screened.add(l.key() + "/" + l.measure()));
        java.util.function.Predicate<PairedLine> isScreened = l -> screened.contains(l.key() + "/" + l.measure());
        List<PairedLine> again = new ArrayList<>();
        for (PairedLine s : own) {
            if (!isScreened.test(s)) {
                continue;
            }
            PairedRatios.Row c = confirmation.paired().get(s.key());
            if (c == null) {
                throw new IllegalArgumentException("the confirmation run " + confirmationName + " has no " + s.key().label()
                        + ", which the current run screened: it must measure every screened strategy on its storage");
            }
            again.add(pairedLine(s.key(), s.measure(), baseline.paired().get(s.key()), c, stats));
        }
        double familyWise = 1 - stats.confidence();
        boolean[] significant = Holm.significant(again.stream().mapToDouble(l -> l.comparison().pValue()).toArray(), familyWise);
        List<PairedLine> confirmed = new ArrayList<>();
        for (int i = 0; i < again.size(); i++) {
            PairedLine l = again.get(i);
            confirmed.add(new PairedLine(l.key(), l.measure(), l.baseline(), l.current(), l.failures(),
                    forFamily(l.comparison(), significant[i])));
        }
        List<PairedLine> judged = new ArrayList<>();
        for (PairedLine l : own) {
            Verdict v = l.comparison().verdict();
            boolean stands = confirmed.stream().anyMatch(c -> c.key().equals(l.key()) && c.measure() == l.measure()
                    && c.comparison().verdict() == v);
            // A call stands only if its row was screened and confirmed (the own test may call rows the screen left out).
            boolean withdrawn = l.screened() && !(isScreened.test(l) && stands);
            judged.add(withdrawn ? new PairedLine(l.key(), l.measure(), l.baseline(), l.current(), l.failures(),
                    notCalled(l.comparison())) : l);
        }
        return new Outcome(single.lines(), judged, single.geomean(), single.onlyInBaseline(), single.onlyInCurrent(),
                stats.threshold(), familyWise, stats.pairedTest(), new Confirmation(confirmationName, confirmed));
    }

    private static Comparison notCalled(Comparison c) {
        return new Comparison(c.ratio(), c.low(), c.high(), c.pValue(), Verdict.INCONCLUSIVE, c.replicates());
    }

    /** A row's verdict once the family is accounted for: a change not significant for the family is not called. */
    private static Comparison forFamily(Comparison c, boolean significantForTheFamily) {
        boolean called = c.verdict() == Verdict.REGRESSED || c.verdict() == Verdict.IMPROVED;
        return !called || significantForTheFamily ? c : notCalled(c);
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
        if (o.confirmation() == null) {
            md.append(String.format(Locale.ROOT, "Calibrated to a family-wise false-alarm rate of %.0f%% over the %d rows "
                            + "tested (Holm's correction of every row's rank test); a row is flagged only if it is also "
                            + "beyond the %.0f%% noise threshold with its interval excluding 1.%n%n",
                    o.familyWiseRate() * 100, o.tested(), o.threshold() * 100));
        } else {
            md.append(String.format(Locale.ROOT, "Two stages, calibrated to a family-wise false-alarm rate of %.0f%%: the "
                            + "current run screens the paired rows (%s; beyond the %.0f%% noise threshold, interval "
                            + "excluding 1); %s%n%n",
                    o.familyWiseRate() * 100, SCREEN == Screen.FAMILY
                            ? "those the one-stage gate calls, Holm over every row"
                            : String.format(Locale.ROOT, "each by its own test, p < %.2f", o.familyWiseRate()),
                    o.threshold() * 100, o.confirmation().rows().isEmpty()
                            ? "no row was screened, so nothing needed confirming."
                            : String.format(Locale.ROOT, "the %d screened rows were measured again in `%s`, and a row is "
                                    + "flagged only if that confirmation, against the same baseline, calls the same change "
                                    + "after Holm's correction over the screened rows.", o.confirmation().rows().size(),
                                    o.confirmation().folder())));
        }
        if (!o.paired().isEmpty()) {
            md.append("### Paired ratios (the strategy against its floor, measured in alternating slices of one fork)\n\n");
            md.append("| row | baseline [95% CI] | current [95% CI] | change | 95% CI | p (" + switch (o.pairedTest()) {
                case MANN_WHITNEY -> "U test";
                case WELCH_T_ON_LOGS -> "Welch t, logs";
            } + ") | pairs | failed | verdict |\n");
            md.append("|---|---|---|---:|---|---:|---|---|---|\n");
            for (PairedLine l : o.paired()) {
                Comparison c = l.comparison();
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %.3f | [%.3f, %.3f] | %s | %d/%d | %s | %s |%n",
                        l.label(), estimate(l.baseline()), estimate(l.current()), c.ratio(), c.low(), c.high(),
                        Double.isNaN(c.pValue()) ? "-" : String.format(Locale.ROOT, "%.3g", c.pValue()),
                        l.baseline().pairs(), l.current().pairs(), l.failures(), verdictCell(o, l)));
            }
            md.append('\n');
            if (o.confirmation() != null && !o.confirmation().rows().isEmpty()) {
                md.append("### Confirmation of the screened rows (baseline against the confirmation run)\n\n");
                md.append("| row | baseline [95% CI] | confirmation [95% CI] | change | 95% CI | p | pairs | failed | verdict |\n");
                md.append("|---|---|---|---:|---|---:|---|---|---|\n");
                for (PairedLine l : o.confirmation().rows()) {
                    Comparison c = l.comparison();
                    md.append(String.format(Locale.ROOT, "| %s | %s | %s | %.3f | [%.3f, %.3f] | %s | %d/%d | %s | %s |%n",
                            l.label(), estimate(l.baseline()), estimate(l.current()), c.ratio(), c.low(), c.high(),
                            Double.isNaN(c.pValue()) ? "-" : String.format(Locale.ROOT, "%.3g", c.pValue()),
                            l.baseline().pairs(), l.current().pairs(), l.failures(), mark(c.verdict())));
                }
                md.append('\n');
            }
            if (o.lines().isEmpty()) {
                appendOnlyIn(md, o);
                return md.toString();
            }
            md.append("### JMH scores\n\n");
        }
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
        // A shift of the whole machine between two runs moves every row alike; the geomean adds
        // that up into a "regressed" that no row's own test shows (two full runs of one commit:
        // 0.884, results/reproducibility.md), so it is a summary, never a verdict.
        Comparison g = o.geomean();
        md.append(String.format(Locale.ROOT, "| **geomean** (%d rows; a summary, not part of the verdict) | | | | | | **%.3f** | [%.3f, %.3f] | | | | %s |%n",
                o.lines().size(), g.ratio(), g.low(), g.high(), g.verdict().name().toLowerCase(Locale.ROOT)));
        appendOnlyIn(md, o);
        return md.toString();
    }

    private static void appendOnlyIn(StringBuilder md, Outcome o) {
        if (!o.onlyInBaseline().isEmpty()) {
            md.append("\nOnly in the baseline (not compared): ").append(labels(o.onlyInBaseline())).append('\n');
        }
        if (!o.onlyInCurrent().isEmpty()) {
            md.append("\nOnly in the current run (not compared): ").append(labels(o.onlyInCurrent())).append('\n');
        }
    }

    private static String estimate(PairedRatios.Estimate e) {
        return String.format(Locale.ROOT, "%.3f [%.3f, %.3f]", e.median(), e.low(), e.high());
    }

    private static String labels(List<ForkKey> keys) {
        return String.join("; ", keys.stream().map(ForkKey::label).toList());
    }

    /** A paired row's verdict; in a two-stage outcome a screened row says whether its confirmation upheld it. */
    private static String verdictCell(Outcome o, PairedLine l) {
        if (o.confirmation() == null) {
            return mark(l.comparison().verdict());
        }
        boolean screened = o.confirmation().rows().stream().anyMatch(c -> c.key().equals(l.key()) && c.measure() == l.measure());
        if (!screened) {
            return mark(l.comparison().verdict());
        }
        Verdict v = l.comparison().verdict();
        return v == Verdict.REGRESSED || v == Verdict.IMPROVED ? mark(v) + ", confirmed" : "screened, not confirmed";
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
