package dev.leaselab.bench;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.commons.statistics.inference.DataDispersion;
import org.apache.commons.statistics.inference.MannWhitneyUTest;
import org.apache.commons.statistics.inference.TTest;

/**
 * The statistics of the regression gate: from the raw iteration scores of a baseline and a
 * current run, a speed ratio with a bootstrap confidence interval, a Mann-Whitney U p-value, and a
 * verdict against a noise threshold.
 *
 * <p>The speed ratio is oriented so that above 1 is always better: current over baseline for
 * a higher-is-better unit (ops/s), baseline over current for a lower-is-better unit (s/op). It is
 * the ratio of medians, not of means: on a shared machine an iteration that meets a burst of other
 * load is an outlier, and one outlier should not move the verdict. The interval is a percentile
 * bootstrap of that ratio, resampling each side with replacement and a fixed seed, so the same
 * inputs always give the same verdict.
 *
 * <p>Verdicts, with {@code t} the noise threshold:
 * <ul>
 *   <li>{@code REGRESSED}: the ratio is below {@code 1 - t}, the interval lies wholly below 1 and
 *       the U test agrees ({@code p < alpha}): slower by more than the noise threshold, and not by chance;
 *   <li>{@code IMPROVED}: the mirror image above {@code 1 + t};
 *   <li>{@code UNCHANGED}: the interval lies wholly within {@code [1 - t, 1 + t]}, or the change is
 *       significant but its point estimate and interval stay within the band;
 *   <li>{@code INCONCLUSIVE}: anything else: too few samples (fewer than 3 a side), or an interval
 *       too wide to rule out a change larger than the threshold.
 * </ul>
 * Requiring both the bootstrap and the rank test keeps tiny samples, whose bootstrap intervals are
 * too narrow, from failing a build: with 3 iterations a side the U test can never reach 0.05.
 */
final class GateStatistics {

    /** The verdict on one comparison. */
    enum Verdict { IMPROVED, REGRESSED, UNCHANGED, INCONCLUSIVE }

    /** How a row's p-value is computed. */
    enum Test {
        /**
         * Mann-Whitney U on the samples: no assumption about their distribution, but with n samples
         * a side its smallest two-sided p-value is {@code 2 / C(2n, n)} (5.8e-4 at n = 7), so under
         * Holm's correction over 24 rows (a first threshold of 0.0021) it calls a change only when
         * all but about one of the 49 cross pairs are ordered.
         */
        MANN_WHITNEY,
        /**
         * Welch's t-test on the logarithms of the samples, which are ratios here: it assumes them
         * roughly log-normal, and reaches small p-values with few samples.
         */
        WELCH_T_ON_LOGS
    }

    /**
     * The outcome of one comparison.
     *
     * @param ratio speed ratio, above 1 is better (NaN when a side is empty)
     * @param low lower bound of the confidence interval of the ratio
     * @param high upper bound
     * @param pValue two-sided Mann-Whitney U p-value (NaN when not computable)
     * @param verdict the verdict
     * @param replicates the bootstrap replicates of the ratio, for combining rows into a geomean
     */
    record Comparison(double ratio, double low, double high, double pValue, Verdict verdict, double[] replicates) {}

    static final int MIN_SAMPLES = 3;

    private final double threshold;
    private final double confidence;
    private final double alpha;
    private final int resamples;
    private final long seed;
    private final Test pairedTest;

    /**
     * @param threshold the noise threshold as a fraction (0.10 for 10%)
     * @param confidence the confidence level of the interval (0.95)
     * @param resamples the number of bootstrap resamples
     * @param seed the seed of the bootstrap
     */
    GateStatistics(double threshold, double confidence, int resamples, long seed) {
        this(threshold, confidence, resamples, seed, Test.MANN_WHITNEY);
    }

