package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.bench.OpenLoop.Outcome;
import dev.leaselab.lease.LeaseStoreException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The open-loop driver on fake operations whose service time the test sets, so that what is
 * asserted is the measurement, not the speed of this machine: bounds are wide, and only the
 * schedule's own numbers (requests sent, their outcomes) are asserted exactly.
 */
class OpenLoopTest {

    private static final Duration MS_10 = Duration.ofMillis(10);

    /** Holds the calling thread for at least {@code nanos}: {@code parkNanos} alone may return early. */
    static void serve(long nanos) {
        long deadline = System.nanoTime() + nanos;
        for (long left; (left = deadline - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }

    private static void assertOrdered(OpenLoop.Result r) {
        assertTrue(r.p50Ms() <= r.p90Ms() && r.p90Ms() <= r.p99Ms() && r.p99Ms() <= r.p999Ms() && r.p999Ms() <= r.maxMs(),
                "percentiles ordered: " + r.line());
    }

    private static long sumOfOutcomes(OpenLoop.Result r) {
        return r.won() + r.lost() + r.refused() + r.failed();
    }

    @Test
    void underCapacityTheLatencyIsTheServiceTimeAndEveryRequestIsCountedOnce() {
        AtomicInteger calls = new AtomicInteger();
        OpenLoop.Op op = worker -> {
            calls.incrementAndGet();
            serve(TimeUnit.MICROSECONDS.toNanos(200));
            return Outcome.WON;
        };
        // 1000/s on 2 workers of 200 us each: a fifth of capacity, so requests rarely queue.
        OpenLoop.Result r = new OpenLoop(1000, 2, Duration.ofMillis(200), Duration.ofSeconds(1)).run(op);

        assertEquals(1000, r.sent(), "rate x duration");
        assertEquals(1000, r.won());
        assertEquals(0, r.lost() + r.refused() + r.failed() + r.timedOut());
        assertEquals(1200, calls.get(), "the 200 warmup requests ran as well, but are not in the result");
        assertTrue(r.p50Ms() >= 0.2 && r.p50Ms() <= 20, "p50 near the 0.2 ms service time: " + r.line());
        assertOrdered(r);
        assertEquals(r.sent(), OpenLoop.decode(r.histogram()).getTotalCount(), "the encoded histogram holds every request");
        assertTrue(r.achievedWonPerSecond() <= 1000 * (1 + 1e-9), "never above won over the window: " + r.line());
        assertTrue(r.achievedWonPerSecond() > 500, r.line());
    }

    /**
     * The coordinated-omission control. One worker at 500 requests/s (one every 2 ms) on an
     * operation of 0.1 ms that stalls once for 300 ms: the arrival process keeps sending, so about
     * 150 requests queue behind the stall and each is late by the time it waited, from about 300 ms
     * down to nothing. Among the 1000 measured requests they are far more than the top 1%, so
     * p99 and p99.9 must show the stall. Measured from the actual start (the broken variant, a
     * closed loop's measurement), the same schedule shows one slow request and a fast p99.
     */
    @Test
    void aStallIsChargedToEveryRequestQueuedBehindItWhichMeasuringFromTheActualStartMisses() {
        OpenLoop.Result open = new OpenLoop(500, 1, Duration.ofMillis(200), Duration.ofSeconds(2)).run(stallOnce());
        OpenLoop.Result broken = new BrokenOpenLoop(500, 1, Duration.ofMillis(200), Duration.ofSeconds(2)).run(stallOnce());

        for (OpenLoop.Result r : new OpenLoop.Result[] {open, broken}) {
            assertEquals(1000, r.sent());
            assertEquals(1000, r.won());
            assertTrue(r.maxMs() >= 290, "both see the stalled request itself: " + r.line());
            assertTrue(r.late() >= 100, "about 150 requests queued behind the stall and started late: " + r.line());
            assertOrdered(r);
        }
        assertTrue(open.p99Ms() >= 100, "the queue behind the stall is in the p99: " + open.line());
        assertTrue(open.p999Ms() >= 100, "and in the p99.9: " + open.line());
        assertTrue(broken.p99Ms() < 100, "from the actual start the queue is invisible (coordinated omission): " + broken.line());
    }

    /** An operation of 0.1 ms whose 401st call (request 400: the 301st measured one) takes 300 ms. */
    private static OpenLoop.Op stallOnce() {
        AtomicInteger calls = new AtomicInteger();
        return worker -> {
            serve(calls.incrementAndGet() == 401 ? TimeUnit.MILLISECONDS.toNanos(300) : TimeUnit.MICROSECONDS.toNanos(100));
            return Outcome.WON;
        };
    }

    @Test
    void eachOutcomeLandsInItsOwnCounterAndOnlyWonCountsAsThroughput() {
        AtomicInteger calls = new AtomicInteger();
        // One worker, so call c is request c: requests 10..209 are measured, 40 of each residue mod 5.
        OpenLoop.Op op = worker -> {
            switch (calls.getAndIncrement() % 5) {
                case 0: return Outcome.WON;
                case 1: return Outcome.LOST;
                case 2: return Outcome.REFUSED;
                case 3: return Outcome.FAILED;
                default: throw new LeaseStoreException("database is locked (fake)", null);
            }
        };
        OpenLoop.Result r = new OpenLoop(1000, 1, MS_10, Duration.ofMillis(200)).run(op);

        assertEquals(200, r.sent());
        assertEquals(40, r.won());
        assertEquals(40, r.lost());
        assertEquals(40, r.refused());
        assertEquals(80, r.failed(), "a FAILED outcome and an exception are both failures");
        assertEquals(0, r.timedOut());
        assertEquals(r.sent(), sumOfOutcomes(r));
        assertEquals(r.sent(), OpenLoop.decode(r.histogram()).getTotalCount(), "the latency of every outcome is recorded");
        assertTrue(r.firstFailure().contains("database is locked (fake)"), r.firstFailure());
        assertTrue(r.achievedWonPerSecond() <= 40 / 0.2 * (1 + 1e-9), "only the 40 won count: " + r.line());
        assertTrue(r.achievedWonPerSecond() > 100, r.line());
    }

    /**
     * One request never returns on its own (it waits for a latch that the test opens only after
     * the run). The run must still return at the cutoff, and the stuck request must be in the result
     * as a failure charged at least the drain bound, not left out of the tail.
     */
    @Test
    void aRequestStuckPastTheDrainBoundIsCountedFailedAndChargedNotDropped() {
        CountDownLatch release = new CountDownLatch(1);
        OpenLoop.Op op = stuckAtCall(60, release);
        try {
            // 2 workers at 200/s: the second keeps serving while the first is stuck.
            OpenLoop loop = new OpenLoop(200, 2, Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofMillis(200));
            OpenLoop.Result r = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> loop.run(op));

            assertEquals(100, r.sent());
            assertEquals(99, r.won());
            assertEquals(1, r.failed());
            assertEquals(1, r.timedOut());
            assertEquals(r.sent(), sumOfOutcomes(r));
            assertTrue(r.maxMs() >= 200, "the stuck request is charged at least the drain bound: " + r.line());
            assertTrue(r.firstFailure().contains("drain"), r.firstFailure());
        } finally {
            release.countDown();
        }
    }

    /** An operation that wins at once, except its {@code n}th call, which waits until {@code release} opens. */
    static OpenLoop.Op stuckAtCall(int n, CountDownLatch release) {
        AtomicInteger calls = new AtomicInteger();
        return worker -> {
            if (calls.incrementAndGet() == n) {
                release.await();
            }
            return Outcome.WON;
        };
    }

    @Test
    void anErrorInTheOperationStopsTheRunAndIsRethrown() {
        AtomicInteger calls = new AtomicInteger();
        AssertionError planted = new AssertionError("planted");
        OpenLoop.Op op = worker -> {
            if (calls.incrementAndGet() == 5) {
                throw planted;
            }
            return Outcome.WON;
        };
        OpenLoop loop = new OpenLoop(1000, 2, MS_10, Duration.ofSeconds(5));
        AssertionError thrown = assertTimeoutPreemptively(Duration.ofSeconds(4),
                () -> assertThrows(AssertionError.class, () -> loop.run(op)), "the run stops at the error instead of running out its 5 s");
        assertSame(planted, thrown);
    }

    @Test
    void theClosedLoopCountsRequestsAndWonAndCannotExceedWhatTheServiceTimeAllows() {
        AtomicInteger calls = new AtomicInteger();
        OpenLoop.Op op = worker -> {
            serve(TimeUnit.MICROSECONDS.toNanos(200));
            return calls.incrementAndGet() % 2 == 0 ? Outcome.WON : Outcome.LOST;
        };
        OpenLoop.ClosedLoop c = OpenLoop.closedLoop(op, 2, Duration.ofMillis(300), Duration.ofSeconds(1));

        assertTrue(c.requests() > 0);
        assertEquals(calls.get(), c.requests(), "every completed request counts");
        assertTrue(Math.abs(c.won() - c.requests() / 2.0) <= 1, "half of them won: " + c);
        // 2 workers of at least 200 us each: at most 10 000 requests/s.
        assertTrue(c.requestsPerSecond() <= 10_000, c.line());
        assertEquals(c.won() / c.seconds(), c.wonPerSecond(), 1e-6);
    }

    @Test
    void badArgumentsAreRejectedNamingTheArgument() {
        Duration s = Duration.ofSeconds(1);
        OpenLoop.Op op = worker -> Outcome.WON;
        expect("rate", () -> new OpenLoop(0, 1, s, s));
        expect("rate", () -> new OpenLoop(-5, 1, s, s));
        expect("rate", () -> new OpenLoop(Double.NaN, 1, s, s));
        expect("threads", () -> new OpenLoop(100, 0, s, s));
        expect("warmup", () -> new OpenLoop(100, 1, Duration.ofMillis(-1), s));
        expect("warmup", () -> new OpenLoop(100, 1, null, s));
        expect("duration", () -> new OpenLoop(100, 1, s, Duration.ZERO));
        expect("duration", () -> new OpenLoop(100, 1, s, Duration.ofSeconds(-1)));
        expect("duration", () -> new OpenLoop(100, 1, s, null));
        expect("drain", () -> new OpenLoop(100, 1, s, s, Duration.ZERO));
        expect("rate x duration", () -> new OpenLoop(0.5, 1, s, s));
        expect("op", () -> new OpenLoop(100, 1, s, s).run(null));
        expect("op", () -> OpenLoop.closedLoop(null, 1, s, s));
        expect("threads", () -> OpenLoop.closedLoop(op, 0, s, s));
        expect("duration", () -> OpenLoop.closedLoop(op, 1, Duration.ZERO, s));
        // A warmup of zero is allowed: no warmup.
        assertNotNull(new OpenLoop(100, 1, Duration.ZERO, s));
    }

    private static void expect(String argument, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call, argument);
        assertTrue(e.getMessage().startsWith(argument + " "), "names " + argument + ": " + e.getMessage());
    }
}
