package dev.leaselab.stress;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a drain's history says about the work done, as the drain drivers report it.
 *
 * @param duplicateExecutions leases handed out beyond the first of each job: work that started
 *     twice (a job taken over after its worker stalled, paused or died), expected and counted
 * @param duplicateAcceptedCompletions completions accepted beyond the first of each job (0 on a
 *     correct store)
 */
record DrainCounts(long duplicateExecutions, long duplicateAcceptedCompletions) {

    static DrainCounts of(List<Op> ops) {
        Map<String, Integer> handedOut = new HashMap<>();
        Map<String, Integer> completed = new HashMap<>();
        for (Op op : ops) {
            if (op.ok() && op.kind() == Op.Kind.CLAIM) {
                handedOut.merge(op.job(), 1, Integer::sum);
            } else if (op.ok() && op.kind() == Op.Kind.COMPLETE) {
                completed.merge(op.job(), 1, Integer::sum);
            }
        }
        return new DrainCounts(beyondTheFirst(handedOut), beyondTheFirst(completed));
    }

    private static long beyondTheFirst(Map<String, Integer> counts) {
        return counts.values().stream().mapToLong(n -> n - 1).sum();
    }
}