    /**
     * As {@link #GateStatistics(double, double, int, long)}, with the test of the paired rows'
     * per-group ratios ({@link #compareRatios}).
     */
    GateStatistics(double threshold, double confidence, int resamples, long seed, Test pairedTest) {
        if (!(threshold > 0 && threshold < 1)) {
            throw new IllegalArgumentException("threshold must be between 0 and 1 (exclusive): " + threshold);
        }
        if (!(confidence > 0.5 && confidence < 1)) {
            throw new IllegalArgumentException("confidence must be between 0.5 and 1 (exclusive): " + confidence);
        }
        if (resamples < 100) {
            throw new IllegalArgumentException("at least 100 bootstrap resamples are needed: " + resamples);
        }
        this.threshold = threshold;
        this.confidence = confidence;
        this.alpha = 1 - confidence;
        this.resamples = resamples;
        this.seed = seed;
        this.pairedTest = java.util.Objects.requireNonNull(pairedTest, "pairedTest");
    }

    /** Default settings: 10% threshold, 95% confidence, 4000 resamples, a fixed seed. */
    static GateStatistics defaults() {
        return new GateStatistics(0.10, 0.95, 4000, 42);
    }

    /** These settings with another test for the paired rows. */
    GateStatistics withPairedTest(Test test) {
        return new GateStatistics(threshold, confidence, resamples, seed, test);
    }

    Test pairedTest() {
        return pairedTest;
    }

    double threshold() {
        return threshold;
    }

    double confidence() {
        return confidence;
    }

    /** Compares raw scores by the Mann-Whitney U test; {@code higherIsBetter} comes from the score unit. */
    Comparison compare(double[] baseline, double[] current, boolean higherIsBetter) {
        return compare(baseline, current, higherIsBetter, Test.MANN_WHITNEY);
    }

    /** Compares the per-group ratios of a paired row (higher is better) by {@link #pairedTest()}. */
    Comparison compareRatios(double[] baseline, double[] current) {
        return compare(baseline, current, true, pairedTest);
    }

    Comparison compare(double[] baseline, double[] current, boolean higherIsBetter, Test test) {
        if (baseline.length == 0 || current.length == 0) {
            return new Comparison(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Verdict.INCONCLUSIVE, new double[0]);
        }
        double ratio = speedRatio(median(baseline), median(current), higherIsBetter);
        SplittableRandom random = new SplittableRandom(seed);
        double[] replicates = new double[resamples];
        for (int r = 0; r < resamples; r++) {
            replicates[r] = speedRatio(resampledMedian(baseline, random), resampledMedian(current, random), higherIsBetter);
        }
        double[] sorted = replicates.clone();
        Arrays.sort(sorted);
        double low = percentile(sorted, alpha / 2);
        double high = percentile(sorted, 1 - alpha / 2);
        double p = Double.NaN;
        if (baseline.length >= 2 && current.length >= 2 && !allEqual(baseline, current)) {
            p = switch (test) {
                case MANN_WHITNEY -> MannWhitneyUTest.withDefaults().test(baseline, current).getPValue();
                case WELCH_T_ON_LOGS -> welchOnLogs(baseline, current);
            };
        } else if (baseline.length >= 2 && current.length >= 2) {
            p = 1.0;
        }
        Verdict verdict = baseline.length < MIN_SAMPLES || current.length < MIN_SAMPLES
                ? Verdict.INCONCLUSIVE
                : verdict(ratio, low, high, p < alpha);
        return new Comparison(ratio, low, high, p, verdict, replicates);
    }

    /**
     * The smallest ratio Welch's test takes the logarithm of: a group whose claim slice won nothing
     * (a stall of the whole slice, seen once in 41 gate runs) has ratio 0, whose logarithm does not
     * exist; it counts as this, an outlier that widens its side's spread, so it makes a call less
     * likely, never more.
     */
    static final double SMALLEST_LOGGED_RATIO = 1e-3;

