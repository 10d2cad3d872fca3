package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Holm's step-down correction on p-values whose answer is known by hand. */
class HolmTest {

    @Test
    void rejectsInOrderOfTheSmallestPValueUntilTheFirstThatFailsItsLevel() {
        // Sorted: 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop; 0.04 is not rejected either.
        assertArrayEquals(new boolean[] {true, false, false, true}, Holm.significant(new double[] {0.01, 0.04, 0.03, 0.005}, 0.05));
    }

    @Test
    void aPValueThatWouldPassAloneIsNotSignificantInALargeFamily() {
        double[] p = new double[24];
        java.util.Arrays.fill(p, 0.5);
        p[7] = 0.01;
        boolean[] expected = new boolean[24];
        assertArrayEquals(expected, Holm.significant(p, 0.05), "0.01 > 0.05 / 24");
        p[7] = 0.001;
        expected[7] = true;
        assertArrayEquals(expected, Holm.significant(p, 0.05), "0.001 <= 0.05 / 24");
    }

    @Test
    void notANumberIsNeverSignificantAndDoesNotBlockTheOthers() {
        assertArrayEquals(new boolean[] {false, true}, Holm.significant(new double[] {Double.NaN, 0.001}, 0.05));
    }

    @Test
    void aRateOutsideZeroToOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Holm.significant(new double[] {0.1}, 1.5));
    }
}
