package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.bench.GateStatistics.Comparison;
import dev.leaselab.bench.GateStatistics.Verdict;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The gate's statistics on synthetic iteration samples, where the truth is known. */
class GateStatisticsTest {

    private final GateStatistics gate = GateStatistics.defaults();

    /** Normal samples around {@code mean} with relative standard deviation {@code cv}. */
    private static double[] samples(SplittableRandom random, int n, double mean, double cv) {
        double[] xs = new double[n];
        for (int i = 0; i < n; i++) {
            double u1 = random.nextDouble();
            double u2 = random.nextDouble();
            double z = Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
            xs[i] = mean * (1 + cv * z);
        }
        return xs;
    }

    @Test
    void identicalRunsAreUnchangedWithRatioOne() {
        double[] run = {1000, 1010, 990, 1005, 995, 1002, 998, 1001};
        Comparison c = gate.compare(run, run.clone(), true);
        assertEquals(1.0, c.ratio(), 1e-12);
        assertTrue(c.low() <= 1 && c.high() >= 1, "the interval of an identical run holds 1");
        assertEquals(Verdict.UNCHANGED, c.verdict());
    }

    @Test
    void aQuarterSlowerThroughputIsRegressed() {
        SplittableRandom random = new SplittableRandom(1);
        double[] base = samples(random, 8, 1000, 0.03);
        double[] slow = samples(random, 8, 800, 0.03);
        Comparison c = gate.compare(base, slow, true);
        assertEquals(0.8, c.ratio(), 0.03);
        assertTrue(c.high() < 0.9, "the whole interval lies below the threshold: " + c.high());
        assertEquals(Verdict.REGRESSED, c.verdict());
    }

    @Test
    void aQuarterFasterThroughputIsImproved() {
        SplittableRandom random = new SplittableRandom(2);
        Comparison c = gate.compare(samples(random, 8, 1000, 0.03), samples(random, 8, 1250, 0.03), true);
        assertEquals(Verdict.IMPROVED, c.verdict());
    }

    @Test
    void longerTimePerOperationIsARegressionForTimeUnits() {
        SplittableRandom random = new SplittableRandom(3);
        double[] base = samples(random, 8, 50, 0.03);
        double[] slow = samples(random, 8, 62.5, 0.03);
        Comparison c = gate.compare(base, slow, GateStatistics.higherIsBetter("us/op"));
        assertEquals(0.8, c.ratio(), 0.03, "speed ratio is baseline time over current time");
        assertEquals(Verdict.REGRESSED, c.verdict());
    }

    @Test
    void aSmallRealChangeBelowTheThresholdIsNotARegression() {
        SplittableRandom random = new SplittableRandom(4);
        Comparison c = gate.compare(samples(random, 30, 1000, 0.01), samples(random, 30, 970, 0.01), true);
        assertTrue(c.high() < 1, "the 3% change is significant");
        assertEquals(Verdict.UNCHANGED, c.verdict());
    }

    @Test
    void noisySamplesWithASmallShiftAreNeverCalledRegressed() {
        SplittableRandom random = new SplittableRandom(5);
        int regressed = 0;
        for (int i = 0; i < 50; i++) {
            Comparison c = gate.compare(samples(random, 5, 1000, 0.30), samples(random, 5, 950, 0.30), true);
            assertNotEquals(Verdict.UNCHANGED, c.verdict(), "an interval this wide cannot show equivalence");
            if (c.verdict() == Verdict.REGRESSED) {
                regressed++;
            }
        }
        assertTrue(regressed <= 3, "a 5% shift under 30% noise is called regressed in " + regressed + " of 50");
    }

    @Test
    void tinySamplesAreInconclusiveEvenWhenFarApart() {
        Comparison one = gate.compare(new double[] {1000}, new double[] {500}, true);
        assertEquals(Verdict.INCONCLUSIVE, one.verdict());
        Comparison two = gate.compare(new double[] {1000, 1001}, new double[] {500, 501}, true);
        assertEquals(Verdict.INCONCLUSIVE, two.verdict());
        Comparison none = gate.compare(new double[0], new double[] {500, 501, 502}, true);
        assertEquals(Verdict.INCONCLUSIVE, none.verdict());
        assertTrue(Double.isNaN(none.ratio()));
    }

    @Test
    void threeIterationsASideCannotFailTheGateBecauseTheRankTestCannotReachFivePercent() {
        Comparison c = gate.compare(new double[] {1000, 1001, 1002}, new double[] {500, 501, 502}, true);
        assertTrue(c.pValue() >= 0.05, "exact two-sided U p-value for 3 vs 3 is at least 0.1: " + c.pValue());
        assertNotEquals(Verdict.REGRESSED, c.verdict());
    }

    @Test
    void aToAFalseAlarmRateStaysBelowFivePercentUnderModerateNoise() {
        SplittableRandom random = new SplittableRandom(6);
        int regressed = 0;
        for (int i = 0; i < 400; i++) {
            if (gate.compare(samples(random, 8, 1000, 0.08), samples(random, 8, 1000, 0.08), true).verdict()
                    == Verdict.REGRESSED) {
                regressed++;
            }
        }
        assertTrue(regressed <= 20, "A/A regressions: " + regressed + " of 400");
    }

    @Test
    void aTwentyPercentSlowdownIsCaughtAtLeastNineteenTimesInTwentyUnderModerateNoise() {
        SplittableRandom random = new SplittableRandom(7);
        int caught = 0;
        for (int i = 0; i < 20; i++) {
            if (gate.compare(samples(random, 8, 1000, 0.05), samples(random, 8, 800, 0.05), true).verdict()
                    == Verdict.REGRESSED) {
                caught++;
            }
        }
        assertTrue(caught >= 19, "caught " + caught + " of 20");
    }

    @Test
    void geomeanCombinesRowsAndCarriesAnInterval() {
        SplittableRandom random = new SplittableRandom(8);
        Comparison a = gate.compare(samples(random, 8, 1000, 0.02), samples(random, 8, 800, 0.02), true);
        Comparison b = gate.compare(samples(random, 8, 1000, 0.02), samples(random, 8, 1250, 0.02), true);
        Comparison g = gate.geomean(List.of(a, b));
        assertEquals(Math.sqrt(a.ratio() * b.ratio()), g.ratio(), 1e-9);
        assertTrue(g.low() <= g.ratio() && g.ratio() <= g.high());
        assertNotEquals(Verdict.REGRESSED, g.verdict());
    }

    @Test
    void theDirectionComesFromTheUnitAndUnknownUnitsAreRejected() {
        assertTrue(GateStatistics.higherIsBetter("ops/s"));
        assertTrue(GateStatistics.higherIsBetter("ops/ms"));
        assertEquals(false, GateStatistics.higherIsBetter("s/op"));
        assertEquals(false, GateStatistics.higherIsBetter("ns/op"));
        assertThrows(IllegalArgumentException.class, () -> GateStatistics.higherIsBetter("bytes"));
    }

    @Test
    void invalidSettingsAreRejectedWithTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new GateStatistics(1.5, 0.95, 1000, 1));
        assertTrue(e.getMessage().contains("threshold"));
        assertThrows(IllegalArgumentException.class, () -> new GateStatistics(0.1, 0.3, 1000, 1));
        assertThrows(IllegalArgumentException.class, () -> new GateStatistics(0.1, 0.95, 10, 1));
    }
}
