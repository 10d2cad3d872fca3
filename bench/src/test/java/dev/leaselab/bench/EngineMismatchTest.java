package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * JMH's own {@code Main} and its Runner API run the cross product of {@code strategy} and
 * {@code storage}, so they reach a SQLite strategy on the PostgreSQL storage and a PostgreSQL
 * strategy on a SQLite file. Neither is a benchmark: the trial's setup ({@link StoreTrial}) must
 * refuse it before it touches any database, with a message that names both, rather than measure
 * something else under the strategy's name.
 */
class EngineMismatchTest {

    @Test
    void aSqliteStrategyOnThePostgresStorageFailsInSetupNamingBoth() {
        StoreTrial trial = new StoreTrial();
        trial.strategy = LockingStrategy.IMMEDIATE;
        trial.storage = Storage.POSTGRESQL;
        // No server is needed to see this: the check comes before the connection.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, trial::open);
        assertTrue(e.getMessage().contains("strategy IMMEDIATE (SQLITE) cannot run on storage POSTGRESQL (POSTGRESQL)"),
                e.getMessage());
    }

    /** Through JMH, in this JVM: every store benchmark's trial refuses the mismatch before it measures. */
    @Test
    void aPostgresStrategyOnASqliteStorageFailsInTheSetupOfEveryStoreBenchmark() throws Exception {
        LockingStrategy[] pg = LockingStrategy.of(LockingStrategy.Engine.POSTGRESQL).toArray(LockingStrategy[]::new);
        Storage[] sqlite = Storage.of(LockingStrategy.Engine.SQLITE).toArray(Storage[]::new);
        int i = 0;
        for (BenchmarkId benchmark : Profile.STORE_BENCHMARKS) {
            LockingStrategy strategy = pg[i % pg.length];
            Storage storage = sqlite[i % sqlite.length];
            i++;
            String output = runInThisJvm(benchmark, strategy, storage);
            assertTrue(output.contains("IllegalArgumentException: strategy " + strategy + " (POSTGRESQL) cannot run on storage "
                    + storage + " (SQLITE): "), benchmark + ":\n" + output);
        }
    }

    /** JMH's output of a run of one benchmark with the two parameters, which must give no result. */
    private static String runInThisJvm(BenchmarkId benchmark, LockingStrategy strategy, Storage storage) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include("^" + Pattern.quote(benchmark.jmhName()) + "$")
                .param(ForkKey.STRATEGY, strategy.name())
                .param(ForkKey.STORAGE, storage.name())
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(10))
                .shouldFailOnError(false)
                .build(),
                OutputFormatFactory.createFormatInstance(new PrintStream(log, true, StandardCharsets.UTF_8),
                        VerboseMode.NORMAL)).run();
        String output = log.toString(StandardCharsets.UTF_8);
        assertEquals(0, results.size(), output);
        return output;
    }

    /** The same through JMH, as {@code java -cp benchmarks.jar org.openjdk.jmh.Main ClaimBenchmark -p ...} runs it (in this JVM). */
    @Test
    void jmhReportsTheMismatchedForkWithTheMessage() throws Exception {
        String output = runInThisJvm(BenchmarkId.CLAIM_HOT, LockingStrategy.IMMEDIATE, Storage.POSTGRESQL);
        assertTrue(output.contains("IllegalArgumentException: strategy IMMEDIATE (SQLITE) cannot run on storage POSTGRESQL"),
                output);
    }
}
