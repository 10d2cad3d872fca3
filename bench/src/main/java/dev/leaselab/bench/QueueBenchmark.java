package dev.leaselab.bench;

import dev.leaselab.lease.Completion;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;

/**
 * The store as a queue: every thread takes the next free job with {@code claimNext} and completes
 * it, all threads on one queue that is filled before each iteration. {@link #one} takes one job per
 * call, {@link #batch} up to {@value #BATCH} and completes them one by one, {@link #batchAll} takes
 * as many and completes them in one {@code completeAll} (one transaction, one commit). The report's
 * throughput counts {@code won}, the jobs completed, so all three methods are in jobs per second
 * (JMH's own score counts calls). A call that
 * finds the queue empty is {@code lost} and refills it (counted in the tally as a refill), a
 * refused completion is {@code refused}, an exception {@code failed}. Run:
 * <pre>
 * java -jar bench/target/benchmarks.jar QueueBenchmark -t 8 -p storage=WAL_FULL -p strategy=IMMEDIATE,CONDITIONAL_UPDATE,GROUP_COMMIT
 * ./with-postgres.sh java -jar bench/target/benchmarks.jar QueueBenchmark -t 8 -p storage=POSTGRESQL -p strategy=PG_ROW_LOCK,PG_CONDITIONAL_UPDATE
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class QueueBenchmark {

    static final double NOW = 1.0;
    static final double TTL = 60.0;
    static final int BATCH = 16;

    /**
     * The shared queue. Before each iteration (one thread, the others waiting) the done jobs are
     * deleted and fresh ones added until the queue holds three times what the threads took in the
     * previous iteration, so that it lasts the iteration; the clock stands still at {@value #NOW},
     * so a job that was handed out and not completed stays held and is never counted as queued.
     */
    @State(Scope.Benchmark)
    public static class Queue {

        private static final double FIRST_GUESS_JOBS_PER_SECOND = 20_000;
        private static final int MIN_FILL = 2_000;
        private static final int MAX_QUEUED = 2_000_000;

        private BenchDb db;
        private LeaseStore store;
        private final AtomicLong handedOut = new AtomicLong();
        private long inserted;
        private int generation;
        private long startNanos;
        private long handedOutAtStart;
        private double lastRate = -1;

        @Setup(Level.Trial)
        public void open(StoreTrial trial) {
            db = trial.db();
            store = trial.store();
        }

        @Setup(Level.Iteration)
        public void fill(IterationParams iteration) {
            db.deleteDoneJobs();
            double seconds = iteration.getTime().convertTo(TimeUnit.MILLISECONDS) / 1e3;
            double rate = lastRate >= 0 ? lastRate : FIRST_GUESS_JOBS_PER_SECOND;
            long wanted = (long) Math.min(MAX_QUEUED, Math.max(MIN_FILL, 3 * rate * seconds));
            long queued = inserted - handedOut.get();
            if (queued < wanted) {
                insert((int) (wanted - queued));
            }
            handedOutAtStart = handedOut.get();
            startNanos = System.nanoTime();
        }

        @TearDown(Level.Iteration)
        public void measureRate() {
            double seconds = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
            lastRate = (handedOut.get() - handedOutAtStart) / seconds;
        }

        /** Refills a queue that ran dry inside the measurement; rare once the fill is sized from a rate. */
        synchronized void refill(Outcomes o) {
            if (inserted - handedOut.get() <= 0) {
                o.refills++;
                insert(MIN_FILL);
            }
        }

        private synchronized void insert(int count) {
            generation++;
            String[] ids = new String[count];
            for (int i = 0; i < count; i++) {
                ids[i] = "queue-" + generation + "-" + i;
            }
            db.insertJobs(ids, null, 0);
            inserted += count;
        }

        int drain(Outcomes o, int max) {
            o.mark();
            return refillIfDry(o, o.drained(() -> next(o, max),
                    lease -> store.complete(lease.jobId(), lease.owner(), lease.fence(), NOW, "ok")));
        }

        int drainTogether(Outcomes o, int max) {
            o.mark();
            return refillIfDry(o, o.drainedTogether(() -> next(o, max), leases -> store.completeAll(
                    leases.stream().map(l -> new Completion(l.jobId(), l.owner(), l.fence(), "ok")).toList(), NOW)));
        }

        private List<Lease> next(Outcomes o, int max) {
            List<Lease> leases = store.claimNext(o.owner(), NOW, TTL, max);
            handedOut.addAndGet(leases.size());
            return leases;
        }

        private int refillIfDry(Outcomes o, int finished) {
            if (finished == 0) {
                refill(o);
            }
            return finished;
        }
    }

    /** One job per call: {@code claimNext(owner, now, ttl)}, then its complete. */
    @Benchmark
    public int one(Queue queue, Outcomes o) {
        return queue.drain(o, 1);
    }

    /** Up to {@value #BATCH} jobs per call: {@code claimNext(owner, now, ttl, 16)}, then a complete for each. */
    @Benchmark
    public int batch(Queue queue, Outcomes o) {
        return queue.drain(o, BATCH);
    }

    /** Up to {@value #BATCH} jobs per call: {@code claimNext(owner, now, ttl, 16)}, then one {@code completeAll} of them. */
    @Benchmark
    public int batchAll(Queue queue, Outcomes o) {
        return queue.drainTogether(o, BATCH);
    }
}
