package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * Runs the contract suite ({@link LeaseContractTest}, {@link LeaseStoreErrorsTest}) inside a test,
 * through JUnit's {@link EngineTestKit}, with configuration parameters that tell
 * {@link StoreUnderTest} which store to open: how the kill matrices put a wrong variant under test.
 */
final class ContractSuiteRun {

    static final List<Class<?>> CONTRACT_SUITE = List.of(LeaseContractTest.class, LeaseStoreErrorsTest.class);

    /**
     * The test that measures whether claimMany's claims met in time, which the matrices' runs leave
     * out. In a variant's run (no fsync, three suites at once on 2 cores) a claim is so short that
     * the claims of a correct claimMany can miss each other in round after round: in a run of the
     * kill matrix that stopped at each variant's first catch (2026-12-06, when the test ran 40
     * rounds), that was the first failure of 13 of the 20 SQLite variants that do not touch
     * claimMany's race, and in one run of the generated-mutant matrix it "killed" 3 of 107 mutants
     * of renew and complete, which no claim ever reads. Such a failure says that the machine was
     * busy, not that the variant broke a rule, and it would hide whether the tests aimed at the
     * variant catch it. The one variant the test is aimed at,
     * {@link BrokenStore#CLAIM_MANY_ONE_AT_A_TIME}, has a test of its own in {@link KillMatrixTest};
     * no change of a SQL fragment can make claimMany's threads stop meeting.
     */
    static final String OVERLAP_TEST = "claimManyClaimsOverlapInTime";

    /** Every test method but {@link #OVERLAP_TEST}: what a matrix's run of a variant runs. */
    static final Predicate<String> ALL_BUT_THE_OVERLAP_TEST = method -> !method.equals(OVERLAP_TEST);

    private ContractSuiteRun() {}

    /** Runs the whole suite with the parameters. */
    static EngineExecutionResults run(Map<String, String> parameters) {
        return run(parameters, CONTRACT_SUITE, method -> true);
    }

    /** Runs the test methods of {@code classes} that {@code methods} accepts (by name), with the parameters. */
    static EngineExecutionResults run(Map<String, String> parameters, List<Class<?>> classes, Predicate<String> methods) {
        // At discovery a parameterised test is one leaf with the method as its source, so this
        // filter sees each test method once, before any of its cases exists.
        PostDiscoveryFilter byMethod = test -> test.getSource()
                .filter(MethodSource.class::isInstance)
                .map(source -> FilterResult.includedIf(methods.test(((MethodSource) source).getMethodName())))
                .orElse(FilterResult.included("not a test method"));
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameters(parameters)
                .selectors(classes.stream().map(test -> selectClass(test)).toArray(DiscoverySelector[]::new))
                .filters(byMethod)
                .execute();
    }

    /**
     * Runs the suite with the parameters; returns the failed tests, each with its failed cases (the
     * strategies, for the parameterised tests). A failure of the suite itself (a class that could
     * not even start) is no catch and fails the caller.
     */
    static SortedMap<String, SortedSet<String>> failedTests(Map<String, String> parameters) {
        return failedTests(run(parameters));
    }

    /** The failed tests of a run, each with its failed cases; fails the caller if the suite itself broke. */
    static SortedMap<String, SortedSet<String>> failedTests(EngineExecutionResults results) {
        SortedMap<String, SortedSet<String>> caughtBy = new TreeMap<>();
        results.testEvents().failed().stream().map(Event::getTestDescriptor).forEach(test ->
                caughtBy.computeIfAbsent(testName(test), k -> new TreeSet<>()).add(test.getDisplayName()));
        assertEquals(0, results.containerEvents().failed().count(), "the suite itself broke: " + results.containerEvents().failed().list());
        return caughtBy;
    }

    /** {@code Class.method} of a test, or of the parameterised test whose case it is. */
    static String testName(TestDescriptor test) {
        return test.getParent()
                .flatMap(TestDescriptor::getSource)
                .or(test::getSource)
                .filter(MethodSource.class::isInstance)
                .map(MethodSource.class::cast)
                .map(m -> m.getClassName().substring(m.getClassName().lastIndexOf('.') + 1) + "." + m.getMethodName())
                .orElse(test.getUniqueId().toString());
    }
}
