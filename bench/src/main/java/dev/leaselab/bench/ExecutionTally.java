package dev.leaselab.bench;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What one round of {@link PeerDrainMain} counted, shared by all the round's threads: how often each
 * job's work ran (a second run of the same job is a duplicate), which completions the system
 * accepted (a second accepted completion of one job is a duplicate too), and the errors by kind with
 * the first one's message. It trusts nobody's own statistics: both systems report into it from
 * inside the work.
 */
final class ExecutionTally {

    private final Map<String, AtomicLong> runsPerJob = new ConcurrentHashMap<>();
    private final Set<String> accepted = ConcurrentHashMap.newKeySet();
    private final AtomicLong duplicateRuns = new AtomicLong();
    private final AtomicLong duplicateAccepted = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final Map<String, AtomicLong> errorsByKind = new ConcurrentHashMap<>();
    private final AtomicReference<String> firstError = new AtomicReference<>();

    /** The job's work ran once more. */
    void ran(String jobId) {
        if (runsPerJob.computeIfAbsent(jobId, id -> new AtomicLong()).incrementAndGet() > 1) {
            duplicateRuns.incrementAndGet();
        }
    }

    /** The system accepted the job's completion: must happen once per job. */
    void accepted(String jobId) {
        if (!accepted.add(jobId)) {
            duplicateAccepted.incrementAndGet();
        }
    }

    /** The system refused a completion (leaselab: stale owner or fence); not an error by itself. */
    void refused() {
        refused.incrementAndGet();
    }

    void error(String kind, Throwable cause) {
        error(kind, cause == null ? null : cause.toString());
    }

    void error(String kind, String message) {
        errorsByKind.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
        firstError.compareAndSet(null, kind + (message == null ? "" : ": " + message));
    }

    /** Distinct jobs whose work ran at least once. */
    long distinctRun() {
        return runsPerJob.size();
    }

    long runs() {
        return runsPerJob.values().stream().mapToLong(AtomicLong::get).sum();
    }

    long duplicateRuns() {
        return duplicateRuns.get();
    }

    long acceptedCompletions() {
        return accepted.size() + duplicateAccepted.get();
    }

    long duplicateAccepted() {
        return duplicateAccepted.get();
    }

    long refusedCompletions() {
        return refused.get();
    }

    long errors() {
        return errorsByKind.values().stream().mapToLong(AtomicLong::get).sum();
    }

    Map<String, Long> errorsByKind() {
        Map<String, Long> m = new TreeMap<>();
        errorsByKind.forEach((k, v) -> m.put(k, v.get()));
        return m;
    }

    String firstError() {
        return firstError.get();
    }
}
