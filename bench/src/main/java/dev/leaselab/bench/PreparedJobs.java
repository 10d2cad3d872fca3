package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import java.util.function.IntFunction;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Jobs written before each iteration for every benchmark thread ({@link JobBatch}), for the
 * benchmarks whose operation needs a row of its own: the complete benchmark and the worker cycle.
 * One thread writes every thread's batch in a benchmark-scoped iteration setup while the others
 * wait, and finished rows are deleted first so that the table does not grow.
 *
 * <p>A benchmark says which rows its threads get by subclassing {@link Mine}, the thread's share.
 */
@State(Scope.Benchmark)
public class PreparedJobs {

    private BenchDb db;
    private JobBatch[] batches;

    @Setup(Level.Trial)
    public void open(StoreTrial trial, BenchmarkParams params) {
        db = trial.db();
        batches = new JobBatch[params.getThreads()];
    }

    /**
     * Runs on one thread while the others wait: no thread is running the benchmark meanwhile. JMH
     * runs every thread's trial setups (so every {@link Mine#join}) before any iteration setup.
     */
    @Setup(Level.Iteration)
    public void sweepAndPrepare(IterationParams iteration) {
        db.deleteDoneJobs();
        JobBatch.prepareAll(batches, db, iteration);
    }

    /** The jobs one thread works through in the coming iteration. */
    @State(Scope.Thread)
    public abstract static class Mine {

        private final String prefix;
        private final IntFunction<String> owner;
        private final double until;
        private BenchDb db;
        private JobBatch batch;
        private String ownerName;

        /**
         * @param prefix the ids of thread {@code i} start with {@code prefix + i}
         * @param owner null for fresh jobs, else thread {@code i}'s jobs are held by {@code owner.apply(i)}
         *     with fence 1 until {@code until}, exactly as a claim leaves them
         */
        protected Mine(String prefix, IntFunction<String> owner, double until) {
            this.prefix = prefix;
            this.owner = owner;
            this.until = until;
        }

        @Setup(Level.Trial)
        public void join(PreparedJobs jobs, ThreadParams thread) {
            int index = thread.getThreadIndex();
            ownerName = owner == null ? null : owner.apply(index);
            batch = new JobBatch(prefix + index, ownerName, until);
            jobs.batches[index] = batch;
            db = jobs.db;
        }

        /** Marks the end of the thread's iteration, so that its next batch is sized from this one's rate. */
        @TearDown(Level.Iteration)
        public void finish() {
            batch.finish();
        }

        /** The next prepared job; prepares more (a refill, counted in {@code o}) if the batch ran out. */
        String take(Outcomes o) {
            return batch.take(db, o);
        }

        /** The owner of the prepared jobs, or null for fresh ones. */
        String owner() {
            return ownerName;
        }

        LeaseStore store() {
            return db.store();
        }
    }
}
