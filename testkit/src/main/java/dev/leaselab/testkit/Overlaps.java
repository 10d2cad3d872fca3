package dev.leaselab.testkit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Counts the calls of a race that really met: a race whose calls never overlapped in time proves
 * nothing, so the contract suite and the stress drivers count them and require some.
 */
public final class Overlaps {

    private Overlaps() {}

    /**
     * How many of {@code spans} began while another was still running.
     *
     * @param spans each call's {@code {start, end}} in {@link System#nanoTime()}
     */
    public static long count(List<long[]> spans) {
        List<long[]> sorted = new ArrayList<>(spans);
        sorted.sort(Comparator.comparingLong(c -> c[0]));
        long overlaps = 0;
        long latestEnd = Long.MIN_VALUE;
        for (long[] call : sorted) {
            overlaps += call[0] < latestEnd ? 1 : 0;
            latestEnd = Math.max(latestEnd, call[1]);
        }
        return overlaps;
    }
}
