package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.JobState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The checker on hand-written histories of one job "j": legal ones must pass, and each illegal
 * one must break exactly the rule it was written to break, with the offending operations as its
 * witness. Times are in arbitrary units; {@code at(start, end)} gives an operation its interval.
 */
class HistoryCheckerTest {

    private final List<Op> ops = new ArrayList<>();
    private long seq;

    private Op add(Op.Kind kind, String owner, long fence, double now, double ttl, String result,
            Op.Outcome outcome, long start, long end) {
        Op op = new Op("p", ++seq, kind, "j", owner, fence, now, ttl, result, outcome, start, end);
        ops.add(op);
        return op;
    }

    private Op claim(String owner, long fence, double now, long start, long end) {
        return add(Op.Kind.CLAIM, owner, fence, now, 10, null, fence > 0 ? Op.Outcome.OK : Op.Outcome.REJECTED,
                start, end);
    }

    private Op write(Op.Kind kind, String owner, long fence, double now, boolean ok, long start, long end) {
        return add(kind, owner, fence, now, kind == Op.Kind.RENEW ? 10 : 0,
                kind == Op.Kind.COMPLETE ? "result-of-" + owner : null, ok ? Op.Outcome.OK : Op.Outcome.REJECTED,
                start, end);
    }

    private static Map<String, JobState> row(String owner, double until, long fence, String result, boolean done) {
        return Map.of("j", new JobState("j", owner, until, fence, result, done));
    }

    private CheckReport check(Map<String, JobState> rows) {
        return HistoryChecker.check(ops, rows);
    }

    private static List<Integer> rules(CheckReport report) {
        return report.violations().stream().map(Violation::rule).collect(Collectors.toList());
    }

    @Test
    void aRenewOrCompleteAcceptedAfterItsLeaseExpiredBreaksRule8() {
        claim("a", 1, 0, 0, 1);                              // live until 10
        write(Op.Kind.RENEW, "a", 1, 10, true, 2, 3);        // at now == until: must be refused
        assertEquals(List.of(8), rules(check(null)));

        ops.clear();
        claim("a", 1, 0, 0, 1);
        write(Op.Kind.RENEW, "a", 1, 5, true, 2, 3);         // live until 15 now
        write(Op.Kind.COMPLETE, "a", 1, 14, true, 4, 5);     // before the renewed expiry: fine
        assertEquals(List.of(), rules(check(null)));

        ops.clear();
        claim("a", 1, 0, 0, 1);
        write(Op.Kind.COMPLETE, "a", 1, 12, true, 2, 3);     // nobody claimed since, but expired at 10
        assertEquals(List.of(8), rules(check(null)));
        assertEquals(2, check(null).violations().get(0).witness().size());
    }

    @Test
    void aRenewOfUnknownOutcomeMayHaveKeptTheLeaseLive() {
        claim("a", 1, 0, 0, 1);
        add(Op.Kind.RENEW, "a", 1, 8, 10, null, Op.Outcome.UNKNOWN, 2, Long.MAX_VALUE);  // may have set 18
        write(Op.Kind.COMPLETE, "a", 1, 12, true, 4, 5);
        assertEquals(List.of(), rules(check(null)));
    }

    @Test
    void legalHistoryWithExpiryStaleWriteAndCompletePasses() {
        claim("a", 1, 0, 0, 1);
        claim("b", 0, 5, 2, 3);                              // a's lease is live: b loses
        claim("b", 2, 10, 4, 5);                             // at now == until the lease is claimable
        write(Op.Kind.COMPLETE, "a", 1, 10, false, 6, 7);    // a wakes up late: refused
        write(Op.Kind.RENEW, "b", 2, 12, true, 8, 9);
        write(Op.Kind.COMPLETE, "b", 2, 13, true, 10, 11);

        CheckReport report = check(row("b", 22, 2, "result-of-b", true));

        assertTrue(report.passed(), report.describeViolations(5));
        assertEquals(1, report.staleWrites());
        assertEquals(1, report.staleWritesRejected());
    }