    /** Welch's two-sided p-value on the logarithms; 1 when neither side has any spread (nothing to test). */
    private static double welchOnLogs(double[] baseline, double[] current) {
        double p = TTest.withDefaults().with(DataDispersion.HETEROSCEDASTIC).test(logs(baseline), logs(current)).getPValue();
        return Double.isNaN(p) ? 1.0 : p;
    }

    private static double[] logs(double[] ratios) {
        double[] out = new double[ratios.length];
        for (int i = 0; i < ratios.length; i++) {
            if (!(ratios[i] >= 0) || Double.isInfinite(ratios[i])) {
                throw new IllegalArgumentException("Welch's t-test on logarithms needs ratios of 0 or more: " + Arrays.toString(ratios));
            }
            out[i] = Math.log(Math.max(SMALLEST_LOGGED_RATIO, ratios[i]));
        }
        return out;
    }

    /**
     * Combines comparisons into their geometric mean, with an interval from the geomeans of
     * the replicates of the same index (the rows are resampled independently).
     */
    Comparison geomean(List<Comparison> rows) {
        List<Comparison> usable = rows.stream().filter(c -> c.replicates().length == resamples).toList();
        if (usable.isEmpty()) {
            return new Comparison(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Verdict.INCONCLUSIVE, new double[0]);
        }
        double logSum = 0;
        for (Comparison c : usable) {
            logSum += Math.log(c.ratio());
        }
        double ratio = Math.exp(logSum / usable.size());
        double[] replicates = new double[resamples];
        for (int r = 0; r < resamples; r++) {
            double s = 0;
            for (Comparison c : usable) {
                s += Math.log(c.replicates()[r]);
            }
            replicates[r] = Math.exp(s / usable.size());
        }
        double[] sorted = replicates.clone();
        Arrays.sort(sorted);
        double low = percentile(sorted, alpha / 2);
        double high = percentile(sorted, 1 - alpha / 2);
        boolean significant = low > 1 || high < 1;
        return new Comparison(ratio, low, high, Double.NaN, verdict(ratio, low, high, significant), replicates);
    }

    private Verdict verdict(double ratio, double low, double high, boolean rankTestSignificant) {
        boolean below = high < 1;
        boolean above = low > 1;
        if (below && rankTestSignificant && ratio < 1 - threshold) {
            return Verdict.REGRESSED;
        }
        if (above && rankTestSignificant && ratio > 1 + threshold) {
            return Verdict.IMPROVED;
        }
        if (low >= 1 - threshold && high <= 1 + threshold) {
            return Verdict.UNCHANGED;
        }
        return Verdict.INCONCLUSIVE;
    }

    static boolean higherIsBetter(String unit) {
        String u = unit.trim();
        if (u.endsWith("/op")) {
            return false;
        }
        if (u.startsWith("ops/")) {
            return true;
        }
        throw new IllegalArgumentException("cannot tell from the unit '" + unit
                + "' whether higher is better (expected ops/<time> or <time>/op)");
    }

    private static double speedRatio(double baselineMean, double currentMean, boolean higherIsBetter) {
        return higherIsBetter ? currentMean / baselineMean : baselineMean / currentMean;
    }

    static double median(double[] xs) {
        double[] sorted = xs.clone();
        Arrays.sort(sorted);
        return percentile(sorted, 0.5);
    }

    private static double resampledMedian(double[] xs, SplittableRandom random) {
        double[] draw = new double[xs.length];
        for (int i = 0; i < xs.length; i++) {
            draw[i] = xs[random.nextInt(xs.length)];
        }
        Arrays.sort(draw);
        return percentile(draw, 0.5);
    }

    /** Linear interpolation between order statistics of sorted values. */
    static double percentile(double[] sorted, double q) {
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(sorted.length - 1, lo + 1);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }

    private static boolean allEqual(double[] a, double[] b) {
        double first = a[0];
        for (double x : a) {
            if (x != first) {
                return false;
            }
        }
        for (double x : b) {
            if (x != first) {
                return false;
            }
        }
        return true;
    }
}
