package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import java.util.concurrent.ThreadLocalRandom;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Claims under contention: the operation every worker of a queue runs first, and the one whose
 * read and write must happen under one lock.
 *
 * <p>{@link #hotJob}: all threads claim the same job. Time is a shared counter that advances by
 * one lease length ({@value #TTL}) per attempt, so every attempt finds the previous lease expired
 * and is a real write that races the other threads for SQLite's write lock (PostgreSQL's row lock). An attempt whose
 * {@code now} was taken before a later attempt committed finds that later lease live and loses
 * ({@code lost}): the race is decided in the store, not in the benchmark.
 *
 * <p>{@link #manyJobs}: each attempt claims one of {@value #JOBS} jobs at random with the same
 * clock, so threads rarely meet on a row and contend only for the database.
 *
 * <p>Throughput in the report counts {@code won} claims; {@code failed} (an exception such as
 * {@code SQLITE_BUSY} past the busy timeout, or a PostgreSQL statement cancelled after the statement
 * timeout of the same second) never counts. Every strategy runs on the storages of its own engine
 * ({@link Storage#engine()}): {@code java -jar benchmarks.jar} runs JMH once per engine
 * ({@link JmhLauncher}), so {@code -p} may name values of both engines, or none. Run:
 * <pre>
 * java -jar bench/target/benchmarks.jar ClaimBenchmark -t 8 -p storage=WAL_NORMAL -p strategy=IMMEDIATE,CONDITIONAL_UPDATE
 * java -jar bench/target/benchmarks.jar 'ClaimBenchmark.hotJob' -t 8 -bm sample -rf json -p storage=WAL_FULL \
 *     -p strategy=IMMEDIATE,EXCLUSIVE,CONDITIONAL_UPDATE,SERIALIZED,DEFERRED_RETRY,GROUP_COMMIT
 * ./with-postgres.sh java -jar bench/target/benchmarks.jar ClaimBenchmark.hotJob -t 8 -p storage=POSTGRESQL \
 *     -p strategy=PG_ROW_LOCK,PG_CONDITIONAL_UPDATE,PG_ADVISORY_LOCK
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ClaimBenchmark {

    static final double TTL = 1.0;
    static final int JOBS = 1024;
    static final String HOT = "hot";

    private LeaseStore store;
    private String[] jobs;
    private final AtomicLong clock = new AtomicLong();

    /** The hot job and the {@value #JOBS} others, all free, in the trial's database. */
    @Setup(Level.Trial)
    public void enqueue(StoreTrial trial) {
        store = trial.store();
        store.enqueue(HOT);
        jobs = new String[JOBS];
        for (int i = 0; i < JOBS; i++) {
            jobs[i] = "job-" + i;
        }
        trial.db().insertJobs(jobs, null, 0);
    }

    /** One claim of the shared hot job, which is always expired when the attempt starts. */
    @Benchmark
    public long hotJob(Outcomes o) {
        return claim(o, HOT);
    }

    /** One claim of a random job out of {@value #JOBS}: contention on the database, rarely on the row. */
    @Benchmark
    public long manyJobs(Outcomes o) {
        return claim(o, jobs[ThreadLocalRandom.current().nextInt(JOBS)]);
    }

    private long claim(Outcomes o, String job) {
        o.mark();
        double now = clock.getAndIncrement() * TTL;
        return o.claimed(() -> store.claim(job, o.owner(), now, TTL));
    }
}
