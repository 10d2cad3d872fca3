package dev.leaselab.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * The kill matrices stop each variant's run at its first catch: what is skipped after it, and
 * (the negative control) that nothing is skipped without the parameter, nor in the next run; and
 * the reason a matrix's row gives for the catch.
 */
class StopAtFirstCatchTest {

    @Test
    void withTheParameterEveryTestAndCaseAfterTheFirstFailureIsSkipped() {
        EngineExecutionResults results = run(true);

        assertEquals(List.of("passes()", "[1] 1", "[2] 2"), names(results.testEvents().started().list()));
        assertEquals(List.of("[2] 2"), names(results.testEvents().failed().list()));
        assertEquals(List.of("[3] 3", "runsLast()"), names(results.testEvents().skipped().list()));
        // The second class of the same run is skipped whole.
        assertEquals(List.of("StopAtFirstCatchTest$Second"), names(results.containerEvents().skipped().list()));
        String reason = results.testEvents().skipped().list().get(0).getPayload(String.class).orElseThrow();
        assertTrue(reason.contains("First.failsOnTwo [[2] 2]"), reason);
        assertEquals("`the planted failure ==> expected: <true> but was: <false>`", StopAtFirstCatch.reason(results));
    }

    @Test
    void aReasonIsOneLineThatATableCellCanHold() {
        assertEquals("`a\\|b 'c'`", StopAtFirstCatch.reasonOf("a|b `c`\nsecond line"));
        String longest = StopAtFirstCatch.reasonOf("x".repeat(500));
        assertEquals(StopAtFirstCatch.REASON_LENGTH + 2, longest.length());
        assertTrue(longest.endsWith("...`"), longest);
        assertEquals("", StopAtFirstCatch.reason(EngineTestKit.engine("junit-jupiter").selectors(selectClass(Second.class)).execute()));
    }

    @Test
    void withoutTheParameterEveryTestRuns() {
        EngineExecutionResults results = run(false);

        assertEquals(List.of("passes()", "[1] 1", "[2] 2", "[3] 3", "runsLast()", "inTheSecondClass()"),
                names(results.testEvents().started().list()));
        assertEquals(List.of("[2] 2"), names(results.testEvents().failed().list()));
        assertEquals(0, results.testEvents().skipped().count());
        assertEquals(0, results.containerEvents().skipped().count());
    }

    @Test
    void aRunWithoutAFailureSkipsNothing() {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .configurationParameter(StopAtFirstCatch.PARAMETER, "true")
                .selectors(selectClass(Second.class))
                .execute();

        assertEquals(List.of("inTheSecondClass()"), names(results.testEvents().succeeded().list()));
        assertEquals(0, results.testEvents().skipped().count() + results.containerEvents().skipped().count());
    }

    @Test
    void eachRunStopsAtItsOwnFirstFailure() {
        run(true);
        EngineExecutionResults second = run(true);

        assertEquals(List.of("passes()", "[1] 1", "[2] 2"), names(second.testEvents().started().list()));
    }

    @Test
    void theMatrixModeIsFullOrFirstAndNothingElse() {
        assertTrue(StopAtFirstCatch.fullMatrix("full"));
        assertFalse(StopAtFirstCatch.fullMatrix("first"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StopAtFirstCatch.fullMatrix("all"));
        assertEquals("leaselab.killMatrix must be full or first, not 'all'", e.getMessage());
    }

    private static EngineExecutionResults run(boolean stop) {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter(StopAtFirstCatch.PARAMETER, String.valueOf(stop))
                .configurationParameter("junit.jupiter.testclass.order.default", ClassOrderer.OrderAnnotation.class.getName())
                .selectors(selectClass(First.class), selectClass(Second.class))
                .execute();
    }

    private static List<String> names(List<Event> events) {
        return events.stream().map(event -> event.getTestDescriptor().getDisplayName()).toList();
    }

    /** Run only through {@link #run}: surefire does not run nested classes of its own accord. */
    @Order(1)
    @ExtendWith(StopAtFirstCatch.class)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class First {

        @Test
        @Order(1)
        void passes() {}

        @ParameterizedTest
        @ValueSource(ints = {1, 2, 3})
        @Order(2)
        void failsOnTwo(int n) {
            assertTrue(n != 2, "the planted failure");
        }

        @Test
        @Order(3)
        void runsLast() {}
    }

    @Order(2)
    @ExtendWith(StopAtFirstCatch.class)
    static class Second {

        @Test
        void inTheSecondClass() {}
    }
}
