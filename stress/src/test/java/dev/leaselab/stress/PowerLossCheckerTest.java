package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leaselab.lease.JobState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The lost-write rules on hand-made histories: each kind of acknowledged write, kept and lost. */
class PowerLossCheckerTest {

    private static long clock;

    private static Op op(String owner, Op.Kind kind, long fence, double now, double ttl, String result, Op.Outcome outcome) {
        long start = ++clock * 10;
        return new Op(owner, clock, kind, "j", owner, fence, now, ttl, result, outcome, start, start + 5);
    }

    private static Op claim(String owner, long fence) {
        return op(owner, Op.Kind.CLAIM, fence, 100, 50, null, Op.Outcome.OK);
    }

    private static JobState row(String owner, double until, long fence, String result, boolean done) {
        return new JobState("j", owner, until, fence, result, done);
    }

    @Test
    void anAcknowledgedClaimWhoseFenceIsGoneIsLostAndAHigherFenceKeepsIt() {
        List<Op> ops = List.of(claim("a", 3));
        assertEquals(1, PowerLossChecker.lostWrites(ops, Map.of("j", row(null, 0, 2, null, false))).size());
        assertEquals(0, PowerLossChecker.lostWrites(ops, Map.of("j", row("b", 500, 4, null, false))).size());
        assertEquals(1, PowerLossChecker.lostWrites(ops, Map.of()).size(), "a missing row lost it too");
    }

    @Test
    void anAcknowledgedCompleteMustLeaveTheJobDoneWithItsResult() {
        Op complete = op("a", Op.Kind.COMPLETE, 3, 110, 0, "r-a-3", Op.Outcome.OK);
        List<Op> ops = List.of(claim("a", 3), complete);
        assertEquals(0, PowerLossChecker.lostWrites(ops, Map.of("j", row("a", 150, 3, "r-a-3", true))).size());
        assertEquals(List.of(complete), PowerLossChecker.lostWrites(ops, Map.of("j", row("a", 150, 3, null, false)))
                .stream().map(PowerLossChecker.LostWrite::op).toList());
        assertEquals(1, PowerLossChecker.lostWrites(ops, Map.of("j", row("a", 150, 3, "other", true))).size());
    }

    @Test
    void anAcknowledgedRenewThatWasTheLastWordMustShowItsUntil() {
        Op renew = op("a", Op.Kind.RENEW, 3, 120, 50, null, Op.Outcome.OK);
        List<Op> ops = List.of(claim("a", 3), renew);
        assertEquals(0, PowerLossChecker.lostWrites(ops, Map.of("j", row("a", 170, 3, null, false))).size());
        assertEquals(List.of(renew), PowerLossChecker.lostWrites(ops, Map.of("j", row("a", 150, 3, null, false)))
                .stream().map(PowerLossChecker.LostWrite::op).toList());
        List<Op> thenReleased = List.of(claim("a", 3), renew, op("a", Op.Kind.RELEASE, 3, 0, 0, null, Op.Outcome.UNKNOWN));
        assertEquals(0, PowerLossChecker.lostWrites(thenReleased, Map.of("j", row(null, 0, 3, null, false))).size(),
                "a later release, answered or not, may have changed the row");
    }

    @Test
    void anAcknowledgedReleaseMustLeaveNoOwnerUnlessALaterClaimTookTheJob() {
        Op release = op("a", Op.Kind.RELEASE, 3, 0, 0, null, Op.Outcome.OK);
        List<Op> ops = List.of(claim("a", 3), release);
        assertEquals(0, PowerLossChecker.lostWrites(ops, Map.of("j", row(null, 0, 3, null, false))).size());
        assertEquals(1, PowerLossChecker.lostWrites(ops, Map.of("j", row("a", 150, 3, null, false))).size());
        assertEquals(0, PowerLossChecker.lostWrites(ops, Map.of("j", row("b", 300, 4, null, false))).size());
    }

    @Test
    void unansweredAndRefusedOperationsPromiseNothing() {
        List<Op> ops = List.of(op("a", Op.Kind.CLAIM, 0, 100, 50, null, Op.Outcome.UNKNOWN),
                op("b", Op.Kind.COMPLETE, 1, 100, 0, "r", Op.Outcome.REJECTED));
        assertEquals(0, PowerLossChecker.lostWrites(ops, Map.of("j", row(null, 0, 0, null, false))).size());
    }

    @Test
    void aFenceGivenToTwoClaimsIsReissued() {
        assertEquals(1, PowerLossChecker.reissuedFences(List.of(claim("a", 1), claim("b", 2), claim("c", 1))));
        assertEquals(0, PowerLossChecker.reissuedFences(List.of(claim("a", 1), claim("b", 2))));
    }
}
