package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.bench.JmhLauncher.Pass;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;

/**
 * {@code java -jar benchmarks.jar} runs JMH once per engine, so that the cross product of
 * {@code strategy} and {@code storage} never puts a strategy on a storage of the other engine,
 * while every constant of the two enums is still measured without being named anywhere.
 */
class JmhLauncherTest {

    private static final Set<Engine> BOTH = EnumSet.allOf(Engine.class);

    private static List<Pass> plan(Set<Engine> engines, String... args) throws CommandLineOptionException {
        return JmhLauncher.plan(new CommandLineOptions(args), engines);
    }

    private static List<String> names(List<? extends Enum<?>> values) {
        return values.stream().map(Enum::name).toList();
    }

    /** Every strategy of a pass with every storage of it, as JMH will run them. */
    private static Set<String> pairs(Pass pass) {
        Set<String> pairs = new HashSet<>();
        pass.strategies().forEach(st -> pass.storages().forEach(sto -> pairs.add(st + " on " + sto)));
        return pairs;
    }

    @Test
    void theReadmeCommandRunsTheSqliteStrategiesOnWalFullOnly() throws Exception {
        List<Pass> passes = plan(BOTH, "ClaimBenchmark.hotJob", "-t", "8", "-p", "storage=WAL_FULL");
        assertEquals(1, passes.size(), passes.toString());
        Pass sqlite = passes.get(0);
        assertEquals(Engine.SQLITE, sqlite.engine());
        assertEquals(List.of(BenchmarkId.CLAIM_HOT.jmhName()), sqlite.benchmarks());
        assertEquals(names(LockingStrategy.of(Engine.SQLITE)), sqlite.strategies());
        assertEquals(List.of(Storage.WAL_FULL.name()), sqlite.storages());
    }

    @Test
    void withoutParametersEachEngineRunsAllOfItsOwnPairsAndNoOther() throws Exception {
        List<Pass> passes = plan(BOTH, "ClaimBenchmark.hotJob");
        assertEquals(List.of(Engine.SQLITE, Engine.POSTGRESQL), passes.stream().map(Pass::engine).toList());
        Set<String> planned = new HashSet<>();
        for (Pass pass : passes) {
            assertEquals(names(LockingStrategy.of(pass.engine())), pass.strategies());
            assertEquals(names(Storage.of(pass.engine())), pass.storages());
            planned.addAll(pairs(pass));
        }
        Set<String> sameEngine = new HashSet<>();
        for (LockingStrategy st : LockingStrategy.values()) {
            Storage.of(st.engine()).forEach(sto -> sameEngine.add(st + " on " + sto));
        }
        assertEquals(sameEngine, planned);
    }

    @Test
    void withoutAServerOnlySqliteIsPlanned() throws Exception {
        List<Pass> passes = plan(EnumSet.of(Engine.SQLITE), "ClaimBenchmark.hotJob", "FloorBenchmark");
        assertEquals(1, passes.size(), passes.toString());
        assertEquals(Engine.SQLITE, passes.get(0).engine());
        assertEquals(Set.of(BenchmarkId.CLAIM_HOT.jmhName(), BenchmarkId.FLOOR.jmhName()), Set.copyOf(passes.get(0).benchmarks()));
    }

    @Test
    void theFloorRunsOnEachEnginesStoragesAndABenchmarkWithNeitherParameterRunsOnce() {
        Map<String, Set<String>> paramsOf = new LinkedHashMap<>();
        paramsOf.put(BenchmarkId.CLAIM_HOT.jmhName(), Set.of(ForkKey.STRATEGY, ForkKey.STORAGE));
        paramsOf.put(BenchmarkId.FLOOR.jmhName(), Set.of(ForkKey.STORAGE));
        paramsOf.put("x.Plain.run", Set.of());
        // Only SQLite strategies asked for: the claim runs on SQLite only, the floor (no strategy) on both.
        List<Pass> passes = JmhLauncher.plan(paramsOf, List.of("IMMEDIATE"), null, BOTH);
        assertEquals(2, passes.size(), passes.toString());
        assertEquals(List.of(BenchmarkId.CLAIM_HOT.jmhName(), BenchmarkId.FLOOR.jmhName(), "x.Plain.run"),
                passes.get(0).benchmarks());
        assertEquals(List.of("IMMEDIATE"), passes.get(0).strategies());
        assertEquals(List.of(BenchmarkId.FLOOR.jmhName()), passes.get(1).benchmarks());
        assertEquals(List.of(Storage.POSTGRESQL.name()), passes.get(1).storages());
        assertEquals(1, passes.stream().filter(p -> p.benchmarks().contains("x.Plain.run")).count());
        // Nothing with either parameter: one pass, with the parameters left alone.
        assertEquals(List.of(new Pass(null, List.of("x.Plain.run"), List.of(), List.of())),
                JmhLauncher.plan(Map.of("x.Plain.run", Set.of()), null, null, BOTH));
    }

