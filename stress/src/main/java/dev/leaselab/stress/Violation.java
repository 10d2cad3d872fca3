package dev.leaselab.stress;

import java.util.List;

/**
 * A broken rule of the lease contract, with the fewest operations that show it.
 *
 * @param rule the number of the rule in {@link HistoryChecker}
 * @param job the job it happened to
 * @param message what is wrong, in a sentence
 * @param witness the operations that show it (one or two)
 */
public record Violation(int rule, String job, String message, List<Op> witness) {

    /** The violation and its witness, one operation a line, times relative to {@code origin}. */
    public String describe(long origin) {
        StringBuilder text = new StringBuilder("rule ").append(rule).append(", job ").append(job).append(": ")
                .append(message);
        for (Op op : witness) {
            text.append("\n    ").append(op.describe(origin));
        }
        return text.toString();
    }
}
