package dev.leaselab.testkit;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * Lets a kill matrix stop a run of the contract suite at its first failed test: once a test of the
 * run has failed, every later test and case of that run is skipped. A wrong variant is caught
 * by one failed test; the rest of the suite only tells which other tests would catch it too. That
 * list is worth a full run ({@code -Dleaselab.killMatrix=full}, see {@link #fullMatrix()}) but not
 * the CI's minutes: the kill matrices were most of a clean-clone {@code mvn verify}.
 *
 * <p>Inert unless the configuration parameter {@value #PARAMETER} is {@code true}, so the suite's
 * own runs run every test. "First" is per run of the engine: the variants that a matrix runs side
 * by side each stop at their own.
 */
public final class StopAtFirstCatch implements ExecutionCondition, TestWatcher {

    /** The configuration parameter that switches the stop on, for one run of the engine. */
    public static final String PARAMETER = "leaselab.stopAtFirstCatch";

    /** The system property that asks the kill matrices for every catch: {@code full}, or {@code first} (the default). */
    public static final String MATRIX_PROPERTY = "leaselab.killMatrix";

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(StopAtFirstCatch.class);
    private static final String FIRST_CATCH = "first catch";

    /** The longest {@link #reason} of a matrix's row. */
    static final int REASON_LENGTH = 160;

    /**
     * Whether the kill matrices run each variant through the whole suite ({@code -Dleaselab.killMatrix=full})
     * instead of stopping at its first catch.
     *
     * @throws IllegalArgumentException if the property is neither {@code full} nor {@code first}
     */
    public static boolean fullMatrix() {
        return fullMatrix(System.getProperty(MATRIX_PROPERTY, "first"));
    }

    static boolean fullMatrix(String mode) {
        return switch (mode) {
            case "full" -> true;
            case "first" -> false;
            default -> throw new IllegalArgumentException(MATRIX_PROPERTY + " must be full or first, not '" + mode + "'");
        };
    }

    /**
     * Why a run's first failed test failed, for a matrix's row, so that a catch for the wrong
     * reason shows: the first line of its exception's message, after the exception's name unless
     * it is an assertion's, at most {@value #REASON_LENGTH} characters, as a Markdown code span
     * that a table cell can hold; empty if no test failed.
     */
    public static String reason(EngineExecutionResults results) {
        return results.testEvents().failed().stream().findFirst()
                .flatMap(event -> event.getPayload(TestExecutionResult.class))
                .flatMap(TestExecutionResult::getThrowable)
                .map(failure -> reasonOf(failure instanceof AssertionError
                        ? String.valueOf(failure.getMessage())
                        : failure.getClass().getSimpleName() + ": " + failure.getMessage()))
                .orElse("");
    }

    static String reasonOf(String message) {
        String line = message.strip().lines().findFirst().orElse("");
        if (line.length() > REASON_LENGTH) {
            line = line.substring(0, REASON_LENGTH - 3) + "...";
        }
        // A code span shows the message's <expected> and <actual> as they are; GitHub's tables
        // still split a code span at an unescaped |.
        return "`" + line.replace('`', '\'').replace("|", "\\|") + "`";
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Object first = context.getRoot().getStore(NAMESPACE).get(FIRST_CATCH);
        return first == null
                ? ConditionEvaluationResult.enabled("no test of this run has failed")
                : ConditionEvaluationResult.disabled("stopped at the first catch, " + first);
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        if (context.getConfigurationParameter(PARAMETER, Boolean::parseBoolean).orElse(false)) {
            String test = context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName()
                    + " [" + context.getDisplayName() + "]";
            context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(FIRST_CATCH, key -> test, String.class);
        }
    }
}
