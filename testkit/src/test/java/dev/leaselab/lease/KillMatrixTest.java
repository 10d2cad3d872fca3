package dev.leaselab.lease;

import dev.leaselab.testkit.PostgresServer;
import dev.leaselab.testkit.StopAtFirstCatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.Event;

/**
 * The kill matrix: the contract suite runs against every {@link BrokenStore} (SQLite) and every
 * {@link BrokenPostgresStore} and must fail for each one. A variant that survives means the suite has a hole, and
 * fails the build. The matrix (variant, then the tests that caught it and for which
 * strategies) is printed and written to {@code target/kill-matrix.md}. A variant's run stops at its
 * first catch ({@link StopAtFirstCatch}), so the matrix names that one test; {@code
 * -Dleaselab.killMatrix=full} runs every variant through the whole suite and lists every catch.
 *
 * <p>A run of a variant tests only the strategies of the variant's engine; the others are aborted,
 * so the SQLite rows never touch the PostgreSQL server.
 */
@Execution(ExecutionMode.CONCURRENT)
class KillMatrixTest {

    private static final Map<BrokenStore, SortedMap<String, SortedSet<String>>> MATRIX = Collections.synchronizedMap(new EnumMap<>(BrokenStore.class));
    private static final Map<BrokenPostgresStore, SortedMap<String, SortedSet<String>>> POSTGRES_MATRIX =
            Collections.synchronizedMap(new EnumMap<>(BrokenPostgresStore.class));
    /** Why each variant's run stopped: its first failure's message ({@link StopAtFirstCatch#reason}). */
    private static final Map<Enum<?>, String> REASONS = new ConcurrentHashMap<>();

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = BrokenStore.class, mode = EnumSource.Mode.EXCLUDE, names = "CLAIM_MANY_ONE_AT_A_TIME")
    void theContractSuiteCatchesTheBrokenStore(BrokenStore broken) {
        EngineExecutionResults results = ContractSuiteRun.run(
                variantRun(StoreUnderTest.BROKEN_STORE, broken.name()), ContractSuiteRun.CONTRACT_SUITE, ContractSuiteRun.ALL_BUT_THE_OVERLAP_TEST);
        SortedMap<String, SortedSet<String>> caughtBy = ContractSuiteRun.failedTests(results);
        MATRIX.put(broken, caughtBy);
        REASONS.put(broken, StopAtFirstCatch.reason(results));
        assertFalse(caughtBy.isEmpty(), broken + " survived the contract suite: no test failed");
        assertStoppedAtTheFirstCatch(caughtBy);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(BrokenPostgresStore.class)
    void theContractSuiteCatchesTheBrokenPostgresStore(BrokenPostgresStore broken) {
        // Make sure of the server first: inside the suite, a missing server would fail every test
        // and so "catch" any variant.
        PostgresServer.get();
        EngineExecutionResults results = ContractSuiteRun.run(
                variantRun(StoreUnderTest.BROKEN_POSTGRES_STORE, broken.name()), ContractSuiteRun.CONTRACT_SUITE, ContractSuiteRun.ALL_BUT_THE_OVERLAP_TEST);
        SortedMap<String, SortedSet<String>> caughtBy = ContractSuiteRun.failedTests(results);
        POSTGRES_MATRIX.put(broken, caughtBy);
        REASONS.put(broken, StopAtFirstCatch.reason(results));
        assertFalse(caughtBy.isEmpty(), broken + " survived the contract suite: no test failed");
        assertStoppedAtTheFirstCatch(caughtBy);
    }

    /**
     * A claimMany that runs its claims one at a time gets every result right, so the only test
     * that may catch it is the one that measures whether its claims overlapped, and that test must
     * say so, on every SQLite strategy: a catch by another test would blame the wrong rule. This is
     * the variant's row of the matrix (the matrix's own runs leave that test out, see {@link ContractSuiteRun#OVERLAP_TEST}).
     *
     * <p>Only the tests that call claimMany run (its own tests and the error tests, which call
     * every operation): the variant changes nothing else, so no other test can blame it, and a
     * test that fails for reasons of its own (a clean-clone CI run failed here when the drain
     * test, which never calls claimMany, failed) would fail this one for nothing.
     */
    @Test
    void aClaimManyThatNeverRacesIsCaughtOnlyByTheOverlapTestSayingSo() {
        Set<String> errorTests = Arrays.stream(LeaseStoreErrorsTest.class.getDeclaredMethods()).map(Method::getName)
                .collect(Collectors.toSet());
        EngineExecutionResults results = ContractSuiteRun.run(
                Map.of(StoreUnderTest.BROKEN_STORE, BrokenStore.CLAIM_MANY_ONE_AT_A_TIME.name()), ContractSuiteRun.CONTRACT_SUITE,
                method -> method.startsWith("claimMany") || errorTests.contains(method));
        assertTrue(results.testEvents().succeeded().count() > 0, "no test ran: the filter kept none");
        MATRIX.put(BrokenStore.CLAIM_MANY_ONE_AT_A_TIME, ContractSuiteRun.failedTests(results));
        REASONS.put(BrokenStore.CLAIM_MANY_ONE_AT_A_TIME, StopAtFirstCatch.reason(results));

        List<Event> failed = results.testEvents().failed().list();
        SortedSet<String> caughtOn = new TreeSet<>();
        for (Event event : failed) {
            Throwable failure = event.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable).orElseThrow();
            assertEquals("LeaseContractTest." + ContractSuiteRun.OVERLAP_TEST, testName(event.getTestDescriptor()),
                    () -> "caught by another test, on " + event.getTestDescriptor().getDisplayName() + ": " + failure);
            assertTrue(failure.getMessage().contains("never overlapped in time"), failure.getMessage());
            caughtOn.add(event.getTestDescriptor().getDisplayName());
        }
        SortedSet<String> sqlite = new TreeSet<>(LockingStrategy.of(LockingStrategy.Engine.SQLITE).stream().map(Enum::name).toList());
        assertEquals(sqlite, caughtOn);
    }

    /**
     * The drain test tries a claimNext that failed with a {@link LeaseStoreException} again, a few
     * times per worker: a store whose every claimNext fails must still fail it, on every SQLite
     * strategy, by the bound and not by a hang (the timeout turns a drain that never gives up
     * into a failure).
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aDrainWhoseEveryClaimNextFailsGivesUpAfterItsRetries() {
        EngineExecutionResults results = ContractSuiteRun.run(
                Map.of(StoreUnderTest.BROKEN_STORE, BrokenStore.CLAIM_NEXT_ALWAYS_BUSY.name()), ContractSuiteRun.CONTRACT_SUITE,
                method -> method.equals("workersDrainingOneQueueAtOnceAreEachHandedDifferentJobs"));

        SortedSet<String> caughtOn = new TreeSet<>();
        for (Event event : results.testEvents().failed().list()) {
            Throwable failure = event.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable).orElseThrow();
            String messages = "";
            for (Throwable t = failure; t != null; t = t.getCause()) {
                messages += t + "\n";
            }
            assertTrue(messages.contains("claimNext failed 4 times"), messages);
            caughtOn.add(event.getTestDescriptor().getDisplayName());
        }
        SortedSet<String> sqlite = new TreeSet<>(LockingStrategy.of(LockingStrategy.Engine.SQLITE).stream().map(Enum::name).toList());
        assertEquals(sqlite, caughtOn);
    }

    /**
     * {@code PG_ADVISORY_LOCK}'s claimNext without its per-job lock and re-check was caught by hand,
     * in the race's rounds 1 and 4, when the race was written: this keeps that negative control. The
     * variant keeps claimNext calls apart, so only a claim racing a claimNext can win a job that
     * claimNext also writes; the race must catch it with two winners on every PostgreSQL strategy,
     * and prints the round that did. Under {@code PG_CONDITIONAL_UPDATE} the claim must land in
     * the one round trip between claimNext's pick and its write: caught in rounds 7, 29, 33 and 51
     * of 100 in four runs on 2026-12-06, and in none in a fifth (on a quiet machine, the race alone:
     * rounds 1 to 27 in 20 of 20 runs, 2026-12-07). So a strategy not caught is raced again, up to
     * {@value #RACE_RUNS} runs of the race in all.
     */
    @Test
    void aClaimNextWithoutTheJobLockIsCaughtByTheClaimAgainstClaimNextRace() {
        SortedSet<String> postgres = new TreeSet<>(LockingStrategy.of(LockingStrategy.Engine.POSTGRESQL).stream().map(Enum::name).toList());
        SortedSet<String> caught = new TreeSet<>();
        for (int run = 1; run <= RACE_RUNS && !caught.equals(postgres); run++) {
            caught.addAll(caughtOn(BrokenPostgresStore.CLAIM_NEXT_WITHOUT_JOB_LOCK,
                    race(BrokenPostgresStore.CLAIM_NEXT_WITHOUT_JOB_LOCK, "aClaimAndAClaimNextOfTheSameJobNeverBothWin")));
            System.out.println(BrokenPostgresStore.CLAIM_NEXT_WITHOUT_JOB_LOCK + ": caught on " + caught + " after run " + run);
        }
        assertEquals(postgres, caught);
    }

    /** How many runs of a race a variant that a race must catch is given. */
    private static final int RACE_RUNS = 3;

    /**
     * completeAll without the jobs' locks is the correct completeAll of {@code PG_CONDITIONAL_UPDATE}
     * and {@code PG_ROW_LOCK}, and breaks only {@code PG_ADVISORY_LOCK}, whose claim checks under the
     * job's advisory lock and then writes without a condition. The race must catch it there, with
     * a completion and a claim that both won, within {@value #RACE_RUNS} runs of the race (caught in
     * rounds 1 to 11 of the first run in eleven runs on 2026-12-06), and must pass on the other two
     * in every run: a race that failed on them would be failing correct stores.
     */
    @Test
    void aCompleteAllWithoutTheJobLocksIsCaughtByTheClaimAgainstCompleteAllRaceUnderAdvisoryLocks() {
        Set<String> advisory = Set.of(LockingStrategy.PG_ADVISORY_LOCK.name());
        SortedSet<String> caught = new TreeSet<>();
        for (int run = 1; run <= RACE_RUNS && caught.isEmpty(); run++) {
            EngineExecutionResults results = race(BrokenPostgresStore.COMPLETE_ALL_WITHOUT_JOB_LOCKS,
                    "aCompleteAllAndAClaimAtTheEndOfTheLeaseNeverBothWin");
            SortedSet<String> thisRun = caughtOn(BrokenPostgresStore.COMPLETE_ALL_WITHOUT_JOB_LOCKS, results);
            assertTrue(advisory.containsAll(thisRun), "the race failed a strategy that the variant does not break: " + thisRun);
            assertEquals(3 - thisRun.size(), results.testEvents().succeeded().count(),
                    "the race passes on the PostgreSQL strategies it does not break");
            caught.addAll(thisRun);
        }
        assertEquals(advisory, caught);
    }

    /** Runs one race of the contract suite against a PostgreSQL variant, on the PostgreSQL strategies. */
    private static EngineExecutionResults race(BrokenPostgresStore broken, String raceTest) {
        PostgresServer.get(); // a missing server would fail the race and so "catch" the variant
        return ContractSuiteRun.run(Map.of(StoreUnderTest.BROKEN_POSTGRES_STORE, broken.name()),
                List.of(LeaseContractTest.class), method -> method.equals(raceTest));
    }

    /** The strategies on which the race found two winners; prints the round of each catch. */
    private static SortedSet<String> caughtOn(BrokenPostgresStore broken, EngineExecutionResults results) {
        SortedSet<String> caughtOn = new TreeSet<>();
        for (Event event : results.testEvents().failed().list()) {
            Throwable failure = event.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable).orElseThrow();
            String message = String.valueOf(failure.getMessage());
            assertTrue(message.contains("exactly one of them must win"), message);
            // The race's message starts with "strategy, round n:" (rounds count from 0).
            System.out.println(broken + " caught: " + message.substring(0, message.indexOf(':')));
            caughtOn.add(event.getTestDescriptor().getDisplayName());
        }
        return caughtOn;
    }

    /** The parameters of a variant's run: the variant, and the stop at its first catch unless the full matrix was asked for. */
    private static Map<String, String> variantRun(String parameter, String variant) {
        return Map.of(parameter, variant, StopAtFirstCatch.PARAMETER, String.valueOf(!StopAtFirstCatch.fullMatrix()));
    }

    /** A run that went on after its first failed case would make the CI pay for the full matrix again. */
    private static void assertStoppedAtTheFirstCatch(SortedMap<String, SortedSet<String>> caughtBy) {
        if (!StopAtFirstCatch.fullMatrix()) {
            assertEquals(1, caughtBy.values().stream().mapToInt(SortedSet::size).sum(), () -> "the run went on after its first catch: " + caughtBy);
        }
    }

    private static String testName(TestDescriptor test) {
        return ContractSuiteRun.testName(test);
    }

    @AfterAll
    static void printMatrix() throws IOException {
        if (MATRIX.isEmpty()) {
            return; // a run of single tests (-Dtest=KillMatrixTest#...) ran no variant
        }
        StringBuilder out = new StringBuilder("# Kill matrix\n\n").append(StopAtFirstCatch.fullMatrix()
                ? "Each broken variant of the store, and the contract tests that caught it (with the strategies).\n\n"
                : "Each broken variant of the store, and the first contract test that caught it (with the strategy): each run "
                        + "stopped at its first catch. -Dleaselab.killMatrix=full lists every catch. CLAIM_MANY_ONE_AT_A_TIME's "
                        + "row comes from its own test, on every SQLite strategy.\n\n");
        table(out, "SQLite variants", new EnumMap<>(MATRIX), BrokenStore::origin);
        out.append("\n");
        if (POSTGRES_MATRIX.isEmpty()) {
            out.append("## PostgreSQL variants\n\nNot run: no PostgreSQL server (see the skipped tests).\n");
        } else {
            table(out, "PostgreSQL variants", new EnumMap<>(POSTGRES_MATRIX), BrokenPostgresStore::origin);
        }
        System.out.println(out);
        Path target = Path.of("target");
        if (Files.isDirectory(target)) {
            Files.writeString(target.resolve("kill-matrix.md"), out);
        }
    }

    private static <V extends Enum<V>> void table(StringBuilder out, String title,
            Map<V, SortedMap<String, SortedSet<String>>> rows, Function<V, String> origin) {
        boolean full = StopAtFirstCatch.fullMatrix();
        out.append("## ").append(title).append("\n\n")
                .append(full ? "| variant | from | caught | tests that caught it |\n|---|---|---|---|\n"
                        : "| variant | from | caught | first test that caught it | its failure |\n|---|---|---|---|---|\n");
        int caught = 0;
        for (Map.Entry<V, SortedMap<String, SortedSet<String>>> row : rows.entrySet()) {
            boolean isCaught = !row.getValue().isEmpty();
            caught += isCaught ? 1 : 0;
            StringBuilder tests = new StringBuilder();
            row.getValue().forEach((test, cases) -> tests.append(tests.length() == 0 ? "" : "<br>")
                    .append(test).append(" (").append(summarise(cases)).append(")"));
            out.append("| ").append(row.getKey()).append(" | ").append(origin.apply(row.getKey())).append(" | ")
                    .append(isCaught ? "yes" : "**SURVIVED**").append(" | ").append(tests)
                    .append(full ? "" : " | " + REASONS.getOrDefault(row.getKey(), "")).append(" |\n");
        }
        out.append("\n").append(caught).append(" of ").append(rows.size()).append(" ").append(title).append(" caught.\n");
    }

    /** Names the failed cases by their display names: the strategies, for the parameterised tests. */
    private static String summarise(SortedSet<String> cases) {
        return String.join(", ", cases);
    }
}
