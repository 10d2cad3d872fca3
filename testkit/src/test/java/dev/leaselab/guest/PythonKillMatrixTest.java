package dev.leaselab.guest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.leaselab.testkit.PythonGuest;
import dev.leaselab.testkit.StopAtFirstCatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * A kill matrix across languages: the contract suite over the protocol
 * ({@link PythonGuestContractTest}) runs against the Python design with each of its wrong changes
 * switched on, and must fail for every one (surefire runs the same class on the correct design,
 * which must pass). The matrix is written to {@code target/python-kill-matrix.md}. The mutations
 * run three at a time: most of a run is spent starting Python processes and waiting for SQLite's lock.
 * A mutation's run stops at its first catch ({@link StopAtFirstCatch}); {@code
 * -Dleaselab.killMatrix=full} runs each through the whole suite and lists every catch.
 */
@Execution(ExecutionMode.CONCURRENT)
class PythonKillMatrixTest {

    private static final Map<String, SortedSet<String>> MATRIX = Collections.synchronizedMap(new TreeMap<>());
    /** Why each mutation's run stopped: its first failure's message ({@link StopAtFirstCatch#reason}). */
    private static final Map<String, String> REASONS = new ConcurrentHashMap<>();

    static Stream<String> mutations() {
        return PythonGuest.MUTATIONS.keySet().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mutations")
    void theContractSuiteOverTheProtocolCatchesTheWrongChange(String mutation) {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter(PythonGuestContractTest.MUTATION, mutation)
                .configurationParameter(StopAtFirstCatch.PARAMETER, String.valueOf(!StopAtFirstCatch.fullMatrix()))
                .selectors(selectClass(PythonGuestContractTest.class)).execute();
        assertEquals(0, results.containerEvents().failed().count(), "the suite itself broke: "
                + results.containerEvents().failed().list());
        assertTrue(results.testEvents().succeeded().count() > 0, "nothing passed: the guest did not run at all");
        SortedSet<String> caughtBy = new TreeSet<>();
        results.testEvents().failed().stream().map(Event::getTestDescriptor)
                .forEach(test -> caughtBy.add(test.getParent().flatMap(p -> p.getSource())
                        .filter(org.junit.platform.engine.support.descriptor.MethodSource.class::isInstance)
                        .map(s -> ((org.junit.platform.engine.support.descriptor.MethodSource) s).getMethodName())
                        .orElse(test.getDisplayName())));
        MATRIX.put(mutation, caughtBy);
        REASONS.put(mutation, StopAtFirstCatch.reason(results));
        assertFalse(caughtBy.isEmpty(), mutation + " survived the contract suite over the protocol: no test failed");
        if (!StopAtFirstCatch.fullMatrix()) {
            assertEquals(1, results.testEvents().failed().count(), () -> mutation + "'s run went on after its first catch: " + caughtBy);
        }
    }

    /** The Java list of mutations is the Python module's list: none is left out of the matrix. */
    @Test
    void everyWrongChangeOfThePythonDesignIsInTheMatrix() throws Exception {
        Path dir = PythonGuest.worker().getParent();
        Process p = new ProcessBuilder(PythonGuest.interpreter(), "-c",
                "import lease; print(','.join(k + '=' + str(v) for k, v in lease.MUTATIONS.items()))")
                .directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        StringBuilder expected = new StringBuilder();
        PythonGuest.MUTATIONS.forEach((k, v) -> expected.append(expected.length() == 0 ? "" : ",").append(k).append('=').append(v));
        assertEquals(expected.toString(), out);
    }

    @AfterAll
    static void writeMatrix() throws IOException {
        boolean full = StopAtFirstCatch.fullMatrix();
        StringBuilder out = new StringBuilder("# Kill matrix of the Python design, over the worker protocol\n\n")
                .append(full ? "" : "Each run stopped at its first catch; -Dleaselab.killMatrix=full lists every catch.\n\n")
                .append(full ? "| wrong change | contract | caught | tests that caught it |\n|---|---|---|---|\n"
                        : "| wrong change | contract | caught | first test that caught it | its failure |\n|---|---|---|---|---|\n");
        int caught = 0;
        for (Map.Entry<String, SortedSet<String>> row : new TreeMap<>(MATRIX).entrySet()) {
            caught += row.getValue().isEmpty() ? 0 : 1;
            out.append("| ").append(row.getKey()).append(" | ").append(PythonGuest.MUTATIONS.get(row.getKey()))
                    .append(" | ").append(row.getValue().isEmpty() ? "**SURVIVED**" : "yes").append(" | ")
                    .append(String.join("<br>", row.getValue()))
                    .append(full ? "" : " | " + REASONS.getOrDefault(row.getKey(), "")).append(" |\n");
        }
        out.append("\n").append(caught).append(" of ").append(MATRIX.size()).append(" caught.\n");
        System.out.println(out);
        Path target = Path.of("target");
        if (Files.isDirectory(target)) {
            Files.writeString(target.resolve("python-kill-matrix.md"), out);
        }
    }
}
