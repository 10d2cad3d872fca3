package dev.leaselab.stress;

import java.util.Locale;

/**
 * One operation in a history: what was asked, what the store answered, and when, in nanoseconds
 * on a clock that all processes of the history share: {@link System#nanoTime()} (CLOCK_MONOTONIC
 * on Linux) or the wall clock of {@link HostClock}.
 *
 * @param process who ran it (a worker process or a thread group)
 * @param seq the operation's number within its process
 * @param kind the operation
 * @param job the job id
 * @param owner the owner argument
 * @param fence for a claim, the fence it returned (0 unless {@link Outcome#OK}); for a write, the
 *     fence argument; for a state read, the stored fence it returned (0 when absent)
 * @param now the lease clock passed to the store (0 for release)
 * @param ttl the lease time of a claim or renew (0 otherwise)
 * @param result the result argument of a complete (null otherwise)
 * @param outcome accepted, rejected, or unknown (the process died or the call failed); for an
 *     enqueue, {@link Outcome#OK} when it inserted the job and {@link Outcome#REJECTED} when the job
 *     existed; for a state read, {@link Outcome#OK} when a row came back and
 *     {@link Outcome#REJECTED} when the store said there was none
 * @param start when the call began
 * @param end when it returned; {@link Long#MAX_VALUE} when unknown, since it may have taken
 *     effect at any time after its start
 */
public record Op(String process, long seq, Kind kind, String job, String owner, long fence, double now,
        double ttl, String result, Outcome outcome, long start, long end) {

    /**
     * The job of a claim whose job is not known: a {@code claimNext} that failed or whose process
     * died, which may have taken the next fence of any job (one per job at most).
     */
    public static final String ANY_JOB = "*";

    /**
     * The prefix of job ids that no worker ever enqueues: the contract probes of
     * {@link StressWorker} read their state and claim them, and {@link HistoryChecker}'s rule 10
     * requires that the store has no such job.
     */
    public static final String NEVER_ENQUEUED = "never-";

    /** The prefix of the jobs of {@link StressWorker}'s contract probes, each job one worker's own. */
    public static final String PROBE_JOB = "probe-";

    /** Whether {@code job} is a contract probe's ({@link #PROBE_JOB} or {@link #NEVER_ENQUEUED}), not one the workers race for. */
    public static boolean isProbeJob(String job) {
        return job.startsWith(PROBE_JOB) || job.startsWith(NEVER_ENQUEUED);
    }

    /**
     * The lease operations a history records, and the two that only set the stage: an enqueue
     * (so that the checker knows the job exists from then on) and a state read with its answer.
     * Histories written before the last two existed read back as they were.
     */
    public enum Kind { CLAIM, RENEW, COMPLETE, RELEASE, ENQUEUE, STATE }

    /** What became of an operation. */
    public enum Outcome {
        /** The store accepted it (a claim returned a fence, a write returned true). */
        OK,
        /** The store looked and refused it. */
        REJECTED,
        /** No answer: the process was killed or the database failed; it may or may not have taken effect. */
        UNKNOWN
    }

    /** This operation with its answer. */
    public Op answered(Outcome answer, long claimedFence, long endNanos) {
        return new Op(process, seq, kind, job, owner, kind == Kind.CLAIM || kind == Kind.STATE ? claimedFence : fence,
                now, ttl, result,
                answer, start, endNanos);
    }

    /** Whether the store accepted it. */
    public boolean ok() {
        return outcome == Outcome.OK;
    }

    /** The lease expiry this claim or renew asked for. */
    public double until() {
        return now + ttl;
    }

    /** One line for a witness, with times in microseconds after {@code origin}. */
    public String describe(long origin) {
        String args = switch (kind) {
            case CLAIM -> String.format(Locale.ROOT, "claim(%s, %s, now=%s, ttl=%s)", job, owner, num(now), num(ttl));
            case RENEW -> String.format(Locale.ROOT, "renew(%s, %s, fence=%d, now=%s, ttl=%s)", job, owner, fence,
                    num(now), num(ttl));
            case COMPLETE -> String.format(Locale.ROOT, "complete(%s, %s, fence=%d, now=%s, %s)", job, owner, fence,
                    num(now), result);
            case RELEASE -> String.format(Locale.ROOT, "release(%s, %s, fence=%d)", job, owner, fence);
            case ENQUEUE -> String.format(Locale.ROOT, "enqueue(%s)", job);
            case STATE -> String.format(Locale.ROOT, "state(%s)", job);
        };
        String answer = switch (outcome) {
            case OK -> kind == Kind.CLAIM ? "fence " + fence : kind == Kind.STATE ? "a row with fence " + fence
                    : kind == Kind.ENQUEUE ? "inserted" : "accepted";
            case REJECTED -> kind == Kind.CLAIM ? "no fence" : kind == Kind.STATE ? "absent"
                    : kind == Kind.ENQUEUE ? "exists" : "rejected";
            case UNKNOWN -> "unknown";
        };
        String until = end == Long.MAX_VALUE ? "?" : Long.toString((end - origin) / 1000);
        return String.format(Locale.ROOT, "%s#%d %s -> %s  [%d..%s us]", process, seq, args, answer,
                (start - origin) / 1000, until);
    }

    private static String num(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value);
    }
}