    @Test
    void concurrentClaimsMayGetFencesInEitherOrder() {
        claim("a", 2, 0, 0, 10);
        claim("b", 1, 0, 1, 3);
        write(Op.Kind.RELEASE, "b", 1, 0, true, 2, 4);  // b released before a claimed: legal

        assertTrue(check(row("a", 10, 2, null, false)).passed());
    }

    @Test
    void releaseKeepsTheFenceAndClearsTheOwner() {
        claim("a", 1, 0, 0, 1);
        write(Op.Kind.RELEASE, "a", 1, 0, true, 2, 3);
        claim("b", 2, 1, 4, 5);                              // before a's lease would have run out
        write(Op.Kind.RELEASE, "b", 2, 0, true, 6, 7);

        assertTrue(check(row(null, 0, 2, null, false)).passed());
    }

    @Test
    void claimOfUnknownOutcomeMayFillAGapInTheFences() {
        claim("a", 1, 0, 0, 1);
        add(Op.Kind.CLAIM, "killed", 0, 10, 10, null, Op.Outcome.UNKNOWN, 2, Long.MAX_VALUE);
        claim("b", 3, 30, 4, 5);

        assertTrue(check(row("b", 40, 3, null, false)).passed(), check(null).describeViolations(5));
    }

    @Test
    void fenceHandedOutTwiceBreaksRuleOne() {
        Op first = claim("a", 1, 0, 0, 1);
        write(Op.Kind.RELEASE, "a", 1, 0, true, 2, 3);
        Op again = claim("b", 1, 1, 4, 5);

        CheckReport report = check(null);

        assertTrue(rules(report).contains(1), report.describeViolations(5));
        Violation v = report.violations().get(0);
        assertEquals(List.of(first, again), v.witness());
    }

    @Test
    void gapInTheFencesBreaksRuleOne() {
        claim("a", 1, 0, 0, 1);
        claim("b", 3, 10, 2, 3);

        assertEquals(List.of(1), rules(check(null)));
    }

    @Test
    void laterClaimWithSmallerFenceBreaksRuleTwo() {
        claim("a", 2, 40, 0, 1);
        claim("b", 1, 20, 2, 3);  // began after a's claim ended, yet got the smaller fence

        assertEquals(List.of(2), rules(check(null)));
    }

    @Test
    void staleCompleteAcceptedBreaksRuleThree() {
        Op claimA = claim("a", 1, 0, 0, 1);
        Op claimB = claim("b", 2, 10, 2, 3);
        Op stale = write(Op.Kind.COMPLETE, "a", 1, 10, true, 4, 5);

        CheckReport report = check(null);

        assertEquals(3, report.violations().get(0).rule(), report.describeViolations(5));
        assertEquals(List.of(claimB, stale), report.violations().get(0).witness());
        assertEquals(1, report.staleWrites());
        assertEquals(0, report.staleWritesRejected());
        assertTrue(claimA.ok());
    }

    @Test
    void writeThatOverlapsTheNextClaimMayBeAccepted() {
        claim("a", 1, 0, 0, 1);
        write(Op.Kind.RENEW, "a", 1, 5, true, 2, 6);  // may have committed before b's claim
        claim("b", 0, 10, 3, 4);                       // and so b lost: the renew extended the lease

        assertTrue(check(row("a", 15, 1, null, false)).passed());
    }

    @Test
    void twoAcceptedCompletesBreakRuleFour() {
        claim("a", 1, 0, 0, 1);
        write(Op.Kind.COMPLETE, "a", 1, 1, true, 2, 3);
        write(Op.Kind.COMPLETE, "a", 1, 2, true, 4, 5);

        assertTrue(rules(check(null)).contains(4));
    }

    @Test
    void storedResultOtherThanTheAcceptedOneBreaksRuleFive() {
        claim("a", 1, 0, 0, 1);
        write(Op.Kind.COMPLETE, "a", 1, 1, true, 2, 3);

        assertEquals(List.of(5), rules(check(row("a", 10, 1, "something else", true))));
    }

    @Test
    void storedFenceOtherThanTheHistoryBreaksRuleFive() {
        claim("a", 1, 0, 0, 1);

        assertEquals(List.of(5), rules(check(row("a", 10, 0, null, false))));
        assertEquals(List.of(5), rules(check(row("a", 10, 2, null, false))));
    }

