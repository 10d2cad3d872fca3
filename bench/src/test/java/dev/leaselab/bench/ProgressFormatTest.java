package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The console's estimate of the time left. Quick's last JMH step is its paired one (three forks a
 * benchmark, each many times a one-fork benchmark) and the open loops and processes follow the
 * forks: a count of benchmarks at the pace of the first ones said "~3:43 left" twelve minutes
 * before the end.
 */
class ProgressFormatTest {

    // four one-fork benchmarks of 2 s, two paired ones of 30 s, then 60 s of open loops and processes
    private static final double[] PLANNED = {2, 2, 2, 2, 30, 30};
    private static final double AFTER = 60;

    @Test
    void theFirstBenchmarksGetThePlanWithWhatFollowsTheForks() {
        assertEquals(128, ProgressFormat.secondsLeft(PLANNED, AFTER, 1, 0));
        assertEquals(124, ProgressFormat.secondsLeft(PLANNED, AFTER, 3, 9), "the pace of two benchmarks is not trusted yet");
    }

    @Test
    void laterTheRestOfThePlanIsScaledByHowTheRunHasKeptToIt() {
        // four benchmarks planned at 8 s took 12 s: the 120 s left take 1.5 times as long
        assertEquals(180, ProgressFormat.secondsLeft(PLANNED, AFTER, 5, 12));
        // on plan: the second paired benchmark and what follows
        assertEquals(90, ProgressFormat.secondsLeft(PLANNED, AFTER, 6, 38));
    }
}
