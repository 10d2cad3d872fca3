package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The loop that races a missed control again ({@link StressRun#raceUntilCaught}), with races that are only numbers. */
class RaceUntilCaughtTest {

    @Test
    void theFirstRaceThatCatchesEndsTheLoop() {
        List<Integer> raced = new ArrayList<>();
        List<Integer> missed = new ArrayList<>();

        StressRun.LastRace<Integer> last = StressRun.raceUntilCaught(5, attempt -> {
            raced.add(attempt);
            return attempt * 10;
        }, result -> result == 30, (result, attempt) -> missed.add(attempt));

        assertEquals(30, last.result());
        assertEquals(3, last.attempt());
        assertEquals(List.of(1, 2, 3), raced);
        assertEquals(List.of(1, 2), missed);
    }

    @Test
    void aControlNeverCaughtIsRacedExactlyTheAttemptsAndTheLastRaceIsGiven() {
        List<Integer> raced = new ArrayList<>();
        List<Integer> missed = new ArrayList<>();

        StressRun.LastRace<Integer> last = StressRun.raceUntilCaught(StressRun.CONTROL_ATTEMPTS, attempt -> {
            raced.add(attempt);
            return attempt;
        }, result -> false, (result, attempt) -> missed.add(attempt));

        assertEquals(StressRun.CONTROL_ATTEMPTS, last.attempt());
        assertEquals(StressRun.CONTROL_ATTEMPTS, last.result());
        assertEquals(StressRun.CONTROL_ATTEMPTS, raced.size());
        // The last miss is the caller's to report: only races followed by another are told.
        assertEquals(StressRun.CONTROL_ATTEMPTS - 1, missed.size());
    }

    /**
     * What is raced again: a control that was not caught and a correct store whose race was too
     * quiet to judge. A caught control, a pass and above all a violation of a correct store are final.
     */
    @Test
    void onlyAMissedControlOrAnInconclusiveRaceOfACorrectStoreIsRacedAgain() {
        for (Verdict.Outcome outcome : Verdict.Outcome.values()) {
            assertEquals(outcome != Verdict.Outcome.MISSED, StressRun.settled(true, outcome), "control, " + outcome);
            assertEquals(outcome != Verdict.Outcome.INCONCLUSIVE, StressRun.settled(false, outcome), "correct store, " + outcome);
        }
        assertTrue(StressRun.settled(false, Verdict.Outcome.FAIL), "a violation is never raced away");
    }

    @Test
    void oneAttemptIsOneRaceWhateverItGives() {
        StressRun.LastRace<String> last = StressRun.raceUntilCaught(1, attempt -> "missed", result -> false,
                (result, attempt) -> { throw new AssertionError("no race follows the only one"); });

        assertEquals("missed", last.result());
        assertEquals(1, last.attempt());
    }

    @Test
    void noAttemptsIsRefusedNamingTheArgument() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StressRun.raceUntilCaught(0, attempt -> attempt, result -> true, (result, attempt) -> { }));
        assertTrue(e.getMessage().startsWith("attempts"), e.getMessage());
    }
}
