package dev.leaselab.bench;

import java.time.Duration;

/**
 * The negative control of {@link OpenLoop}: the same schedule and workers, but each latency is
 * measured from the request's actual start instead of its intended start. That is coordinated
 * omission, how a closed loop (JMH's {@code SampleTime}) measures: a stall counts once, and the
 * requests that queued behind it look fast. {@code OpenLoopTest} checks that this variant misses a
 * stall that {@link OpenLoop} reports; it lives in test code only.
 */
final class BrokenOpenLoop extends OpenLoop {

    BrokenOpenLoop(double rate, int threads, Duration warmup, Duration duration) {
        super(rate, threads, warmup, duration);
    }

    @Override
    long latencyOrigin(long intendedStart, long actualStart) {
        return actualStart;
    }
}
