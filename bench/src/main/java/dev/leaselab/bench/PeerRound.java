package dev.leaselab.bench;

import java.util.Locale;
import java.util.Map;

/**
 * One round of {@link PeerDrainMain}: one system draining {@code jobs} prefilled no-op jobs with
 * {@code threads} workers on a fresh database.
 *
 * @param system e.g. {@code leaselab CONDITIONAL_UPDATE} or {@code db-scheduler FETCH}
 * @param storage the SQLite storage setting, or {@code POSTGRESQL}
 * @param round 1-based; 0 for the warmup round, which is not reported
 * @param seconds wall time from the first claim (leaselab) or the scheduler's start (db-scheduler)
 *     to the last completion
 * @param distinctRun jobs whose work ran at least once
 * @param duplicateRuns runs of a job's work beyond its first
 * @param acceptedCompletions completions the system accepted (leaselab: {@code complete} returned
 *     true; db-scheduler: executions that finished OK, after which it deletes the row)
 * @param duplicateAccepted accepted completions of a job that already had one
 * @param refused completions the system refused (leaselab only)
 * @param left jobs still in the database and not done after the round
 * @param timedOut the round was stopped at its deadline before every job had finished
 * @param prefillSeconds how long writing the jobs took (not measured in {@code seconds})
 */
record PeerRound(String system, String storage, int threads, int round, int jobs, double seconds, double jobsPerSecond,
                 long distinctRun, long duplicateRuns, long acceptedCompletions, long duplicateAccepted, long refused,
                 long errors, Map<String, Long> errorsByKind, String firstError, long left, boolean timedOut,
                 double prefillSeconds) {

    static PeerRound of(String system, String storage, int threads, int round, int jobs, long startNanos, long endNanos,
                        ExecutionTally tally, long left, boolean timedOut, double prefillSeconds) {
        double seconds = Math.max(1e-9, (endNanos - startNanos) / 1e9);
        return new PeerRound(system, storage, threads, round, jobs, seconds, tally.acceptedCompletions() / seconds,
                tally.distinctRun(), tally.duplicateRuns(), tally.acceptedCompletions(), tally.duplicateAccepted(),
                tally.refusedCompletions(), tally.errors(), tally.errorsByKind(), tally.firstError(), left, timedOut,
                prefillSeconds);
    }

    /** Every job ran exactly once, was accepted once, and nothing failed. */
    boolean clean() {
        return distinctRun == jobs && duplicateRuns == 0 && acceptedCompletions == jobs && duplicateAccepted == 0
                && errors == 0 && left == 0 && !timedOut;
    }

    String line() {
        return String.format(Locale.ROOT, "%-32s %-10s T=%-2d round %d: %9.0f jobs/s  %7.3f s  ran %d  dup runs %d  "
                        + "accepted %d  dup accepted %d  refused %d  errors %d  left %d%s%s",
                system, storage, threads, round, jobsPerSecond, seconds, distinctRun, duplicateRuns, acceptedCompletions,
                duplicateAccepted, refused, errors, left, timedOut ? "  TIMED OUT" : "",
                firstError == null ? "" : "  first error: " + firstError);
    }
}
