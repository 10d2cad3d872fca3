package dev.leaselab.stress;

import dev.leaselab.lease.JobState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * Judges a merged history of lease operations, and the final database, against the lease
 * contract. "Before" means real time: an operation that ended before another began. Operations
 * whose answer is unknown (the process died) may or may not have taken effect, and the rules
 * allow both. The rules, each checked per job:
 *
 * <ol>
 *   <li>the fences of successful claims are distinct and run 1..k; a gap is allowed only where
 *       an unknown claim may have taken the fence (a claim of {@link Op#ANY_JOB}, a claimNext
 *       whose answer was lost, counts for every job);
 *   <li>a claim that finished before another began has the smaller fence;
 *   <li>no renew, complete or release is accepted with a fence older than a claim that finished
 *       before the write began;
 *   <li>at most one complete is accepted;
 *   <li>the final row agrees with the history: fence, owner, done, and the result of the
 *       accepted complete;
 *   <li>a claim succeeds only when the previous generation's lease had expired (by the
 *       {@code now} the claim was given), was released, and the job was not completed: one live
 *       lease at a time. This is what catches two winners of one race, whatever fences they got.
 * </ol>
 *
 * <p>And, by the clock of the lease holder itself:
 * <ol start="8">
 *   <li>a renew or complete is accepted only while its lease is live: its {@code now} is before
 *       the latest expiry that its claim, or a renew of the same fence that may have taken effect
 *       before it, set. This catches a store that renews or completes an expired lease that
 *       nobody has claimed since, which no other worker's operation shows.
 * </ol>
 *
 * <p>And, for what a worker's contract probes ({@link StressWorker}) set up:
 * <ol start="9">
 *   <li>a claim of a job known to exist (an enqueue of it was answered, inserted or "exists",
 *       before the claim began) is refused only when a lease may have been live by the claim's
 *       {@code now}, or the job may have been done: some claim or renew of the job that may have
 *       taken effect before the refused claim ended (accepted or unknown, begun before it ended)
 *       set an expiry after its {@code now}, or some complete that may have been accepted began
 *       before it ended. This catches a store that holds a lease at {@code now == until}, and a
 *       claimMany in which nobody won a fresh job. Conservative: every write that may have
 *       counted is taken to have counted;
 *   <li>a job under {@link Op#NEVER_ENQUEUED} does not exist: a state read of it reports no row
 *       and no claim of it is granted;
 *   <li>claimMany races its owners: of the claimMany calls with one list of owners (a call is
 *       the claims of one job by one process that share their start and end, recorded as
 *       {@link RecordedStore#claimMany} does; the workers of one store name their owners alike,
 *       so a store's calls are pooled over its processes) whose answers are all known and have
 *       one winner, the first owner does not win every one of {@value #FIRST_OWNER_CALLS} or
 *       more. A claimMany that lets only its first owner claim hands out exactly one fence, so
 *       only the winner's place shows it.
 * </ol>
 *
 * <p>A drained queue ({@link #checkDrained}) must besides have every job done:
 * <ol start="7">
 *   <li>every job in the final database is done, with the result that the holder of its last
 *       lease (the stored owner and fence) writes: a late writer's result under another's
 *       lease shows here even where the history could not order the two.
 * </ol>
 */
public final class HistoryChecker {

    /**
     * The claimMany calls with one list of owners, all won by their first owner, that break rule
     * 11. The first owner of a correct store's claimMany wins more often than the others (its
     * thread starts first): 21% to 35% of 200 calls of the Python design's claimMany with 3
     * owners, 30% to 64% of the 18 to 47 calls per race of each SQLite strategy in the process
     * race's claimMany probes, about 60% of the thread race's rounds of 2 to 8 owners; so a correct
     * store breaks the rule with a probability of p^n for its n calls of a race, below 0.64^20,
     * about 1e-4, at the least number of calls, and far below at the 40 or more calls a Java
     * store's workers make in a quick race.
     */
    static final int FIRST_OWNER_CALLS = 20;

    private HistoryChecker() {
    }

    /**
     * Checks {@code ops} and, when {@code finalRows} is not null, the final rows of the database
     * (by job id) against them.
     */
    public static CheckReport check(List<Op> ops, Map<String, JobState> finalRows) {
        Objects.requireNonNull(ops, "ops");
        Map<String, List<Op>> byJob = new TreeMap<>();
        long origin = Long.MAX_VALUE;
        int claimsOfAnyJob = 0;
        List<Op> unknownClaimsOfAnyJob = new ArrayList<>();
        for (Op op : ops) {
            origin = Math.min(origin, op.start());
            if (Op.ANY_JOB.equals(op.job())) {
                // Answered ones are claimNext calls that came back (empty): they took no fence.
                if (op.outcome() == Op.Outcome.UNKNOWN) {
                    claimsOfAnyJob++;
                    unknownClaimsOfAnyJob.add(op);
                }
                continue;
            }
            byJob.computeIfAbsent(op.job(), j -> new ArrayList<>()).add(op);
        }
        List<Violation> violations = new ArrayList<>();
        int[] stale = new int[2];
        for (Map.Entry<String, List<Op>> job : byJob.entrySet()) {
            JobHistory history = new JobHistory(job.getKey(), job.getValue(), claimsOfAnyJob);
            history.fencesRunOneToK(violations);
            history.earlierClaimHasSmallerFence(violations);
            history.noStaleWriteAccepted(violations, stale);
            history.atMostOneComplete(violations);
            if (finalRows != null) {
                history.finalRowAgrees(finalRows.get(job.getKey()), violations);
            }
            history.oneLiveLeaseAtATime(violations);
            history.writesOnlyUnderALiveLease(violations);
            history.claimRefusedOnlyWhenHeldOrDone(unknownClaimsOfAnyJob, violations);
            history.neverEnqueuedJobIsAbsent(violations);
        }
        claimManyRacesItsOwners(ops, violations);
        return new CheckReport(ops.size(), byJob.size(), stale[0], stale[1], List.copyOf(violations),
                origin == Long.MAX_VALUE ? 0 : origin);
    }

    /**
     * Checks a history whose queue was drained to the end: {@link #check} with the final rows,
     * and rule 7, every job done with the result of its last holder.
     *
     * @param resultOf the result a worker completes a job with, given its owner and fence
     */
    public static CheckReport checkDrained(List<Op> ops, Map<String, JobState> finalRows,
            BiFunction<String, Long, String> resultOf) {
        Objects.requireNonNull(finalRows, "finalRows");
        Objects.requireNonNull(resultOf, "resultOf");
        CheckReport report = check(ops, finalRows);
        List<Violation> violations = new ArrayList<>(report.violations());
        for (JobState row : finalRows.values()) {
            String expected = resultOf.apply(row.owner(), row.fence());
            if (!row.done()) {
                violations.add(new Violation(7, row.id(), "the job was left undone after the queue was drained: fence "
                        + row.fence() + ", owner " + row.owner(), List.of()));
            } else if (!Objects.equals(row.result(), expected)) {
                violations.add(new Violation(7, row.id(), "stored result " + row.result() + " under the lease of "
                        + row.owner() + " with fence " + row.fence() + ", whose result would be " + expected, List.of()));
            }
        }
        return new CheckReport(report.operations(), report.jobs(), report.staleWrites(), report.staleWritesRejected(),
                List.copyOf(violations), report.origin());
    }

    /**
     * Every stale write of {@code ops} with an answer: a renew, complete or release whose fence is
     * older than that of a claim of its job which finished before the write began. Each comes as
     * {@code {that claim, the write}}, the claim the one with the largest fence.
     */
    static List<Op[]> staleWrites(List<Op> ops) {
        Map<String, List<Op>> claims = new HashMap<>();
        Map<String, List<Op>> writes = new HashMap<>();
        for (Op op : ops) {
            if (op.kind() == Op.Kind.CLAIM && op.ok()) {
                claims.computeIfAbsent(op.job(), j -> new ArrayList<>()).add(op);
            } else if (isWrite(op) && op.outcome() != Op.Outcome.UNKNOWN) {
                writes.computeIfAbsent(op.job(), j -> new ArrayList<>()).add(op);
            }
        }
        List<Op[]> stale = new ArrayList<>();
        writes.forEach((job, jobWrites) -> stale.addAll(allFinishedBefore(claims.getOrDefault(job, List.of()), jobWrites,
                (prior, write) -> prior.fence() > write.fence())));
        return stale;
    }

    /** Whether {@code op} is a renew, complete or release: a write under a lease, with a fence. */
    private static boolean isWrite(Op op) {
        return op.kind() == Op.Kind.RENEW || op.kind() == Op.Kind.COMPLETE || op.kind() == Op.Kind.RELEASE;
    }

    /** Rule 11: the first owner of the claimMany calls with one list of owners does not win them all. */
    private static void claimManyRacesItsOwners(List<Op> ops, List<Violation> out) {
        // A claimMany call: the claims of one job by one process that share start and end, in seq order.
        Map<List<Object>, List<Op>> calls = new java.util.LinkedHashMap<>();
        for (Op op : ops) {
            if (op.kind() == Op.Kind.CLAIM && !Op.ANY_JOB.equals(op.job()) && op.end() != Long.MAX_VALUE) {
                calls.computeIfAbsent(List.of(op.process(), op.job(), op.start(), op.end()), k -> new ArrayList<>())
                        .add(op);
            }
        }
        Map<List<String>, List<List<Op>>> judgedByOwners = new java.util.LinkedHashMap<>();
        for (List<Op> call : calls.values()) {
            if (call.size() < 2 || call.stream().map(Op::owner).distinct().count() != call.size()
                    || call.stream().filter(Op::ok).count() != 1) {
                continue;  // one claim, or not a call with one winner: rules 1 and 9 judge those
            }
            List<Op> ordered = new ArrayList<>(call);
            ordered.sort(Comparator.comparingLong(Op::seq));
            judgedByOwners.computeIfAbsent(ordered.stream().map(Op::owner).toList(), o -> new ArrayList<>()).add(ordered);
        }
        judgedByOwners.forEach((owners, judged) -> {
            if (judged.size() >= FIRST_OWNER_CALLS && judged.stream().allMatch(call -> call.get(0).ok())) {
                judged.sort(Comparator.comparingLong(call -> call.get(0).start()));
                Op first = judged.get(0).get(0);
                Op last = judged.get(FIRST_OWNER_CALLS - 1).get(0);
                out.add(new Violation(11, last.job(), "the first owner won all " + judged.size()
                        + " claimMany calls of the owners " + owners + " (the " + FIRST_OWNER_CALLS + "th at "
                        + last.job() + "); the other owners never raced", List.of(first, last)));
            }
        });
    }

    /** The operations on one job, sorted the ways the rules need them. */
    private static final class JobHistory {
        private final String job;
        private final List<Op> okClaims = new ArrayList<>();
        private final List<Op> writes = new ArrayList<>();
        private final List<Op> all;
        private int unknownClaims;

        /** @param claimsOfAnyJob unknown claims of {@link Op#ANY_JOB}: each may have taken one fence of this job */
        JobHistory(String job, List<Op> ops, int claimsOfAnyJob) {
            this.job = job;
            this.all = ops;
            this.unknownClaims = claimsOfAnyJob;
            for (Op op : ops) {
                if (op.kind() == Op.Kind.CLAIM) {
                    if (op.ok()) {
                        okClaims.add(op);
                    } else if (op.outcome() == Op.Outcome.UNKNOWN) {
                        unknownClaims++;
                    }
                } else if (isWrite(op)) {
                    writes.add(op);
                }
            }
            okClaims.sort(Comparator.comparingLong(Op::fence).thenComparingLong(Op::start));
        }

        void fencesRunOneToK(List<Violation> out) {
            Op previous = null;
            int missing = 0;
            for (Op claim : okClaims) {
                long expected = previous == null ? 1 : previous.fence() + 1;
                if (previous != null && claim.fence() == previous.fence()) {
                    out.add(new Violation(1, job, "fence " + claim.fence() + " was handed out twice",
                            List.of(previous, claim)));
                    return;
                }
                missing += (int) (claim.fence() - expected);
                if (claim.fence() < 1 || missing > unknownClaims) {
                    out.add(new Violation(1, job, "fence " + claim.fence() + " was handed out where " + expected
                            + " was due (" + unknownClaims + " claims of unknown outcome could fill a gap)",
                            previous == null ? List.of(claim) : List.of(previous, claim)));
                    return;
                }
                previous = claim;
            }
        }

        void earlierClaimHasSmallerFence(List<Violation> out) {
            Op[] witness = latestFinishedBefore(okClaims, okClaims, (prior, later) -> prior.fence() >= later.fence());
            if (witness != null) {
                out.add(new Violation(2, job, "a claim that finished before another began got fence "
                        + witness[0].fence() + ", not smaller than the later " + witness[1].fence(),
                        List.of(witness[0], witness[1])));
            }
        }

        void noStaleWriteAccepted(List<Violation> out, int[] stale) {
            List<Op> answered = writes.stream().filter(w -> w.outcome() != Op.Outcome.UNKNOWN).toList();
            boolean reported = false;
            for (Op[] pair : allFinishedBefore(okClaims, answered, (prior, w) -> prior.fence() > w.fence())) {
                stale[0]++;
                if (pair[1].ok()) {
                    if (!reported) {
                        out.add(new Violation(3, job, "a " + pair[1].kind().name().toLowerCase() + " with fence "
                                + pair[1].fence() + " was accepted after fence " + pair[0].fence()
                                + " had been claimed", List.of(pair[0], pair[1])));
                        reported = true;
                    }
                } else {
                    stale[1]++;
                }
            }
        }

        void atMostOneComplete(List<Violation> out) {
            List<Op> completes = okOf(Op.Kind.COMPLETE);
            if (completes.size() > 1) {
                out.add(new Violation(4, job, "the job was completed " + completes.size() + " times",
                        List.of(completes.get(0), completes.get(1))));
            }
        }

        void finalRowAgrees(JobState row, List<Violation> out) {
            Op lastClaim = okClaims.isEmpty() ? null : okClaims.get(okClaims.size() - 1);
            long claimed = lastClaim == null ? 0 : lastClaim.fence();
            if (row == null) {
                if (!okClaims.isEmpty()) {
                    out.add(new Violation(5, job, "the job is missing from the final file", List.of(lastClaim)));
                }
                return;
            }
            if (row.fence() < claimed || row.fence() > claimed + unknownClaims) {
                out.add(new Violation(5, job, "stored fence " + row.fence() + " but the history claimed up to "
                        + claimed + " (with " + unknownClaims + " claims of unknown outcome)",
                        lastClaim == null ? List.of() : List.of(lastClaim)));
                return;
            }
            List<Op> completes = okOf(Op.Kind.COMPLETE);
            List<Op> maybeCompletes = of(Op.Kind.COMPLETE, op -> op.outcome() == Op.Outcome.UNKNOWN);
            if (!completes.isEmpty()) {
                if (!row.done() || !Objects.equals(row.result(), completes.get(0).result())) {
                    out.add(new Violation(5, job, "stored done=" + row.done() + ", result=" + row.result()
                            + ", but this complete was accepted", List.of(completes.get(0))));
                }
            } else if (row.done() && maybeCompletes.stream().noneMatch(c -> Objects.equals(c.result(), row.result()))) {
                out.add(new Violation(5, job, "stored done with result " + row.result()
                        + ", but no complete with that result was accepted", List.of()));
            }
            if (lastClaim != null && row.fence() == claimed) {
                boolean released = anyOf(Op.Kind.RELEASE, r -> r.fence() == claimed && r.ok());
                boolean maybeReleased = anyOf(Op.Kind.RELEASE, r -> r.fence() == claimed && r.outcome() == Op.Outcome.UNKNOWN);
                String expected = released ? null : lastClaim.owner();
                if (!Objects.equals(row.owner(), expected) && !(maybeReleased && row.owner() == null)) {
                    out.add(new Violation(5, job, "stored owner " + row.owner() + " with fence " + row.fence()
                            + ", but the history says " + expected, List.of(lastClaim)));
                }
            }
        }

        void oneLiveLeaseAtATime(List<Violation> out) {
            for (int i = 1; i < okClaims.size(); i++) {
                Op previous = okClaims.get(i - 1);
                Op claim = okClaims.get(i);
                if (claim.fence() != previous.fence() + 1) {
                    continue;
                }
                long generation = previous.fence();
                // A complete that began after this claim ended is a stale write: rule 3 reports it.
                List<Op> completed = of(Op.Kind.COMPLETE,
                        c -> c.fence() == generation && c.ok() && c.start() <= claim.end());
                if (!completed.isEmpty()) {
                    out.add(new Violation(6, job, "fence " + claim.fence() + " was claimed after the job was completed",
                            List.of(completed.get(0), claim)));
                    return;
                }
                if (anyOf(Op.Kind.RELEASE, r -> r.fence() == generation && r.outcome() != Op.Outcome.REJECTED)) {
                    continue;
                }
                Op earliestExpiry = earliestPossibleExpiry(previous, claim);
                if (claim.now() < earliestExpiry.until()) {
                    out.add(new Violation(6, job, "fence " + claim.fence() + " was claimed at now=" + claim.now()
                            + " while fence " + generation + " was live until " + earliestExpiry.until()
                            + ": two live leases", List.of(earliestExpiry, claim)));
                    return;
                }
            }
        }

        void writesOnlyUnderALiveLease(List<Violation> out) {
            for (Op write : writes) {
                if (!write.ok() || write.kind() == Op.Kind.RELEASE) {
                    continue;  // release has no time: it is accepted after the expiry too
                }
                Op claim = okClaims.stream().filter(c -> c.fence() == write.fence()).findFirst().orElse(null);
                if (claim == null) {
                    continue;  // its claim's answer was lost: its expiry is not known
                }
                // The latest expiry that may have been stored when the write ran.
                Op latest = claim;
                for (Op renew : of(Op.Kind.RENEW, r -> r != write && r.fence() == write.fence()
                        && r.outcome() != Op.Outcome.REJECTED && r.start() < write.end())) {
                    if (renew.until() > latest.until()) {
                        latest = renew;
                    }
                }
                if (write.now() >= latest.until()) {
                    out.add(new Violation(8, job, "a " + write.kind().name().toLowerCase() + " with fence " + write.fence()
                            + " was accepted at now=" + write.now() + ", after its lease had expired at " + latest.until(),
                            List.of(latest, write)));
                    return;
                }
            }
        }

        void claimRefusedOnlyWhenHeldOrDone(List<Op> unknownClaimsOfAnyJob, List<Violation> out) {
            List<Op> enqueues = of(Op.Kind.ENQUEUE, e -> e.outcome() != Op.Outcome.UNKNOWN);
            if (enqueues.isEmpty()) {
                return;  // not known to exist: a claim of a missing job is refused
            }
            long existsFrom = enqueues.stream().mapToLong(Op::end).min().orElseThrow();
            for (Op claim : all) {
                if (claim.kind() != Op.Kind.CLAIM || claim.outcome() != Op.Outcome.REJECTED
                        || claim.start() <= existsFrom) {
                    continue;
                }
                boolean held = java.util.stream.Stream.concat(all.stream(), unknownClaimsOfAnyJob.stream())
                        .anyMatch(set -> set != claim && (set.kind() == Op.Kind.CLAIM || set.kind() == Op.Kind.RENEW)
                                && set.outcome() != Op.Outcome.REJECTED && set.start() < claim.end()
                                && set.until() > claim.now());
                boolean done = anyOf(Op.Kind.COMPLETE, c -> c.outcome() != Op.Outcome.REJECTED && c.start() < claim.end());
                if (!held && !done) {
                    // The witness: the claim or renew that set the latest expiry before it, if any.
                    Op latest = all.stream()
                            .filter(set -> set != claim && (set.kind() == Op.Kind.CLAIM || set.kind() == Op.Kind.RENEW)
                                    && set.outcome() != Op.Outcome.REJECTED && set.start() < claim.end())
                            .max(Comparator.comparingDouble(Op::until)).orElse(null);
                    out.add(new Violation(9, job, "a claim at now=" + claim.now() + " was refused, though no lease "
                            + "that may have been stored ran past it ("
                            + (latest == null ? "none was ever set" : "the latest ran until " + latest.until())
                            + ") and no complete may have been accepted",
                            latest == null ? List.of(claim) : List.of(latest, claim)));
                    return;
                }
            }
        }

        void neverEnqueuedJobIsAbsent(List<Violation> out) {
            if (!job.startsWith(Op.NEVER_ENQUEUED)) {
                return;
            }
            for (Op op : all) {
                if ((op.kind() == Op.Kind.STATE || op.kind() == Op.Kind.CLAIM) && op.ok()) {
                    out.add(new Violation(10, job, "a job that was never enqueued "
                            + (op.kind() == Op.Kind.STATE ? "read as a row with fence " + op.fence()
                                    : "was claimed with fence " + op.fence()) + ", not as absent", List.of(op)));
                    return;
                }
            }
        }

        /**
         * The write of generation {@code previous} with the earliest expiry that may have been the
         * stored one when {@code claim} ran: the claim itself or a renew (an unknown renew may have
         * counted too), unless another of those writes certainly came after it and certainly
         * before the claim.
         */
        private Op earliestPossibleExpiry(Op previous, Op claim) {
            List<Op> sets = new ArrayList<>();
            sets.add(previous);
            sets.addAll(of(Op.Kind.RENEW, r -> r.fence() == previous.fence() && r.outcome() != Op.Outcome.REJECTED
                    && r.start() < claim.end()));
            return sets.stream()
                    .filter(write -> sets.stream().noneMatch(
                            later -> write.end() < later.start() && later.end() < claim.start()))
                    .min(Comparator.comparingDouble(Op::until))
                    .orElse(previous);
        }

        private List<Op> okOf(Op.Kind kind) {
            return of(kind, Op::ok);
        }

        private List<Op> of(Op.Kind kind, Predicate<Op> filter) {
            return all.stream().filter(op -> op.kind() == kind && filter.test(op)).toList();
        }

        private boolean anyOf(Op.Kind kind, Predicate<Op> filter) {
            return all.stream().anyMatch(op -> op.kind() == kind && filter.test(op));
        }
    }

    private interface PairTest {
        boolean broken(Op prior, Op later);
    }

    /**
     * For each later operation, the claim with the largest fence among those that finished before
     * it began; returns the first pair that {@code test} calls broken, or null.
     */
    private static Op[] latestFinishedBefore(List<Op> claims, List<Op> later, PairTest test) {
        List<Op[]> pairs = allFinishedBefore(claims, later, test);
        return pairs.isEmpty() ? null : pairs.get(0);
    }

    /** Every (largest-fence claim finished before, later operation) pair that {@code test} calls broken. */
    private static List<Op[]> allFinishedBefore(List<Op> claims, List<Op> later, PairTest test) {
        List<Op> byEnd = new ArrayList<>(claims);
        byEnd.sort(Comparator.comparingLong(Op::end));
        List<Op> byStart = new ArrayList<>(later);
        byStart.sort(Comparator.comparingLong(Op::start));
        List<Op[]> broken = new ArrayList<>();
        Op largest = null;
        int next = 0;
        for (Op op : byStart) {
            while (next < byEnd.size() && byEnd.get(next).end() < op.start()) {
                Op finished = byEnd.get(next++);
                if (largest == null || finished.fence() > largest.fence()) {
                    largest = finished;
                }
            }
            if (largest != null && largest != op && test.broken(largest, op)) {
                broken.add(new Op[] {largest, op});
            }
        }
        return broken;
    }
}