    @Test
    void storedOwnerOtherThanTheHistoryBreaksRuleFive() {
        claim("a", 1, 0, 0, 1);
        write(Op.Kind.RELEASE, "a", 1, 0, true, 2, 3);

        assertEquals(List.of(5), rules(check(row("a", 10, 1, null, false))));
    }

    @Test
    void twoWinnersOfOneRaceBreakRuleSix() {
        Op a = claim("a", 1, 0, 0, 5);
        Op b = claim("b", 2, 0, 1, 6);  // fences look fine, but a's lease was live at now=0

        CheckReport report = check(null);

        assertEquals(List.of(6), rules(report), report.describeViolations(5));
        assertEquals(List.of(a, b), report.violations().get(0).witness());
    }

    @Test
    void claimAfterCompleteBreaksRuleSix() {
        claim("a", 1, 0, 0, 1);
        write(Op.Kind.COMPLETE, "a", 1, 1, true, 2, 3);
        claim("b", 2, 20, 4, 5);

        assertTrue(rules(check(null)).contains(6));
    }

    @Test
    void claimBeforeARenewedLeaseRanOutBreaksRuleSix() {
        claim("a", 1, 0, 0, 1);
        write(Op.Kind.RENEW, "a", 1, 5, true, 2, 3);  // until 15
        claim("b", 2, 12, 4, 5);                       // 12 >= 10 but < 15

        assertEquals(List.of(6), rules(check(null)));
    }

    private Op on(String process, String job, Op.Kind kind, String owner, long fence, double now, double ttl,
            Op.Outcome outcome, long start, long end) {
        Op op = new Op(process, ++seq, kind, job, owner, fence, now, ttl,
                kind == Op.Kind.COMPLETE ? "result-of-" + owner : null, outcome, start, end);
        ops.add(op);
        return op;
    }

    private Op enqueue(long start, long end) {
        return on("p", "j", Op.Kind.ENQUEUE, null, 0, 0, 0, Op.Outcome.OK, start, end);
    }

    @Test
    void aClaimRefusedAtTheExactExpiryBreaksRule9() {
        enqueue(0, 1);
        Op held = claim("a", 1, 0, 2, 3);                     // live until 10
        Op refused = claim("b", 0, 10, 4, 5);                 // now == until: the lease has expired

        CheckReport report = check(null);

        assertEquals(List.of(9), rules(report), report.describeViolations(5));
        assertEquals(List.of(held, refused), report.violations().get(0).witness());

        ops.clear();                                          // kept: granted at the exact expiry
        enqueue(0, 1);
        claim("a", 1, 0, 2, 3);
        claim("b", 2, 10, 4, 5);
        assertEquals(List.of(), rules(check(null)));

        ops.clear();                                          // kept: refused while live
        enqueue(0, 1);
        claim("a", 1, 0, 2, 3);
        claim("b", 0, 9.5, 4, 5);
        assertEquals(List.of(), rules(check(null)));
    }

    @Test
    void aClaimOfAFreshJobThatNobodyWinsBreaksRule9() {
        enqueue(0, 1);
        claim("a", 0, 0, 2, 3);
        assertEquals(List.of(9), rules(check(null)));

        ops.clear();                                          // kept: the job is not known to exist
        claim("a", 0, 0, 2, 3);
        assertEquals(List.of(), rules(check(null)));

        ops.clear();                                          // kept: the claim began before the enqueue ended
        enqueue(0, 3);
        claim("a", 0, 0, 2, 4);
        assertEquals(List.of(), rules(check(null)));

        ops.clear();                                          // an enqueue refused as "exists" tells it too
        on("p", "j", Op.Kind.ENQUEUE, null, 0, 0, 0, Op.Outcome.REJECTED, 0, 1);
        claim("a", 0, 0, 2, 3);
        assertEquals(List.of(9), rules(check(null)));
    }

