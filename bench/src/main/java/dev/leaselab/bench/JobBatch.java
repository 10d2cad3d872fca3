package dev.leaselab.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.infra.IterationParams;

/**
 * Jobs that one benchmark thread prepares before an iteration, so that the measured operation
 * does not include the work that makes it possible. (JMH sample 38 explains why a
 * {@code Level.Invocation} setup would distort operations this short instead.)
 *
 * <p>The batch is sized from the thread's own rate in the previous iteration, three times over, so
 * it lasts the whole iteration; only if the thread runs out anyway (in practice only in the first
 * warmup iteration) does it prepare more inside the measurement, which is counted as a refill in
 * the tally.
 *
 * <p>All threads' batches are written by {@link #prepareAll} from a benchmark-scoped iteration
 * setup, which JMH runs on one thread while the others wait. A thread-scoped setup would write
 * while threads that finished their own setup already run the benchmark in JMH's warm-up loop;
 * under {@code synchronous=FULL} at 8 threads such a writer starved past its one-minute busy
 * timeout and three forks of the baseline failed that way.
 */
final class JobBatch {

    /** A generous guess of one store's total rate, to size the first batch before any rate is known. */
    private static final double FIRST_GUESS_OPS_PER_SECOND = 60_000;
    private static final int MIN_BATCH = 2_000;
    private static final int MAX_BATCH = 2_000_000;

    private final String prefix;
    private final String owner;
    private final double until;
    private String[] ids = new String[0];
    private int next;
    private int generation;
    private long taken;
    private long startNanos;
    private double lastRate = -1;

    /**
     * @param prefix unique per thread, so threads never prepare the same id
     * @param owner null for fresh jobs, else the owner of a claim with fence 1 that lasts until {@code until}
     */
    JobBatch(String prefix, String owner, double until) {
        this.prefix = prefix;
        this.owner = owner;
        this.until = until;
    }

    /**
     * Prepares every thread's jobs for the next iteration, each sized from its thread's last rate.
     *
     * @param batches one per benchmark thread, indexed by JMH's thread index
     */
    static void prepareAll(JobBatch[] batches, BenchDb db, IterationParams iteration) {
        double seconds = iteration.getTime().convertTo(TimeUnit.MILLISECONDS) / 1e3;
        for (int i = 0; i < batches.length; i++) {
            if (batches[i] == null) {
                throw new IllegalStateException("benchmark thread " + i + " has no batch of jobs yet: its trial setup "
                        + "must come before the first iteration's");
            }
        }
        for (JobBatch batch : batches) {
            batch.prepare(db, seconds, batches.length);
        }
        long start = System.nanoTime();
        for (JobBatch batch : batches) {
            batch.startNanos = start;
        }
    }

    private void prepare(BenchDb db, double seconds, int threads) {
        double rate = lastRate >= 0 ? lastRate : FIRST_GUESS_OPS_PER_SECOND / Math.max(1, threads);
        int size = (int) Math.min(MAX_BATCH, Math.max(MIN_BATCH, 3 * rate * seconds));
        fill(db, size);
        taken = 0;
    }

    /** Marks the end of an iteration, so that the next batch can be sized from this one's rate. */
    void finish() {
        double seconds = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
        lastRate = taken / seconds;
    }

    /** The next prepared job; prepares more (a refill, counted in {@code o}) if the batch ran out. */
    String take(BenchDb db, Outcomes o) {
        if (next == ids.length) {
            o.refills++;
            fill(db, MIN_BATCH);
        }
        taken++;
        return ids[next++];
    }

    private void fill(BenchDb db, int count) {
        generation++;
        String[] fresh = new String[count];
        for (int i = 0; i < count; i++) {
            fresh[i] = prefix + "-" + generation + "-" + i;
        }
        db.insertJobs(fresh, owner, until);
        ids = fresh;
        next = 0;
    }
}
