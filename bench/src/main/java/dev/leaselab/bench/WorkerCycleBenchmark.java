package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The life of a job as a worker sees it: claim a fresh job, renew the lease once, complete it.
 * One operation is one whole job, so the score is jobs per second. Fresh jobs are written before
 * each iteration (one transaction through plain JDBC), so enqueueing is not part of the cycle.
 * {@code won} counts finished jobs; a claim that finds the job held counts as {@code lost}, a
 * refused renew or complete as {@code refused}, an exception as {@code failed}. Run:
 * <pre>
 * java -jar bench/target/benchmarks.jar WorkerCycleBenchmark -t 8 -p storage=WAL_FULL -p strategy=IMMEDIATE,GROUP_COMMIT
 * ./with-postgres.sh java -jar bench/target/benchmarks.jar WorkerCycleBenchmark -t 8 -p storage=POSTGRESQL -p strategy=PG_ROW_LOCK
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class WorkerCycleBenchmark {

    static final double NOW = 1.0;
    static final double TTL = 60.0;
    /**
     * The renewal's moment, after the claim's: renewed at {@link #NOW} the lease would get the
     * {@code until} it already has, a write that SQLite skips (no WAL frame, no fsync).
     */
    static final double RENEW_AT = NOW + 1;

    /** The fresh jobs one thread works through in the coming iteration. */
    @State(Scope.Thread)
    public static class Fresh extends PreparedJobs.Mine {
        public Fresh() {
            super("cycle-", null, 0);
        }
    }

    @Benchmark
    public boolean cycle(Fresh fresh, Outcomes o) {
        o.mark();
        String job = fresh.take(o);
        LeaseStore store = fresh.store();
        return o.cycled(() -> claim(store, job, o.owner()), fence -> work(store, job, o.owner(), fence));
    }

    static OptionalLong claim(LeaseStore store, String job, String owner) {
        return store.claim(job, owner, NOW, TTL);
    }

    /** The rest of a claimed job's life: one renewal, then the completion. */
    static boolean work(LeaseStore store, String job, String owner, long fence) {
        return store.renew(job, owner, fence, RENEW_AT, TTL) && store.complete(job, owner, fence, RENEW_AT, "ok");
    }
}