    @Test
    void aClaimMayBeRefusedWhenALeaseMayHaveBeenLiveOrTheJobMayHaveBeenDone() {
        enqueue(0, 1);
        claim("a", 1, 0, 2, 3);
        add(Op.Kind.RENEW, "a", 1, 8, 10, null, Op.Outcome.UNKNOWN, 4, Long.MAX_VALUE);  // may have set 18
        claim("b", 0, 12, 6, 7);
        assertEquals(List.of(), rules(check(null)));

        ops.clear();                                          // a racing claim won while it ran
        enqueue(0, 1);
        claim("a", 1, 0, 2, 5);
        claim("b", 0, 0, 3, 4);
        assertEquals(List.of(), rules(check(null)));

        ops.clear();                                          // a complete of unknown outcome may have made it done
        enqueue(0, 1);
        claim("a", 1, 0, 2, 3);
        add(Op.Kind.COMPLETE, "a", 1, 5, 0, "r", Op.Outcome.UNKNOWN, 4, Long.MAX_VALUE);
        claim("b", 0, 20, 6, 7);
        assertEquals(List.of(), rules(check(null)));

        ops.clear();                                          // broken: a refused renew sets nothing
        enqueue(0, 1);
        claim("a", 1, 0, 2, 3);
        write(Op.Kind.RENEW, "a", 1, 10, false, 4, 5);
        claim("b", 0, 10, 6, 7);
        assertEquals(List.of(9), rules(check(null)));

        ops.clear();                                          // broken: a release gave the lease back
        enqueue(0, 1);
        claim("a", 1, 0, 2, 3);
        write(Op.Kind.RELEASE, "a", 1, 0, true, 4, 5);
        claim("b", 0, 20, 6, 7);
        assertEquals(List.of(9), rules(check(null)));
    }

    /** The exact-expiry probe of StressWorker as a correct store answers it, and as each wrong change would. */
    @Test
    void theExactExpiryProbeIsJudgedByRules4And8And9() {
        enqueue(0, 1);
        claim("a", 1, 0, 2, 3);
        write(Op.Kind.RENEW, "a", 1, 10, false, 4, 5);        // at now == until: refused
        claim("b", 2, 10, 6, 7);                              // granted at the exact expiry
        write(Op.Kind.COMPLETE, "b", 2, 10, true, 8, 9);
        write(Op.Kind.COMPLETE, "b", 2, 10, false, 10, 11);   // the second complete: refused
        assertEquals(List.of(), rules(check(row("b", 20, 2, "result-of-b", true))));

        ops.set(5, ops.get(5).answered(Op.Outcome.OK, 0, 11));          // completed twice
        assertEquals(List.of(4), rules(check(null)));

        ops.clear();                                          // renewed at the expiry, so the claim was refused
        enqueue(0, 1);
        claim("a", 1, 0, 2, 3);
        write(Op.Kind.RENEW, "a", 1, 10, true, 4, 5);
        claim("b", 0, 10, 6, 7);
        assertEquals(List.of(8), rules(check(null)));
    }

    @Test
    void aJobNeverEnqueuedThatReadsAsARowOrIsClaimedBreaksRule10() {
        String never = Op.NEVER_ENQUEUED + "w0-1";
        on("w0", never, Op.Kind.STATE, null, 0, 0, 0, Op.Outcome.REJECTED, 0, 1);
        on("w0", never, Op.Kind.CLAIM, "w0", 0, 5, 3, Op.Outcome.REJECTED, 2, 3);
        assertEquals(List.of(), rules(check(null)));

        ops.clear();
        Op row = on("w0", never, Op.Kind.STATE, null, 0, 0, 0, Op.Outcome.OK, 0, 1);
        CheckReport report = check(null);
        assertEquals(List.of(10), rules(report), report.describeViolations(5));
        assertEquals(List.of(row), report.violations().get(0).witness());

        ops.clear();
        on("w0", never, Op.Kind.CLAIM, "w0", 1, 5, 3, Op.Outcome.OK, 2, 3);
        assertEquals(List.of(10), rules(check(null)));

        ops.clear();                                          // other jobs may be read before they exist
        on("w0", "j", Op.Kind.STATE, null, 0, 0, 0, Op.Outcome.OK, 0, 1);
        assertEquals(List.of(), rules(check(null)));
    }

