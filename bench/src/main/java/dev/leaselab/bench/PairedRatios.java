package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leaselab.bench.PairedClaimBenchmark.Slice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * The ratios of {@link PairedClaimBenchmark}, read back from the tally: for every group of four
 * slices, the strategy over the floor at all threads and at one thread, and all threads over one
 * thread for the strategy. Each ratio compares slices of one group, a few hundred milliseconds
 * apart on the same threads, so it does not depend on which CPU the fork landed on; the estimate
 * of a row is the median over its groups with a percentile-bootstrap interval.
 */
final class PairedRatios {

    /** The bootstrap's resamples and seed: the same inputs always give the same interval. */
    static final int RESAMPLES = 4000;
    private static final long SEED = 42;
    static final double CONFIDENCE = 0.95;

    /**
     * What one slice iteration did.
     *
     * @param won successes of the threads the slice ran
     * @param failed exceptions (busy past the timeout)
     * @param lost claims that found the lease held
     * @param seconds wall-clock span of the threads the slice ran, first start to last end
     * @param iteration the measurement iteration of the fork it ran in, from 1
     */
    record SliceResult(long won, long failed, long lost, double seconds, int iteration) {
        /**
         * Successes per second; not a number for a slice that ran for no time (its thread was still
         * in the previous slice's last call when this one ended), so that its group's ratios are
         * dropped rather than counted as a claim rate of 0.
         */
        double rate() {
            return seconds > 0 ? won / seconds : Double.NaN;
        }
    }

    /** One group: each slice once, from one fork ({@code pid}). */
    record Group(long pid, int index, Map<Slice, SliceResult> slices) {

        double xFloorAll() {
            return ratio(Slice.CLAIM_ALL, Slice.FLOOR_ALL);
        }

        double xFloorOne() {
            return ratio(Slice.CLAIM_ONE, Slice.FLOOR_ONE);
        }

        /** The strategy at all threads over the strategy at one thread. */
        double scaling() {
            return ratio(Slice.CLAIM_ALL, Slice.CLAIM_ONE);
        }

        /**
         * The strategy's scaling over the floor's in the same group, which is also x floor at all
         * threads over x floor at one thread. The raw {@link #scaling} divides an all-threads slice
         * by a one-thread slice, so it carries how well this machine's CPUs scale at that moment:
         * the floor's own scaling moved by up to 58% between quick runs minutes apart while the
         * three forks of one run agreed (results/reproducibility.md); this ratio divides that out.
         */
        double scalingOverFloor() {
            double floorScaling = ratio(Slice.FLOOR_ALL, Slice.FLOOR_ONE);
            return floorScaling > 0 ? scaling() / floorScaling : Double.NaN;
        }

        private double ratio(Slice top, Slice bottom) {
            double below = slices.get(bottom).rate();
            return below > 0 ? slices.get(top).rate() / below : Double.NaN;
        }
    }

    /** The ratios that a paired row reports, in the order of the report's columns. */
    enum Measure {
        X_FLOOR_ONE("x floor, 1 thread", Group::xFloorOne),
        X_FLOOR_ALL("x floor, all threads", Group::xFloorAll),
        SCALING("all threads / 1 thread", Group::scaling),
        SCALING_OVER_FLOOR("all threads / 1 thread, over the floor's", Group::scalingOverFloor);

        final String label;
        final ToDoubleFunction<Group> of;

        Measure(String label, ToDoubleFunction<Group> of) {
            this.label = label;
            this.of = of;
        }
    }

    /**
     * A median with its interval.
     *
     * @param pairs the groups it is computed from (those with a usable ratio)
     */
    record Estimate(double median, double low, double high, int pairs) {

        boolean overlaps(Estimate other) {
            return low <= other.high && other.low <= high;
        }
    }

    /** All groups of one row (one strategy on one storage), over all its forks. */
    record Row(List<Group> groups) {

        /** The usable ratios of {@code measure}, one per group, in order. */
        double[] ratios(Measure measure) {
            return groups.stream().mapToDouble(measure.of).filter(Double::isFinite).toArray();
        }

        Estimate estimate(Measure measure) {
            return PairedRatios.estimate(ratios(measure));
        }

        /** The median per-slice rate of {@code slice}, in successes per second. */
        double medianRate(Slice slice) {
            return GateStatistics.median(groups.stream().mapToDouble(g -> g.slices().get(slice).rate()).filter(Double::isFinite).toArray());
        }

        long failed(Slice slice) {
            return groups.stream().mapToLong(g -> g.slices().get(slice).failed()).sum();
        }

        /** The row split by fork, in the order the forks ran. */
        Map<Long, Row> byFork() {
            Map<Long, List<Group>> forks = new LinkedHashMap<>();
            groups.forEach(g -> forks.computeIfAbsent(g.pid(), k -> new ArrayList<>()).add(g));
            Map<Long, Row> rows = new LinkedHashMap<>();
            forks.forEach((pid, gs) -> rows.put(pid, new Row(gs)));
            return rows;
        }

