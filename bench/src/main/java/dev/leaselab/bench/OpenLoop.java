package dev.leaselab.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.BitSet;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * An open-loop load driver: requests arrive at a fixed rate whatever the store does, and each
 * request's latency is measured from the moment it was <em>meant</em> to start.
 *
 * <p>Why not JMH's {@code SampleTime}: a JMH thread is a closed loop. When the store stalls for
 * 300 ms, the thread simply does not send the 150 requests that a client arriving every 2 ms would
 * have sent during those 300 ms, so the stall shows up as one slow sample among thousands of fast
 * ones and the p99 looks fine. That is <em>coordinated omission</em> (Gil Tene; the method of
 * HdrHistogram and wrk2): the measurement coordinates with the system under test and omits exactly
 * the samples that would have been bad. A real arrival process does not wait, so its requests
 * queue behind the stall, and each of them is late by as long as it queued.
 *
 * <p>What is measured here: request {@code i} has the intended start {@code t0 + i * (1e9 / rate)}
 * ns. {@code threads} workers take the next {@code i} from a shared counter, wait for its intended
 * start (parked for the bulk, a short spin at the end), run the operation, and record
 * {@code end - intendedStart} into an HdrHistogram (1 ns to 60 s, 3 significant digits). A request
 * that started late because every worker was busy is charged the wait: that is the point. The
 * latency of <em>every</em> outcome is recorded (a lost claim or a failure took time as well);
 * only {@link Outcome#WON} counts toward the achieved throughput. Requests whose intended start
 * falls in the warmup are run but not recorded; the measured window is the {@code rate * duration}
 * requests after it ({@link Result#sent()}).
 *
 * <p>Stopping on time: no request is intended after the measured window, and the workers start
 * queued ones until the window's end plus the drain bound (the cutoff). Every measured request
 * that has not completed by the cutoff, whether still queued or stuck in the operation, is counted
 * as {@link Outcome#FAILED} ({@link Result#timedOut()}) with the latency from its intended start to
 * the cutoff, which is at least the drain bound and is a lower bound of what it really took: a stall
 * is never dropped from the tail. The run returns at the cutoff at the latest; workers are daemon
 * threads, and one still stuck in the operation then is abandoned, and its late completion is
 * ignored.
 *
 * <p>A run can also keep its timeline ({@link #run(Op, Path)}): every measured request's intended
 * start, actual start, end and outcome, written to a file after the run. The times are
 * {@link System#nanoTime()}, which on Linux is one clock for every process on the host, so the
 * timelines of several processes ({@link MultiProcessMain}'s {@code --timeline}) line up.
 *
 * <p>From the command line, on SQLite:
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.OpenLoopMain --strategy GROUP_COMMIT --storage WAL_NORMAL \
 *     --threads 8 --load 0.5,0.8 --warmup 1s --duration 5s
 * </pre>
 *
 * <p>Not final for one reason: the test-only {@code BrokenOpenLoop} overrides
 * {@link #latencyOrigin} to measure from the actual start (coordinated omission), and the tests
 * check that it misses a stall that this class reports.
 */
class OpenLoop {

    /** What one request came to; the counters of {@link Outcomes}. */
    enum Outcome {
        /** The operation did what it was asked (a claim got a fence, the floor's update changed its row). */
        WON,
        /** A claim found the lease held by someone else. */
        LOST,
        /** A renew, complete or update was answered no. */
        REFUSED,
        /** The operation threw (for instance {@code LeaseStoreException}), or had not completed by the cutoff. */
        FAILED
    }

    /** One request: run by worker {@code worker} (0 to threads - 1), so that it can use that worker's own resources. */
    @FunctionalInterface
    interface Op {
        /**
         * Runs one request. An exception (or a {@code null} outcome) is counted as {@link Outcome#FAILED};
         * an {@link Error} stops the run and is rethrown by {@link OpenLoop#run}.
         */
        Outcome attempt(int worker) throws Exception;
    }

    /** The largest latency the histogram tells apart; longer ones are recorded as this. */
    static final long HIGHEST_TRACKABLE_NANOS = TimeUnit.SECONDS.toNanos(60);
    static final int SIGNIFICANT_DIGITS = 3;
    /** A request that started this much after its intended start is counted as late: the workers did not keep up. */
    static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    static final Duration DEFAULT_DRAIN = Duration.ofSeconds(2);
    /**
     * The last stretch before an intended start is spun, not parked: {@code parkNanos} wakes up tens
     * of microseconds late on Linux (timer slack), which at 20k requests/s would be most of an
     * interval. Spinning longer than that would take CPU from the store on a 2-core machine.
     */
    private static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /**
     * The most measured requests a run keeps a timeline of: 25 bytes each, so at most 250 MB of a
     * worker's heap (by default a quarter of the machine's memory, 6 GiB here); 10 s at 100,000 requests/s is a million.
     */
    static final long TIMELINE_MAX_REQUESTS = 10_000_000;
    /** The header of a timeline file; {@link OpenLoopTimeline} reads it back. */
    static final String TIMELINE_HEADER = "request\tintended_ns\tstart_ns\tend_ns\toutcome";
    /** A timeline's outcome for a request that had not completed by the cutoff: counted as {@link Outcome#FAILED}. */
    static final String TIMED_OUT = "TIMED_OUT";

    private final double rate;
    private final int threads;
    private final long warmupNanos;
    private final long durationNanos;
    private final long drainNanos;

    /**
     * @param rate requests per second, above 0
     * @param threads workers, at least 1
     * @param warmup run but not recorded; zero for none, never negative
     * @param duration the measured window, above 0
     * @param drain how long after the window the driver waits for requests still queued or in flight, above 0
     * @throws IllegalArgumentException naming the argument that is out of range
     */
    OpenLoop(double rate, int threads, Duration warmup, Duration duration, Duration drain) {
        if (!(rate > 0) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("rate must be a finite number of requests per second above 0, was " + rate);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
        this.rate = rate;
        this.threads = threads;
        this.warmupNanos = nanos("warmup", warmup, true);
        this.durationNanos = nanos("duration", duration, false);
        this.drainNanos = nanos("drain", drain, false);
        double measured = scheduledInWindow();
        if (measured < 1) {
            throw new IllegalArgumentException("rate x duration must schedule at least one request, was " + rate + "/s x " + duration);
        }
        if (measured > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("rate x duration schedules " + (long) measured
                    + " requests, more than one run can track: lower the rate or the duration");
        }
    }

    OpenLoop(double rate, int threads, Duration warmup, Duration duration) {
        this(rate, threads, warmup, duration, DEFAULT_DRAIN);
    }

    private static long nanos(String name, Duration d, boolean zeroAllowed) {
        if (d == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (d.isNegative() || (!zeroAllowed && d.isZero())) {
            throw new IllegalArgumentException(name + " must be " + (zeroAllowed ? "0 or more" : "above 0") + ", was " + d);
        }
        return d.toNanos();
    }

    private double intervalNanos() {
        return 1e9 / rate;
    }

    /**
     * Where a request's latency is measured from: its intended start. Only the test-only broken
     * variant returns {@code actualStart}, which is how a closed loop measures.
     */
    long latencyOrigin(long intendedStart, long actualStart) {
        return intendedStart;
    }

    /**
     * Runs the warmup and the measured window and returns at the cutoff at the latest.
     *
     * @throws IllegalArgumentException if {@code op} is null
     */
    Result run(Op op) {
        if (op == null) {
            throw new IllegalArgumentException("op must not be null");
        }
        return new Schedule(op, false).run();
    }

    /**
     * The same, and then writes the measured requests to {@code timeline}, one line each in the
     * order of their intended starts, after {@link #TIMELINE_HEADER}: the request's number in the
     * measured window, its intended start, actual start and end ({@link System#nanoTime()} ns),
     * and its outcome. A request not completed by the cutoff has the end -1 and the outcome
     * {@value #TIMED_OUT}, and the start -1 if it never started.
     *
     * @throws IllegalArgumentException if {@code op} is null, or the run measures more than
     *     {@link #TIMELINE_MAX_REQUESTS} requests
     * @throws NullPointerException if {@code timeline} is null
     * @throws UncheckedIOException if the file cannot be written
     */
    Result run(Op op, Path timeline) {
        if (op == null) {
            throw new IllegalArgumentException("op must not be null");
        }
        java.util.Objects.requireNonNull(timeline, "timeline");
        long measured = measuredRequests();
        if (measured > TIMELINE_MAX_REQUESTS) {
            throw new IllegalArgumentException("a timeline keeps at most " + TIMELINE_MAX_REQUESTS + " requests, and rate x duration "
                    + "schedules " + measured + ": lower the rate or the duration");
        }
        Schedule schedule = new Schedule(op, true);
        Result result = schedule.run();
        schedule.writeTimeline(timeline);
        return result;
    }

    /** How many requests the measured window schedules. */
    long measuredRequests() {
        return (long) scheduledInWindow();
    }

    /** The same in a double, which the constructor checks before it is known to fit a long. */
    private double scheduledInWindow() {
        return Math.ceil((warmupNanos + durationNanos) / intervalNanos()) - Math.ceil(warmupNanos / intervalNanos());
    }

    /** The state of one run: the schedule, the workers and what they recorded. */
    private final class Schedule {
        private final Op op;
        private final double interval = intervalNanos();
        /** First request of the measured window, and one past its last. */
        private final long firstMeasured = (long) Math.ceil(warmupNanos / interval);
        private final long end = (long) Math.ceil((warmupNanos + durationNanos) / interval);
        private final AtomicLong next = new AtomicLong();
        private final CountDownLatch ready = new CountDownLatch(threads);
        private final CountDownLatch go = new CountDownLatch(1);
        private final AtomicReference<Throwable> fatal = new AtomicReference<>();
        /**
         * The measured request each worker is running, and when it started, so that a request
         * stuck at the cutoff is charged from its intended start and known to have started on time or
         * not. Written start first, index second; read index first under the lock.
         */
        private final AtomicLongArray inFlightIndex = new AtomicLongArray(threads);
        private final AtomicLongArray inFlightBegan = new AtomicLongArray(threads);
        private volatile long t0;
        private volatile boolean stopped;
        private long windowStart;
        private long cutoff;

        // Guarded by this Schedule's lock rather than per-thread histograms or a Recorder: the cutoff
        // must see a consistent set of settled requests, and a worker finishing a stuck request after
        // the cutoff must not count it a second time. The lock is taken after a request's end time
        // was read, so it never adds to that request's latency (only, briefly, to the worker's next start).
        private final Histogram histogram = new Histogram(HIGHEST_TRACKABLE_NANOS, SIGNIFICANT_DIGITS);
        private final BitSet settled;
        private final long[] counts = new long[Outcome.values().length];
        private long late;
        private long timedOut;
        /** The latest measured completion; starts at the window's start, so a span is never negative. */
        private long lastEnd;
        private boolean closed;
        private String firstFailure;
        /** With a timeline, per measured request: its actual start and end, and its outcome's ordinal (-1: timed out). */
        private final long[] startedAt;
        private final long[] endedAt;
        private final byte[] outcomeOf;

        Schedule(Op op, boolean timeline) {
            this.op = op;
            this.settled = new BitSet((int) (end - firstMeasured));
            int measured = timeline ? (int) (end - firstMeasured) : 0;
            this.startedAt = new long[measured];
            this.endedAt = new long[measured];
            this.outcomeOf = new byte[measured];
            for (int w = 0; w < threads; w++) {
                inFlightIndex.set(w, -1);
            }
        }

        private long intended(long i) {
            return t0 + (long) (i * interval);
        }

        Result run() {
            Thread[] workers = new Thread[threads];
            for (int w = 0; w < threads; w++) {
                int worker = w;
                workers[w] = new Thread(() -> work(worker), "open-loop-" + w);
                // A worker stuck in the operation past the cutoff is abandoned; it must not keep the JVM alive.
                workers[w].setDaemon(true);
                workers[w].start();
            }
            try {
                ready.await();
                // A little lead, so that every worker is already waiting when request 0 is due.
                t0 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2);
                windowStart = t0 + warmupNanos;
                cutoff = windowStart + durationNanos + drainNanos;
                synchronized (this) {
                    lastEnd = windowStart;
                }
                go.countDown();
                for (Thread worker : workers) {
                    long left = cutoff - System.nanoTime();
                    if (left > 0) {
                        TimeUnit.NANOSECONDS.timedJoin(worker, left);
                    }
                }
            } catch (InterruptedException e) {
                stopped = true;
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the open loop ran", e);
            }
            stopped = true;
            Throwable error = fatal.get();
            if (error instanceof Error) {
                throw (Error) error;
            }
            if (error != null) {
                throw new IllegalStateException("the operation threw a Throwable that is neither an Exception nor an Error", error);
            }
            closeAtCutoff();
            return result();
        }

        private void work(int w) {
            ready.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                return;
            }
            while (!stopped) {
                long i = next.getAndIncrement();
                if (i >= end) {
                    return;
                }
                long intended = intended(i);
                waitUntil(intended);
                long began = System.nanoTime();
                if (stopped || began - cutoff >= 0) {
                    // Not issued after the cutoff: the cutoff counts every request left.
                    return;
                }
                boolean measured = i >= firstMeasured;
                if (measured) {
                    inFlightBegan.set(w, began);
                    inFlightIndex.set(w, i);
                }
                Outcome outcome;
                String failure = null;
                try {
                    outcome = op.attempt(w);
                    if (outcome == null) {
                        outcome = Outcome.FAILED;
                        failure = "the operation returned no outcome";
                    }
                } catch (Exception e) {
                    outcome = Outcome.FAILED;
                    failure = e.toString();
                } catch (Throwable t) {
                    fatal.compareAndSet(null, t);
                    stopped = true;
                    return;
                }
                long ended = System.nanoTime();
                if (measured) {
                    settle(i - firstMeasured, intended, began, ended, outcome, failure);
                }
            }
        }

        private void waitUntil(long deadline) {
            for (long left; (left = deadline - System.nanoTime()) > 0 && !stopped; ) {
                if (left > SPIN_NANOS) {
                    LockSupport.parkNanos(left - SPIN_NANOS);
                } else {
                    Thread.onSpinWait();
                }
            }
        }

        private synchronized void settle(long k, long intended, long began, long ended, Outcome outcome, String failure) {
            if (closed || settled.get((int) k)) {
                return;
            }
            settled.set((int) k);
            if (outcomeOf.length > 0) {
                startedAt[(int) k] = began;
                endedAt[(int) k] = ended;
                outcomeOf[(int) k] = (byte) outcome.ordinal();
            }
            counts[outcome.ordinal()]++;
            record(ended - latencyOrigin(intended, began));
            if (began - intended > LATE_NANOS) {
                late++;
            }
            if (ended - lastEnd > 0) {
                lastEnd = ended;
            }
            if (failure != null && firstFailure == null) {
                firstFailure = failure;
            }
        }

        /** Counts every measured request that had not completed by the cutoff as a failure charged up to the cutoff. */
        private synchronized void closeAtCutoff() {
            closed = true;
            int measured = (int) (end - firstMeasured);
            for (int k = settled.nextClearBit(0); k < measured; k = settled.nextClearBit(k + 1)) {
                long i = firstMeasured + k;
                long intended = intended(i);
                long began = cutoff;
                boolean started = false;
                for (int w = 0; w < threads; w++) {
                    if (inFlightIndex.get(w) == i) {
                        began = inFlightBegan.get(w);
                        started = true;
                    }
                }
                settled.set(k);
                if (outcomeOf.length > 0) {
                    startedAt[k] = started ? began : -1;
                    endedAt[k] = -1;
                    outcomeOf[k] = -1;
                }
                counts[Outcome.FAILED.ordinal()]++;
                timedOut++;
                record(cutoff - latencyOrigin(intended, began));
                if (began - intended > LATE_NANOS) {
                    late++;
                }
                lastEnd = cutoff;
                if (firstFailure == null) {
                    firstFailure = "not completed within the drain bound of " + Duration.ofNanos(drainNanos) + " after the window";
                }
            }
        }

        /** Writes the timeline; only after {@link #closeAtCutoff}, when every measured request is settled. */
        private synchronized void writeTimeline(Path file) {
            Outcome[] outcomes = Outcome.values();
            try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
                out.write(TIMELINE_HEADER);
                out.newLine();
                for (int k = 0; k < outcomeOf.length; k++) {
                    out.write(k + "\t" + intended(firstMeasured + k) + "\t" + startedAt[k] + "\t" + endedAt[k] + "\t"
                            + (outcomeOf[k] < 0 ? TIMED_OUT : outcomes[outcomeOf[k]].name()));
                    out.newLine();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("could not write the timeline to " + file, e);
            }
        }

        private void record(long latency) {
            histogram.recordValue(Math.max(0, Math.min(latency, HIGHEST_TRACKABLE_NANOS)));
        }

        private synchronized Result result() {
            long sent = end - firstMeasured;
            long windowEnd = windowStart + durationNanos;
            double spanSeconds = Math.max(lastEnd - windowStart, windowEnd - windowStart) / 1e9;
            long won = counts[Outcome.WON.ordinal()];
            return new Result(rate, threads, warmupNanos / 1e9, durationNanos / 1e9, drainNanos / 1e9, won / spanSeconds,
                    sent, won, counts[Outcome.LOST.ordinal()], counts[Outcome.REFUSED.ordinal()],
                    counts[Outcome.FAILED.ordinal()], timedOut, late,
                    millis(histogram.getValueAtPercentile(50)), millis(histogram.getValueAtPercentile(90)),
                    millis(histogram.getValueAtPercentile(99)), millis(histogram.getValueAtPercentile(99.9)),
                    millis(histogram.getMaxValue()), firstFailure, encode(histogram));
        }
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    /** HdrHistogram's compressed form in base64: {@code Histogram.decodeFromCompressedByteBuffer} reads it back. */
    static String encode(Histogram histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        byte[] bytes = new byte[length];
        buffer.flip();
        buffer.get(bytes, 0, length);
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** Reads back {@link Result#histogram()}. */
    static Histogram decode(String base64) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), HIGHEST_TRACKABLE_NANOS);
        } catch (java.util.zip.DataFormatException e) {
            throw new IllegalArgumentException("not a compressed HdrHistogram", e);
        }
    }

    /**
     * One open-loop run. Latencies (ms) are from each request's intended start, over every outcome.
     *
     * @param rateAsked requests per second the schedule issued
     * @param achievedWonPerSecond {@code won} over the measured window, or up to the last measured
     *     completion if that came later (so a backlog drained after the window does not inflate it)
     * @param sent the requests of the measured window ({@code rate * duration}); each ends in exactly
     *     one of won, lost, refused, failed
     * @param timedOut those of {@code failed} that had not completed by the cutoff (still queued or stuck)
     * @param late requests that started more than 1 ms after their intended start, or not by the cutoff:
     *     many mean the workers could not keep up with the rate
     * @param firstFailure what the first failure was, or null
     * @param histogram the latency histogram in ns, HdrHistogram's compressed form in base64 ({@link #decode})
     */
    record Result(double rateAsked, int threads, double warmupSeconds, double durationSeconds, double drainSeconds,
                  double achievedWonPerSecond, long sent, long won, long lost, long refused, long failed, long timedOut,
                  long late, double p50Ms, double p90Ms, double p99Ms, double p999Ms, double maxMs, String firstFailure,
                  String histogram) {

        /** The one line the command prints per run. */
        String line() {
            return String.format(Locale.ROOT,
                    "rate %.0f/s: p50 %s  p90 %s  p99 %s  p99.9 %s  max %s ms | %.0f won/s | sent %d: won %d, lost %d, "
                            + "refused %d, failed %d (timed out %d) | %d started >1 ms late",
                    rateAsked, ms(p50Ms), ms(p90Ms), ms(p99Ms), ms(p999Ms), ms(maxMs), achievedWonPerSecond, sent, won, lost,
                    refused, failed, timedOut, late);
        }

        private static String ms(double ms) {
            return String.format(Locale.ROOT, ms < 10 ? "%.3f" : ms < 100 ? "%.1f" : "%.0f", ms);
        }
    }

    /**
     * The closed-loop maximum that a load is a fraction of: {@code threads} workers run the
     * operation back to back for {@code duration}, as a JMH thread does. Workers stop starting
     * operations at the end of {@code duration}; the call returns by then plus {@code drain}.
     */
    static ClosedLoop closedLoop(Op op, int threads, Duration duration, Duration drain) {
        if (op == null) {
            throw new IllegalArgumentException("op must not be null");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
        long durationNanos = nanos("duration", duration, false);
        long drainNanos = nanos("drain", drain, false);
        AtomicLong requests = new AtomicLong();
        AtomicLong won = new AtomicLong();
        AtomicLong lastEnd = new AtomicLong();
        AtomicReference<Throwable> fatal = new AtomicReference<>();
        long start = System.nanoTime();
        long deadline = start + durationNanos;
        Thread[] workers = new Thread[threads];
        for (int w = 0; w < threads; w++) {
            int worker = w;
            workers[w] = new Thread(() -> {
                while (System.nanoTime() - deadline < 0 && fatal.get() == null) {
                    Outcome outcome;
                    try {
                        outcome = op.attempt(worker);
                    } catch (Exception e) {
                        outcome = Outcome.FAILED;
                    } catch (Throwable t) {
                        fatal.compareAndSet(null, t);
                        return;
                    }
                    requests.incrementAndGet();
                    if (outcome == Outcome.WON) {
                        won.incrementAndGet();
                    }
                    lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
                }
            }, "closed-loop-" + w);
            workers[w].setDaemon(true);
            workers[w].start();
        }
        try {
            for (Thread worker : workers) {
                long left = deadline + drainNanos - System.nanoTime();
                if (left > 0) {
                    TimeUnit.NANOSECONDS.timedJoin(worker, left);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the closed loop ran", e);
        }
        Throwable error = fatal.get();
        if (error instanceof Error) {
            throw (Error) error;
        }
        if (error != null) {
            throw new IllegalStateException("the operation threw a Throwable that is neither an Exception nor an Error", error);
        }
        double seconds = Math.max(lastEnd.get() - start, durationNanos) / 1e9;
        return new ClosedLoop(threads, seconds, requests.get(), won.get(), requests.get() / seconds, won.get() / seconds);
    }

    /** The closed-loop maximum: every completed request counts toward {@code requestsPerSecond}, won ones toward {@code wonPerSecond}. */
    record ClosedLoop(int threads, double seconds, long requests, long won, double requestsPerSecond, double wonPerSecond) {
        String line() {
            return String.format(Locale.ROOT, "closed loop: %.0f requests/s (%.0f won/s) with %d threads over %.1f s",
                    requestsPerSecond, wonPerSecond, threads, seconds);
        }
    }
}