    /** {@code calls} claimMany calls of process w0 on fresh jobs, each won by the owner at {@code winner.apply(call)}. */
    private void claimManyCalls(int calls, java.util.function.IntUnaryOperator winner) {
        claimManyCalls(calls, winner, call -> "w0", call -> "S");
    }

    /** As above, each call by the process {@code process.apply(call)}, whose owners are named by the store {@code store.apply(call)}. */
    private void claimManyCalls(int calls, java.util.function.IntUnaryOperator winner,
            java.util.function.IntFunction<String> process, java.util.function.IntFunction<String> store) {
        for (int call = 0; call < calls; call++) {
            String job = "probe-" + process.apply(call) + "-" + call;
            on(process.apply(call), job, Op.Kind.ENQUEUE, null, 0, 0, 0, Op.Outcome.OK, 10L * call, 10L * call + 1);
            for (int owner = 0; owner < 3; owner++) {
                boolean won = owner == winner.applyAsInt(call);
                on(process.apply(call), job, Op.Kind.CLAIM, store.apply(call) + "-many-" + owner, won ? 1 : 0, call, 3,
                        won ? Op.Outcome.OK : Op.Outcome.REJECTED, 10L * call + 2, 10L * call + 9);
            }
        }
    }

    @Test
    void claimManyWhoseFirstOwnerWinsEveryCallBreaksRule11() {
        claimManyCalls(HistoryChecker.FIRST_OWNER_CALLS, call -> 0);
        CheckReport report = check(null);
        assertEquals(List.of(11), rules(report), report.describeViolations(5));
        assertEquals("probe-w0-" + (HistoryChecker.FIRST_OWNER_CALLS - 1), report.violations().get(0).job());

        ops.clear();                                          // the calls of one store's workers are pooled
        claimManyCalls(HistoryChecker.FIRST_OWNER_CALLS, call -> 0, call -> "w" + call % 3, call -> "S");
        assertEquals(List.of(11), rules(check(null)));

        ops.clear();                                          // kept: two stores' calls are not
        claimManyCalls(HistoryChecker.FIRST_OWNER_CALLS, call -> 0, call -> "w" + call % 2, call -> call % 2 == 0 ? "S" : "T");
        assertEquals(List.of(), rules(check(null)));

        ops.clear();                                          // kept: another owner won one call
        claimManyCalls(HistoryChecker.FIRST_OWNER_CALLS, call -> call == 7 ? 2 : 0);
        assertEquals(List.of(), rules(check(null)));

        ops.clear();                                          // kept: too few calls to tell
        claimManyCalls(HistoryChecker.FIRST_OWNER_CALLS - 1, call -> 0);
        assertEquals(List.of(), rules(check(null)));

        ops.clear();                                          // nobody won: rule 9, once per call
        claimManyCalls(2, call -> -1);
        assertEquals(List.of(9, 9), rules(check(null)));

        ops.clear();                                          // two won: rule 1 (and 6)
        claimManyCalls(1, call -> 0);
        on("w0", "probe-w0-0", Op.Kind.CLAIM, "S-many-1", 1, 0, 3, Op.Outcome.OK, 2, 9);
        assertTrue(rules(check(null)).contains(1));
    }

    @Test
    void enqueuesAndStateReadsAreNoWritesUnderALease() {
        claim("a", 1, 0, 0, 1);
        on("p", "j", Op.Kind.ENQUEUE, null, 0, 0, 0, Op.Outcome.REJECTED, 2, 3);
        on("p", "j", Op.Kind.STATE, null, 1, 0, 0, Op.Outcome.OK, 4, 5);
        claim("b", 2, 20, 6, 7);
        on("p", "j", Op.Kind.STATE, null, 2, 0, 0, Op.Outcome.OK, 8, 9);

        CheckReport report = check(row("b", 30, 2, null, false));

        assertEquals(List.of(), rules(report), report.describeViolations(5));
        assertEquals(0, report.staleWrites());
        assertEquals(List.of(), HistoryChecker.staleWrites(ops));
    }
}
