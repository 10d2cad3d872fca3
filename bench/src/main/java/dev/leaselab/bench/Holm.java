package dev.leaselab.bench;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * Holm's step-down correction (Holm 1979): which of m tests may be called significant so that the
 * chance of calling any true null hypothesis significant, over the whole family, stays at most
 * {@code alpha}. The gate tests every row of a run, and a CI job fails on one red row, so the
 * false-alarm rate that matters is the family's, not a row's: with 24 rows tested at 5% each, a
 * run with no change at all would flag a row about 70% of the time.
 *
 * <p>Sort the p-values; reject the k-th smallest while {@code p(k) <= alpha / (m - k + 1)}; stop
 * at the first that fails. It controls the family-wise rate for any dependence between the tests,
 * and never rejects fewer than Bonferroni.
 */
final class Holm {

    private Holm() {
    }

    /**
     * @param pValues one p-value per test; NaN counts as not significant
     * @param alpha the family-wise false-alarm rate, in (0, 1)
     * @return for each test, whether it is significant at family-wise {@code alpha}
     */
    static boolean[] significant(double[] pValues, double alpha) {
        if (!(alpha > 0 && alpha < 1)) {
            throw new IllegalArgumentException("alpha must be between 0 and 1 (exclusive): " + alpha);
        }
        int m = pValues.length;
        Integer[] order = IntStream.range(0, m).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.comparingDouble(i -> Double.isNaN(pValues[i]) ? Double.POSITIVE_INFINITY : pValues[i]));
        boolean[] significant = new boolean[m];
        for (int k = 0; k < m; k++) {
            double p = pValues[order[k]];
            if (Double.isNaN(p) || p > alpha / (m - k)) {
                break;
            }
            significant[order[k]] = true;
        }
        return significant;
    }
}
