package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leaselab.bench.GateStatistics.Verdict;
import dev.leaselab.lease.LockingStrategy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The two-stage gate ({@link Gate#confirm}) on synthetic gate runs: every SQLite strategy on both
 * WAL storages, 14 groups a row, ratios lognormal around 0.8. What the gate proof saw on real runs
 * is modelled by one run in which one strategy's rows sit 30% low: a real slowdown repeats in the
 * confirmation run, a shift of that one run does not. The one-stage gate ({@link Gate#compare}) on
 * the same shifted run is the negative control: it must flag it, or the case would not show what
 * the confirmation is for.
 */
class GateConfirmTest {

    private static final double NOISE = 0.10;
    private final GateStatistics stats = GateStatistics.defaults();

    @Test
    void aChangeThatTheConfirmationRepeatsIsFlagged() {
        Gate.Run baseline = run(1, null);
        Gate.Outcome o = Gate.confirm(baseline, run(2, LockingStrategy.IMMEDIATE), run(3, LockingStrategy.IMMEDIATE), "again", stats);

        assertTrue(o.regressed(), "a slowdown seen twice must fail the gate");
        assertTrue(o.paired().stream().anyMatch(l -> l.key().strategy() == LockingStrategy.IMMEDIATE
                && l.comparison().verdict() == Verdict.REGRESSED));
        assertTrue(o.paired().stream().noneMatch(l -> l.key().strategy() != LockingStrategy.IMMEDIATE && called(l)),
                "only the slowed strategy may be flagged");
        assertFalse(o.confirmation().rows().isEmpty());
        assertTrue(o.confirmation().rows().stream().allMatch(l -> l.key().strategy() == LockingStrategy.IMMEDIATE),
                "only screened rows are measured again");
        assertTrue(Gate.markdown(o, "base", "cur").contains("**regressed**, confirmed"));
    }

    @Test
    void aShiftOfOneRunThatTheConfirmationDoesNotRepeatIsNotFlagged() {
        Gate.Run baseline = run(1, null);
        Gate.Run shifted = run(2, LockingStrategy.IMMEDIATE);

        assertTrue(Gate.compare(baseline, shifted, stats, true).regressed(),
                "control: the one-stage gate flags the shifted run, so this case tests the confirmation");
        Gate.Outcome o = Gate.confirm(baseline, shifted, run(3, null), "again", stats);
        assertFalse(o.regressed());
        assertEquals(0, o.count(Verdict.REGRESSED) + o.count(Verdict.IMPROVED));
        assertTrue(Gate.markdown(o, "base", "cur").contains("screened, not confirmed"));
    }

    @Test
    void aRowThatWasNotScreenedIsNotFlaggedWhateverTheConfirmationSays() {
        Gate.Run baseline = run(1, null);
        Gate.Run current = run(2, null);
        assertTrue(Gate.screened(baseline, current, stats).stream().noneMatch(l -> l.key().strategy() == LockingStrategy.EXCLUSIVE));

        Gate.Outcome o = Gate.confirm(baseline, current, run(3, LockingStrategy.EXCLUSIVE), "again", stats);
        assertTrue(o.paired().stream().noneMatch(l -> l.key().strategy() == LockingStrategy.EXCLUSIVE && called(l)));
    }

    @Test
    void aConfirmationThatLacksAScreenedRowIsRefusedNamingIt() {
        Gate.Run baseline = run(1, null);
        Gate.Run current = run(2, LockingStrategy.IMMEDIATE);
        Gate.Run withoutImmediate = new Gate.Run(List.of(), without(run(3, null), LockingStrategy.IMMEDIATE), null);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Gate.confirm(baseline, current, withoutImmediate, "again", stats));
        assertTrue(e.getMessage().contains("IMMEDIATE"), e.getMessage());
    }

    @Test
    void aMergedBaselinePoolsTheGroupsOfEveryRunAndRefusesRunsMeasuredDifferently() {
        Gate.Run a = withEnvironment(run(1, null), "gate");
        Gate.Run b = withEnvironment(run(2, null), "gate");
        Gate.Run merged = Gate.Run.merged(List.of(a, b));
        merged.paired().forEach((key, row) -> assertEquals(a.paired().get(key).groups().size() + b.paired().get(key).groups().size(),
                row.groups().size(), key.label()));

        Gate.Run other = withEnvironment(run(3, null), "quick");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Gate.Run.merged(List.of(a, other)));
        assertTrue(e.getMessage().contains("settings.profile"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Gate.Run.merged(List.of()));
    }

    private static boolean called(Gate.PairedLine l) {
        return l.comparison().verdict() == Verdict.REGRESSED || l.comparison().verdict() == Verdict.IMPROVED;
    }

    private static Gate.Run withEnvironment(Gate.Run r, String profile) {
        ObjectNode env = Json.MAPPER.createObjectNode();
        env.putObject("settings").put("profile", profile);
        return new Gate.Run(r.rows(), r.paired(), (JsonNode) env);
    }

    private static Map<ForkKey, PairedRatios.Row> without(Gate.Run r, LockingStrategy strategy) {
        Map<ForkKey, PairedRatios.Row> kept = new LinkedHashMap<>(r.paired());
        kept.keySet().removeIf(k -> k.strategy() == strategy);
        return kept;
    }

    /** A synthetic gate run; {@code low}'s rows (if any) sit 30% below the others'. */
    private static Gate.Run run(long seed, LockingStrategy low) {
        return SyntheticGateRuns.run(new SplittableRandom(seed), low, 0.7, Profile.GATE_GROUPS, NOISE);
    }
}
