package dev.leaselab.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Completions, and only completions: before each iteration one thread writes, for every thread,
 * a batch of jobs that thread already holds (owner, fence 1, a far expiry: exactly the row a claim
 * leaves) in one transaction through plain JDBC, and the measured method completes them one by
 * one. So the score is the cost of {@code complete} itself, not of the claim that prepares it, and
 * without a {@code Level.Invocation} setup (JMH sample 38: its timestamps would swamp an operation
 * this short). Finished jobs are deleted between iterations so the table does not grow.
 *
 * <p>Every completion must be accepted; {@code refused} or {@code failed} never count as
 * throughput. Run:
 * <pre>
 * java -jar bench/target/benchmarks.jar CompleteBenchmark -t 2 -p storage=WAL_NORMAL -p strategy=IMMEDIATE,GROUP_COMMIT
 * ./with-postgres.sh java -jar bench/target/benchmarks.jar CompleteBenchmark -t 2 -p storage=POSTGRESQL -p strategy=PG_ROW_LOCK
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CompleteBenchmark {

    static final double NOW = 1.0;
    static final double UNTIL = 1.0e12;

    /** The claimed jobs one thread completes in the coming iteration: its own, with fence 1. */
    @State(Scope.Thread)
    public static class Held extends PreparedJobs.Mine {
        public Held() {
            super("done-", Outcomes::ownerOf, UNTIL);
        }
    }

    @Benchmark
    public boolean complete(Held held, Outcomes o) {
        o.mark();
        String job = held.take(o);
        return o.accepted(() -> held.store().complete(job, held.owner(), 1, NOW, "ok"));
    }
}
