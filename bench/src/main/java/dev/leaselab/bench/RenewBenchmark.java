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

    /** Time stands still: each renewal moves {@code until} to the same far point, always live. */
    static final double NOW = 1.0;
    static final double TTL = 1.0e9;

    /** The lease that one thread holds; claimed once per trial, outside the measurement. */
    @State(Scope.Thread)
    public static class Lease {
        LeaseStore store;
        String job;
        long fence;

        @Setup(Level.Trial)
        public void claim(StoreTrial trial, ThreadParams thread) {
            job = "renew-" + thread.getThreadIndex();
            store = trial.store();
            store.enqueue(job);
            OptionalLong claimed = store.claim(job, Outcomes.ownerOf(thread.getThreadIndex()), NOW, TTL);
            fence = claimed.orElseThrow(() -> new IllegalStateException("could not claim " + job + " to renew it"));
        }
    }

    @Benchmark
    public boolean renew(Lease lease, Outcomes o) {
        o.mark();
        return o.accepted(() -> lease.store.renew(lease.job, o.owner(), lease.fence, NOW, TTL));
    }
}
