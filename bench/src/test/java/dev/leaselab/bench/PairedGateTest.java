package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.bench.GateStatistics.Verdict;
import dev.leaselab.bench.PairedClaimBenchmark.Slice;
import dev.leaselab.lease.LockingStrategy;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;

/**
 * The paired gate on synthetic runs whose truth is known: 24 rows (12 strategy/storage pairs, each
 * judged at one thread and at all threads) with noisy per-group ratios. With no change, the share
 * of runs in which any row is flagged REGRESSED (what fails a CI job: the family-wise false-alarm
 * rate) must stay within the 5% the gate is calibrated to (Holm over two-sided tests at 5% bounds
 * the rate of any call, in either direction, by 5%; a red row alone is about half of it); the negative control judges the same runs without Holm's correction
 * and must show the family inflating the rate far beyond 5%. A 25% slower strategy must be caught.
 */
class PairedGateTest {

    private static final int GROUPS = 8;
    /** The spread of one group's log ratio: wide enough that rows without correction do raise false alarms. */
    private static final double NOISE = 0.15;

    @Test
    void withNoChangeTheFamilyWiseFalseAlarmRateStaysWithinItsFivePercent() {
        int families = 200;
        int flagged = 0;
        int flaggedWithoutCorrection = 0;
        SplittableRandom random = new SplittableRandom(7);
        for (int f = 0; f < families; f++) {
            Gate.Run a = run(random, null);
            Gate.Run b = run(random, null);
            Gate.Outcome o = Gate.compare(a, b, GateStatistics.defaults(), true);
            assertEquals(24, o.paired().size());
            flagged += o.regressed() ? 1 : 0;
            flaggedWithoutCorrection += uncorrectedFlags(a, b) > 0 ? 1 : 0;
        }
        assertTrue(flagged <= families * 0.05, flagged + " of " + families + " A/A families had a row flagged REGRESSED");
        // The control: the same families, each row at 5% on its own.
        assertTrue(flaggedWithoutCorrection >= families * 0.15, "without the correction only " + flaggedWithoutCorrection
                + " of " + families + " families had a flag: the noise is too small for this test to show anything");
    }

    @Test
    void aStrategySlowedByAQuarterIsFlaggedOnItsRowsAndNoOtherRow() {
        SplittableRandom random = new SplittableRandom(11);
        int caught = 0;
        int others = 0;
        for (int f = 0; f < 50; f++) {
            Gate.Outcome o = Gate.compare(run(random, null), run(random, LockingStrategy.SERIALIZED), GateStatistics.defaults(), true);
            caught += o.paired().stream().anyMatch(l -> l.key().strategy() == LockingStrategy.SERIALIZED
                    && l.comparison().verdict() == Verdict.REGRESSED) ? 1 : 0;
            others += o.paired().stream().anyMatch(l -> l.key().strategy() != LockingStrategy.SERIALIZED
                    && l.comparison().verdict() == Verdict.REGRESSED) ? 1 : 0;
        }
        assertTrue(caught >= 45, "the slowed strategy was caught in " + caught + " of 50");
        assertTrue(others <= 3, "another strategy was flagged in " + others + " of 50");
    }

    /** Rows flagged when each row's test stands alone at 5%, with the same threshold and interval rule. */
    private static long uncorrectedFlags(Gate.Run a, Gate.Run b) {
        GateStatistics stats = GateStatistics.defaults();
        long n = 0;
        for (Map.Entry<ForkKey, PairedRatios.Row> e : a.paired().entrySet()) {
            for (PairedRatios.Measure m : Gate.GATED) {
                Verdict v = stats.compare(e.getValue().ratios(m), b.paired().get(e.getKey()).ratios(m), true).verdict();
                n += v == Verdict.REGRESSED || v == Verdict.IMPROVED ? 1 : 0;
            }
        }
        return n;
    }

    /** A synthetic gate run: every SQLite strategy on both WAL storages, the floor at 10k/s, ratios lognormal around 0.8. */
    private static Gate.Run run(SplittableRandom random, LockingStrategy slowed) {
        Map<ForkKey, PairedRatios.Row> rows = new LinkedHashMap<>();
        for (Storage storage : List.of(Storage.WAL_NORMAL, Storage.WAL_FULL)) {
            for (LockingStrategy s : LockingStrategy.of(LockingStrategy.Engine.SQLITE)) {
                double factor = s == slowed ? 0.75 : 1.0;
                List<PairedRatios.Group> groups = new ArrayList<>();
                for (int g = 0; g < GROUPS; g++) {
                    Map<Slice, PairedRatios.SliceResult> slices = new EnumMap<>(Slice.class);
                    double floor = 10_000;
                    slices.put(Slice.FLOOR_ALL, result(floor));
                    slices.put(Slice.FLOOR_ONE, result(floor));
                    slices.put(Slice.CLAIM_ALL, result(floor * 0.8 * factor * Math.exp(NOISE * gaussian(random))));
                    slices.put(Slice.CLAIM_ONE, result(floor * 0.8 * factor * Math.exp(NOISE * gaussian(random))));
                    groups.add(new PairedRatios.Group(1, g, slices));
                }
                rows.put(new ForkKey(BenchmarkId.PAIRED, Mode.Throughput, 8, storage, s), new PairedRatios.Row(groups));
            }
        }
        return new Gate.Run(List.of(), rows, null);
    }

    private static PairedRatios.SliceResult result(double perSecond) {
        return new PairedRatios.SliceResult(Math.round(perSecond * 0.15), 0, 0, 0.15, 1);
    }

    private static double gaussian(SplittableRandom random) {
        // Box-Muller: SplittableRandom has no nextGaussian on Java 17.
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }
}
