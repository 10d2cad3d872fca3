package dev.leaselab.stress;

import java.util.List;

/**
 * What the {@link HistoryChecker} found.
 *
 * @param operations how many operations the history holds
 * @param jobs how many jobs they touched
 * @param staleWrites renews, completes and releases that came with a fence older than a claim
 *     that had finished before they began (the writes that fencing exists for)
 * @param staleWritesRejected how many of those the store refused (all of them, on a correct store)
 * @param violations every rule broken, each with its witness
 * @param origin the earliest start time in the history, for printing witnesses
 */
public record CheckReport(int operations, int jobs, int staleWrites, int staleWritesRejected,
        List<Violation> violations, long origin) {

    public boolean passed() {
        return violations.isEmpty();
    }

    /** The first violations, with witnesses, at most {@code limit} of them. */
    public String describeViolations(int limit) {
        StringBuilder text = new StringBuilder();
        violations.stream().limit(limit).forEach(v -> text.append(v.describe(origin)).append('\n'));
        if (violations.size() > limit) {
            text.append("... and ").append(violations.size() - limit).append(" more\n");
        }
        return text.toString();
    }
}