    @Test
    void strategiesAndStoragesOfDifferentEnginesLeaveNothingAndAnUnknownValueIsNamed() throws Exception {
        assertEquals(List.of(), plan(BOTH, "ClaimBenchmark.hotJob", "-p", "strategy=IMMEDIATE", "-p", "storage=POSTGRESQL"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> plan(BOTH, "ClaimBenchmark.hotJob", "-p", "strategy=IMMEDIATE,NO_SUCH"));
        assertTrue(e.getMessage().contains("NO_SUCH") && e.getMessage().contains("GROUP_COMMIT"), e.getMessage());
    }

    @Test
    void theListingsAndTheHelpAreJmhsOwn() throws Exception {
        PrintStream before = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            JmhLauncher.main(new String[] {"-l"});
            JmhLauncher.main(new String[] {"-lp", "FloorBenchmark"});
            JmhLauncher.main(new String[] {"-h"});
        } finally {
            System.setOut(before);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains(BenchmarkId.CLAIM_HOT.jmhName()), text);
        assertTrue(text.contains("param \"storage\" = {WAL_NORMAL, WAL_FULL, DELETE_FULL, POSTGRESQL}"), text);
        assertTrue(text.contains("Usage: java -jar ... [regexp*] [options]"), text);
    }

    /**
     * One JMH run in this JVM over both engines: two passes, one summary, one result file with
     * exactly the four meaningful forks of two strategies, two storages and the floor.
     */
    @Test
    void thePassesOfBothEnginesReadAsOneJmhRunWithOneResultFile(@TempDir Path dir) throws Exception {
        PostgresTests.useTestServerUnlessOneIsGiven();
        PostgresTests.require(PostgresTarget.configured().isPresent(), "no PostgreSQL server for the launcher's PostgreSQL pass");
        Path json = dir.resolve("result.json");
        Path log = dir.resolve("jmh.txt");
        String[] args = {BenchmarkId.CLAIM_HOT.toString(), BenchmarkId.FLOOR.toString(),
            "-p", "storage=WAL_NORMAL,POSTGRESQL", "-p", "strategy=IMMEDIATE,PG_CONDITIONAL_UPDATE",
            "-f", "0", "-wi", "0", "-i", "1", "-r", "20ms", "-t", "1", "-rf", "json", "-rff", json.toString(), "-o", log.toString()};
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = JmhLauncher.run(args, new CommandLineOptions(args), new PrintStream(err, true, StandardCharsets.UTF_8));
        String output = Files.readString(log);
        assertEquals(0, code, err + output);
        assertEquals(Set.of(
                        new ForkKey(BenchmarkId.CLAIM_HOT, org.openjdk.jmh.annotations.Mode.Throughput, 1, Storage.WAL_NORMAL,
                                LockingStrategy.IMMEDIATE),
                        new ForkKey(BenchmarkId.CLAIM_HOT, org.openjdk.jmh.annotations.Mode.Throughput, 1, Storage.POSTGRESQL,
                                LockingStrategy.PG_CONDITIONAL_UPDATE),
                        new ForkKey(BenchmarkId.FLOOR, org.openjdk.jmh.annotations.Mode.Throughput, 1, Storage.WAL_NORMAL, null),
                        new ForkKey(BenchmarkId.FLOOR, org.openjdk.jmh.annotations.Mode.Throughput, 1, Storage.POSTGRESQL, null)),
                Set.copyOf(BenchResults.load(json).stream().map(BenchResults.Row::key).toList()));
        assertEquals(1, output.split("REMEMBER: The numbers below are just data", -1).length - 1, "one summary:\n" + output);
        assertTrue(output.contains("Benchmark result is saved to " + json), output);
        assertTrue(!output.contains("<failure>"), output);
    }
}
