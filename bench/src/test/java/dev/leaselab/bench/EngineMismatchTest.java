package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * JMH's own command line runs the cross product of {@code strategy} and {@code storage}, so it
 * reaches a SQLite strategy on the PostgreSQL storage and a PostgreSQL strategy on a SQLite file.
 * Neither is a benchmark: the trial's setup must refuse it before it touches any database, with a
 * message that names both, rather than measure something else under the strategy's name.
 */
class EngineMismatchTest {

    @Test
    void aSqliteStrategyOnThePostgresStorageFailsInSetupNamingBoth() {
        ClaimBenchmark claim = new ClaimBenchmark();
        claim.strategy = LockingStrategy.IMMEDIATE;
        claim.storage = Storage.POSTGRESQL;
        // No server is needed to see this: the check comes before the connection.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, claim::open);
        assertTrue(e.getMessage().contains("strategy IMMEDIATE (SQLITE) cannot run on storage POSTGRESQL (POSTGRESQL)"),
                e.getMessage());
    }

    @Test
    void aPostgresStrategyOnASqliteStorageFailsInTheSetupOfEveryStoreBenchmark() {
        Runnable[] setups = {
            () -> {
                RenewBenchmark b = new RenewBenchmark();
                b.strategy = LockingStrategy.PG_ROW_LOCK;
                b.storage = Storage.WAL_FULL;
                b.open();
            },
            () -> {
                CompleteBenchmark b = new CompleteBenchmark();
                b.strategy = LockingStrategy.PG_ADVISORY_LOCK;
                b.storage = Storage.DELETE_FULL;
                b.open();
            },
            () -> {
                WorkerCycleBenchmark b = new WorkerCycleBenchmark();
                b.strategy = LockingStrategy.PG_CONDITIONAL_UPDATE;
                b.storage = Storage.WAL_NORMAL;
                b.open();
            },
        };
        for (Runnable setup : setups) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, setup::run);
            assertTrue(e.getMessage().matches("strategy PG_\\w+ \\(POSTGRESQL\\) cannot run on storage \\w+ \\(SQLITE\\): .*"),
                    e.getMessage());
        }
    }

    /** The same through JMH, as {@code java -jar benchmarks.jar ClaimBenchmark -p ...} runs it (in this JVM). */
    @Test
    void jmhReportsTheMismatchedForkWithTheMessage() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .include("\\.ClaimBenchmark\\.hotJob$")
                .param("strategy", "IMMEDIATE")
                .param("storage", "POSTGRESQL")
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
        assertTrue(output.contains("IllegalArgumentException: strategy IMMEDIATE (SQLITE) cannot run on storage POSTGRESQL"),
                output);
    }
}