        /**
         * Whether two of this row's forks disagree beyond their noise on {@code measure}: their
         * intervals do not overlap. One fork cannot disagree with itself.
         */
        boolean forksDisagree(Measure measure) {
            List<Estimate> forks = byFork().values().stream().map(r -> r.estimate(measure)).toList();
            for (int i = 0; i < forks.size(); i++) {
                for (int j = i + 1; j < forks.size(); j++) {
                    if (!forks.get(i).overlaps(forks.get(j))) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** The smallest and largest per-fork median of {@code measure}. */
        double[] forkRange(Measure measure) {
            double[] medians = byFork().values().stream().mapToDouble(r -> r.estimate(measure).median()).toArray();
            return new double[] {Arrays.stream(medians).min().orElse(Double.NaN), Arrays.stream(medians).max().orElse(Double.NaN)};
        }
    }

    private PairedRatios() {
    }

    /** The median of {@code ratios} with a percentile-bootstrap interval at {@value #CONFIDENCE}. */
    static Estimate estimate(double[] ratios) {
        if (ratios.length == 0) {
            return new Estimate(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        SplittableRandom random = new SplittableRandom(SEED);
        double[] medians = new double[RESAMPLES];
        double[] draw = new double[ratios.length];
        for (int r = 0; r < RESAMPLES; r++) {
            for (int i = 0; i < draw.length; i++) {
                draw[i] = ratios[random.nextInt(ratios.length)];
            }
            medians[r] = GateStatistics.median(draw);
        }
        Arrays.sort(medians);
        double tail = (1 - CONFIDENCE) / 2;
        return new Estimate(GateStatistics.median(ratios), GateStatistics.percentile(medians, tail),
                GateStatistics.percentile(medians, 1 - tail), ratios.length);
    }

    private record Line(long pid, int iteration, Slice slice, long won, long lost, long refused, long failed,
                        long start, long end) {
        boolean active() {
            return won + lost + refused + failed > 0;
        }
    }

    /**
     * The paired rows of a tally file: every measurement line with a {@code slice}, grouped by
     * fork, iteration and group of four.
     *
     * @throws IllegalArgumentException naming the file if a group lacks a slice (the measurement
     *     did not start at a group: warmup iterations not a multiple of four)
     */
    static Map<ForkKey, Row> read(Path tally) {
        Map<ForkKey, Map<Long, Map<Integer, List<Line>>>> byKey = new LinkedHashMap<>();
        if (!Files.isRegularFile(tally)) {
            return Map.of();
        }
        try {
            for (String text : Files.readAllLines(tally)) {
                if (text.isBlank()) {
                    continue;
                }
                JsonNode l = Json.readLine(text);
                if (!l.has("slice") || !"measurement".equals(l.path("iterationType").asText())) {
                    continue;
                }
                ForkKey key = BenchResults.key(l, tally);
                Line line = new Line(l.path("pid").asLong(), l.path("iteration").asInt(), Slice.valueOf(l.path("slice").asText()),
                        l.path("won").asLong(), l.path("lost").asLong(), l.path("refused").asLong(), l.path("failed").asLong(),
                        l.path("startNanos").asLong(), l.path("endNanos").asLong());
                byKey.computeIfAbsent(key, k -> new LinkedHashMap<>()).computeIfAbsent(line.pid(), k -> new TreeMap<>())
                        .computeIfAbsent(line.iteration(), k -> new ArrayList<>()).add(line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the tally " + tally, e);
        }
        Map<ForkKey, Row> rows = new LinkedHashMap<>();
        byKey.forEach((key, forks) -> {
            List<Group> groups = new ArrayList<>();
            forks.forEach((pid, iterations) -> groups.addAll(groups(tally, key, pid, iterations)));
            rows.put(key, new Row(groups));
        });
        return rows;
    }

    private static List<Group> groups(Path tally, ForkKey key, long pid, Map<Integer, List<Line>> iterations) {
        Map<Integer, Map<Slice, SliceResult>> byGroup = new TreeMap<>();
        iterations.forEach((iteration, lines) -> {
            int group = (iteration - 1) / PairedClaimBenchmark.GROUP;
            Slice slice = lines.get(0).slice();
            SliceResult previous = byGroup.computeIfAbsent(group, g -> new EnumMap<>(Slice.class)).put(slice, fold(lines, iteration));
            if (previous != null) {
                throw new IllegalArgumentException(tally + ": " + key.label() + ", fork " + pid + ": group " + (group + 1)
                        + " has slice " + slice + " twice; its warmup iterations are not a multiple of "
                        + PairedClaimBenchmark.GROUP);
            }
        });
        List<Group> groups = new ArrayList<>();
        byGroup.forEach((index, slices) -> {
            if (slices.size() != PairedClaimBenchmark.GROUP) {
                throw new IllegalArgumentException(tally + ": " + key.label() + ", fork " + pid + ": group " + (index + 1)
                        + " has slices " + slices.keySet() + ", not all " + PairedClaimBenchmark.GROUP
                        + "; the measurement iterations are not a multiple of " + PairedClaimBenchmark.GROUP);
            }
            groups.add(new Group(pid, index, slices));
        });
        return groups;
    }

    /** A slice's result over the threads it ran (the others parked and count nothing). */
    private static SliceResult fold(List<Line> lines, int iteration) {
        long won = 0, failed = 0, lost = 0, start = Long.MAX_VALUE, end = Long.MIN_VALUE;
        for (Line l : lines) {
            if (!l.active()) {
                continue;
            }
            won += l.won();
            failed += l.failed();
            lost += l.lost();
            start = Math.min(start, l.start());
            end = Math.max(end, l.end());
        }
        return new SliceResult(won, failed, lost, end > start ? (end - start) / 1e9 : 0, iteration);
    }
}
