package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The paired mode of {@link MultiProcessMain} ({@code --paired}): every process of a split
 * alternates between the floor's plain {@code UPDATE} and the strategy's hot-job claim in slices
 * of wall-clock time that all processes share, so that "x floor" compares two slices a fraction of
 * a second apart instead of two runs seconds or minutes apart. Measured unpaired, the floor of
 * 4 x 2 on WAL_FULL moved from 3,906 to 7,964 won/s between runs minutes apart, and GROUP_COMMIT's
 * x floor with it (0.93 to 1.36 for one jar in three runs, results/processes-paired-20261204): the
 * disk's fsync time, not the strategy, set the figure.
 *
 * <p>The slices are counted from an origin that the parent hands every process with the start gate
 * ({@link System#nanoTime()} is CLOCK_MONOTONIC, one clock for every process on the host). After
 * the warmup, every two slices are one group holding a floor slice and a claim slice in an order
 * drawn from the group's index, the same in every process; the warmup alternates too. A thread
 * counts an operation in the slice in which it started only if it also ended there, so nothing
 * that straddles a switch is counted for either side (every win still counts towards the stored
 * fence check). A group's ratio is the claim slice's wins over the floor slice's, over all threads
 * of all processes; the row reports their median with a bootstrap interval ({@link
 * PairedRatios#estimate}).
 *
 * <p>On SQLite it needs the jittered busy wait: under SQLite's own handler a writer sleeps up to
 * 100 ms at a time, its operation runs on through the next slices, and the other work's slices
 * run with fewer threads (1 x 8 on WAL_NORMAL: the floor's slices ran at 60-67k won/s against
 * about 37k in runs of its own under the same handler, results/processes-20261203).
 * {@code acrossSwitch} counts the operations that ended in a later slice than they began in.
 *
 * @param originNanos where the warmup starts, in {@link System#nanoTime()}
 * @param groups the measured groups, each a floor slice and a claim slice
 */
record PairedSlices(long originNanos, long warmupNanos, long sliceNanos, int groups) {

    private static final long ORDER_SEED = 0x5eed_17L;

    PairedSlices {
        if (sliceNanos <= 0 || warmupNanos < 0 || groups < 1) {
            throw new IllegalArgumentException("a paired run needs a slice above 0, a warmup of 0 or more and at least one group: slice "
                    + sliceNanos + " ns, warmup " + warmupNanos + " ns, groups " + groups);
        }
    }

    /** The slice running at {@code nanos}: negative during the warmup, {@link #slices()} or more after the end. */
    long sliceAt(long nanos) {
        return Math.floorDiv(nanos - originNanos - warmupNanos, sliceNanos);
    }

    int slices() {
        return 2 * groups;
    }

    /** Where the last measured slice ends. */
    long endNanos() {
        return originNanos + warmupNanos + slices() * sliceNanos;
    }

    /** Whether {@code slice} runs the floor; its group's other slice runs the claim. */
    static boolean isFloor(long slice) {
        long group = Math.floorDiv(slice, 2);
        boolean floorFirst = new SplittableRandom(ORDER_SEED + group).nextBoolean();
        return (Math.floorMod(slice, 2) == 0) == floorFirst;
    }

    /**
     * One paired run's figures.
     *
     * @param xFloor the median over groups of claim wins over floor wins, with its interval
     * @param claimRequestsPerSecond every claim attempt of the claim slices per second: what an open loop's load is a fraction of
     * @param acrossSwitch operations that started in one measured slice and ended in a later one, counted for neither
     * @param jain Jain's index over all threads of their wins in the claim slices
     * @param perProcessClaimWon each process's wins in the claim slices, in start order
     */
    record Result(String work, MultiProcessMain.Split split, int groups, long sliceMillis, PairedRatios.Estimate xFloor,
                  double claimWonPerSecond, double floorWonPerSecond, double claimRequestsPerSecond, long claimLost,
                  long claimFailed, long floorFailed, long acrossSwitch, double jain, List<Long> perProcessClaimWon) {

        String line() {
            return String.format(Locale.ROOT, "%-18s %-4s paired, %d groups of 2 x %d ms: x floor %.2f [%.2f, %.2f]  claim %.0f won/s"
                            + "  floor %.0f won/s  lost %d  failed %d / floor %d  across a switch %d  Jain %.2f  per process %s",
                    work, split, xFloor.pairs(), sliceMillis, xFloor.median(), xFloor.low(), xFloor.high(), claimWonPerSecond,
                    floorWonPerSecond, claimLost, claimFailed, floorFailed, acrossSwitch, jain, perProcessClaimWon);
        }
    }

    /**
     * Folds the workers' per-slice counts into the groups' ratios. A group whose floor slice won
     * nothing has no ratio and is left out (the interval then holds fewer pairs than groups).
     */
    Result fold(String work, MultiProcessMain.Split split, List<JsonNode> workers) {
        long[] wonPerSlice = new long[slices()];
        long claimAttempts = 0;
        long claimLost = 0;
        long claimFailed = 0;
        long floorFailed = 0;
        long acrossSwitch = 0;
        List<Long> perProcess = new ArrayList<>();
        List<Long> perThread = new ArrayList<>();
        for (JsonNode worker : workers) {
            long processWon = 0;
            for (JsonNode t : worker.path("threads")) {
                JsonNode won = t.path("won");
                JsonNode lost = t.path("lost");
                JsonNode failed = t.path("failed");
                if (won.size() != slices() || lost.size() != slices() || failed.size() != slices()) {
                    throw new IllegalStateException("a worker counted " + won.size() + " slices, not the " + slices() + " of "
                            + groups + " groups: " + worker.path("pid"));
                }
                long threadWon = 0;
                acrossSwitch += t.path("acrossSwitch").asLong();
                for (int s = 0; s < slices(); s++) {
                    wonPerSlice[s] += won.get(s).asLong();
                    if (isFloor(s)) {
                        floorFailed += failed.get(s).asLong();
                    } else {
                        threadWon += won.get(s).asLong();
                        claimLost += lost.get(s).asLong();
                        claimFailed += failed.get(s).asLong();
                        claimAttempts += won.get(s).asLong() + lost.get(s).asLong() + failed.get(s).asLong();
                    }
                }
                perThread.add(threadWon);
                processWon += threadWon;
            }
            perProcess.add(processWon);
        }
        double[] ratios = new double[groups];
        int usable = 0;
        long claimWon = 0;
        long floorWon = 0;
        for (int g = 0; g < groups; g++) {
            int floorSlice = isFloor(2L * g) ? 2 * g : 2 * g + 1;
            int claimSlice = floorSlice == 2 * g ? 2 * g + 1 : 2 * g;
            floorWon += wonPerSlice[floorSlice];
            claimWon += wonPerSlice[claimSlice];
            if (wonPerSlice[floorSlice] > 0) {
                ratios[usable++] = (double) wonPerSlice[claimSlice] / wonPerSlice[floorSlice];
            }
        }
        double seconds = groups * sliceNanos / 1e9;
        double sum = 0;
        double squares = 0;
        for (long w : perThread) {
            sum += w;
            squares += (double) w * w;
        }
        double jain = squares == 0 ? Double.NaN : sum * sum / (perThread.size() * squares);
        return new Result(work, split, groups, sliceNanos / 1_000_000, PairedRatios.estimate(java.util.Arrays.copyOf(ratios, usable)),
                claimWon / seconds, floorWon / seconds, claimAttempts / seconds, claimLost, claimFailed, floorFailed, acrossSwitch, jain,
                List.copyOf(perProcess));
    }
}
