package dev.leaselab.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.profile.ProfilerException;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler that reports how fast each benchmark thread's CPU ran SQLite at the moment of each
 * iteration: every thread times the floor's statement ({@link FloorBenchmark#UPDATE}) on a private
 * {@code WAL_NORMAL} database for a few milliseconds right before and right after its iteration
 * ({@link ReferenceLoop}, run from {@link Outcomes}), and this profiler reports the geometric mean
 * over threads as the secondary result {@value #LABEL} (updates per second) of that iteration.
 *
 * <p>Why: on this machine (a 2-core VM) one CPU runs SQLite about 30% slower than the other (a
 * whole JVM pinned with {@code taskset}, five runs on each CPU in turn: 30-35k claims/s on CPU 0,
 * 44-49k on CPU 1, once falling to 32k at the end of a run), and the scheduler moves a benchmark thread between them every few seconds or keeps it
 * for a whole fork. Two runs of the same code then differ by up to 30%, more than the 25%
 * slowdown the gate must catch. A reference timed on the measured thread itself moves with it, so
 * the gate ({@link Gate}) divides each iteration's score by the reference around it, when both
 * runs carry one. It is timed on the benchmark threads and not here because this profiler runs on
 * JMH's control thread, which may sit on the other CPU.
 *
 * <p>What it cannot see: a change that slows SQLite itself (a new sqlite-jdbc) moves the reference
 * too (the gate's {@code machine} column shows it, and {@code compare --raw} compares raw scores);
 * it measures CPU and kernel speed, not the disk, so fsync-bound rows keep their disk noise; and a
 * thread that moves to the other CPU in the middle of an iteration gets a reference of half one,
 * half the other. The runner turns it on for every fork; with JMH's own command line:
 * {@code -prof dev.leaselab.bench.MachineReference:millis=50}.
 */
public final class MachineReference implements InternalProfiler {

    /** The label of the secondary result, in JMH's JSON under {@code secondaryMetrics}. */
    static final String LABEL = "reference";
    /** The default length of each of the two windows around an iteration. */
    static final int DEFAULT_MILLIS = 50;

    /** The window the benchmark threads time; 0 while no profiler is on in this JVM. */
    private static volatile long windowNanos;
    private static final List<Double> MEASURED = new ArrayList<>();

    /** JMH's constructor, in the fork: {@code millis=N} sets the length of each window (default {@value #DEFAULT_MILLIS}). */
    public MachineReference(String options) throws ProfilerException {
        int millis = DEFAULT_MILLIS;
        if (options != null && !options.isBlank()) {
            String o = options.trim();
            if (!o.startsWith("millis=")) {
                throw new ProfilerException("unknown option '" + o + "' (the only option is millis=N)");
            }
            try {
                millis = Integer.parseInt(o.substring("millis=".length()));
            } catch (NumberFormatException e) {
                throw new ProfilerException("millis must be a whole number of milliseconds: " + o);
            }
            if (millis < 1) {
                throw new ProfilerException("millis must be at least 1: " + o);
            }
        }
        windowNanos = millis * 1_000_000L;
    }

    /** The window each benchmark thread times before and after its iteration, or 0 for none. */
    static long windowNanos() {
        return windowNanos;
    }

    /** A benchmark thread's reference for the iteration it just ended. */
    static void record(double updatesPerSecond) {
        synchronized (MEASURED) {
            MEASURED.add(updatesPerSecond);
        }
    }

    @Override
    public String getDescription() {
        return "the floor statement on a private WAL_NORMAL database, timed by every benchmark thread around each iteration";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        synchronized (MEASURED) {
            MEASURED.clear();
        }
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
                                                       IterationResult result) {
        double logSum = 0;
        int n;
        synchronized (MEASURED) {
            n = MEASURED.size();
            for (double v : MEASURED) {
                logSum += Math.log(v);
            }
            MEASURED.clear();
        }
        if (n == 0) {
            return List.of();
        }
        return List.of(new ScalarResult(LABEL, Math.exp(logSum / n), "ops/s", AggregationPolicy.AVG));
    }
}
