package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Renewals: each thread renews its own live lease over and over, as a worker does while it runs a
 * long job. The rows never collide, so the contention measured is on the database (SQLite has one
 * writer at a time; PostgreSQL locks rows, so there it is the commits' WAL flushes), not on a row.
 * Every renewal must be accepted; a {@code refused} one would mean the lease was lost, and a
 * {@code failed} one is an exception. Neither counts as throughput. Run:
 * <pre>
 * java -jar bench/target/benchmarks.jar RenewBenchmark -t 4 -p storage=WAL_NORMAL -p strategy=IMMEDIATE,GROUP_COMMIT
 * ./with-postgres.sh java -jar bench/target/benchmarks.jar RenewBenchmark -t 4 -p storage=POSTGRESQL -p strategy=PG_ROW_LOCK
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RenewBenchmark {

    /** The claim's moment; each renewal is one step later than the one before. */
    static final double NOW = 1.0;
    /** Far longer than a trial's renewals, so the lease is always live. */
    static final double TTL = 1.0e9;

    /** The lease that one thread holds; claimed once per trial, outside the measurement. */
    @State(Scope.Thread)
    public static class Lease {
        LeaseStore store;
        String job;
        long fence;
        /** This thread's clock: one step per renewal. */
        double now = NOW;

        @Setup(Level.Trial)
        public void claim(StoreTrial trial, ThreadParams thread) {
            job = "renew-" + thread.getThreadIndex();
            store = trial.store();
            store.enqueue(job);
            OptionalLong claimed = store.claim(job, Outcomes.ownerOf(thread.getThreadIndex()), NOW, TTL);
            fence = claimed.orElseThrow(() -> new IllegalStateException("could not claim " + job + " to renew it"));
        }

        /**
         * Renews at the next moment, so that {@code until} moves forward as a running worker's does.
         * Renewed at one moment over and over, the row would get the bytes it already holds, and
         * SQLite skips such a write: nothing reaches the WAL, and the commit waits for no fsync (the
         * first full baseline measured renew at 27x the floor on WAL_FULL that way).
         */
        boolean renewNext(String owner) {
            now += 1;
            return store.renew(job, owner, fence, now, TTL);
        }
    }

    @Benchmark
    public boolean renew(Lease lease, Outcomes o) {
        o.mark();
        return o.accepted(() -> lease.renewNext(o.owner()));
    }
}
