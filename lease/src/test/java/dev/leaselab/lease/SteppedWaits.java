package dev.leaselab.lease;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link GroupCommitProtocol.Waits} on a clock that moves only when the waiting thread yields (by
 * {@link #YIELD_STEP}) or parks for a time (by what it asked for), with a record of every yield and
 * park, so that a test holds a wait to its bounds to the nanosecond without measuring any time. A
 * park without a time returns at once, as a wake-up would, and leaves the clock where it is.
 *
 * <p>A wait that stopped yielding and parking would read a clock that no longer moves, forever:
 * after {@link #MAX_READS_WITHOUT_A_MOVE} such reads the clock fails the test instead.
 */
final class SteppedWaits implements GroupCommitProtocol.Waits {

    /** What one yield costs on this clock. */
    static final long YIELD_STEP = 1_000;
    /** Not zero, so that a deadline computed with the wrong sign cannot pass for a right one. */
    static final long START = 5_000_000_000L;
    static final int MAX_READS_WITHOUT_A_MOVE = 1_000_000;

    long now = START;
    int yields;
    /** The time asked for by each timed park, in order. */
    final List<Long> parks = new ArrayList<>();
    /** When, on this clock, each park without a time began. */
    final List<Long> untimedParks = new ArrayList<>();
    /** What happens on the clock after each yield: a writer queues, for instance. */
    Runnable afterEachYield = () -> { };
    private int readsWithoutAMove;

    @Override
    public long nanoTime() {
        if (++readsWithoutAMove > MAX_READS_WITHOUT_A_MOVE) {
            throw new AssertionError("the clock was read " + MAX_READS_WITHOUT_A_MOVE + " times without a yield or a park");
        }
        return now;
    }

    @Override
    public void yieldCpu() {
        yields++;
        moveBy(YIELD_STEP);
        afterEachYield.run();
    }

    @Override
    public void parkNanos(Object blocker, long nanos) {
        parks.add(nanos);
        moveBy(nanos);
    }

    @Override
    public void park(Object blocker) {
        untimedParks.add(now);
        readsWithoutAMove = 0;
    }

    /** How long the clock has moved since {@link #START}. */
    long waited() {
        return now - START;
    }

    private void moveBy(long nanos) {
        now += nanos;
        readsWithoutAMove = 0;
    }
}
