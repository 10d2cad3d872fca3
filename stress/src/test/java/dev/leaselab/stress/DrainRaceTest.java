package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The drain race ({@link DrainRaceDriver}): workers on threads drain queues with claimNext, some
 * stalling past their lease. Every strategy of both engines must finish every job exactly once,
 * through overlapping calls, with every job that stalled taken over and its staller's late complete
 * refused; every control must be caught.
 */
class DrainRaceTest {

    /** Fewer overlapping claimNext calls than this and a pass would prove little. */
    private static final int MIN_OVERLAPPING_CALLS = 20;

    @TempDir
    Path dir;

    static List<StoreUnderTest> correctStores() {
        return TestEngines.all().stream().flatMap(engine -> StoreUnderTest.allCorrect(engine).stream()).toList();
    }

    static List<StoreUnderTest> controls() {
        return TestEngines.all().stream().flatMap(engine -> DrainRaceDriver.controls(engine).stream()).toList();
    }

    @ParameterizedTest
    @MethodSource("correctStores")
    void everyStrategyFinishesEveryJobOnceThroughOverlappingCallsAndRefusesEveryStaller(StoreUnderTest store) {
        DrainRaceDriver.DrainResult result = DrainRaceDriver.run(store, dir,
                new DrainRaceDriver.Settings(6, 40, Duration.ofSeconds(1), 1_000, 42));
        RaceResult race = result.race();

        assertFalse(race.violated(), () -> race.firstViolation() + "\n" + race.check().describeViolations(5));
        assertTrue(race.racesWithOverlap() >= MIN_OVERLAPPING_CALLS, "only " + race.racesWithOverlap() + " of "
                + race.races() + " claimNext calls overlapped another");
        assertTrue(result.duplicateExecutions() > 0, "no job stalled and was taken over in " + result.rounds() + " rounds");
        assertEquals(0, result.duplicateAcceptedCompletions(), "completions accepted twice");
        assertEquals(result.duplicateExecutions(), result.staleCompletesRefused(),
                "every takeover is of a stalled job, whose staller's complete must have been refused");
        assertTrue(result.staleRefusedInABatch() > 0, "no staller's complete stood in a completeAll, in "
                + result.completeAllCalls() + " completeAll calls: the batches' fences were never tried");
        assertEquals("ok", race.integrity());
        System.out.printf("drain %s: %d rounds, %d jobs, %d claimNext calls (%d overlapping), %d duplicate executions, "
                        + "%d duplicate accepted completions, %d stale completes refused (%d in %d completeAll calls)%n", store,
                result.rounds(), result.jobs(), race.races(), race.racesWithOverlap(), result.duplicateExecutions(),
                result.duplicateAcceptedCompletions(), result.staleCompletesRefused(), result.staleRefusedInABatch(),
                result.completeAllCalls());
    }

    @Test
    void aRunWithoutOverlapOrWithoutARefusedStallerSaysItProvedNothing() {
        CheckReport clean = new CheckReport(0, 0, 0, 0, List.of(), 0);
        RaceResult noOverlap = new RaceResult("IMMEDIATE", "thread-drain", 10, 0, 100, 0, 0, 0, 0, 0, -1, null, clean, 0, 0,
                "ok", 1);
        RaceResult raced = new RaceResult("IMMEDIATE", "thread-drain", 10, 4, 100, 0, 0, 0, 0, 0, -1, null, clean, 0, 0,
                "ok", 1);
        assertTrue(new DrainRaceDriver.DrainResult(noOverlap, 1, 40, 3, 0, 3, 0, 0).unproven().contains("never raced"));
        assertTrue(new DrainRaceDriver.DrainResult(raced, 1, 40, 0, 0, 0, 0, 0).unproven().contains("stalls proved nothing"));
        assertNull(new DrainRaceDriver.DrainResult(raced, 1, 40, 3, 0, 3, 0, 0).unproven());

        Verdict unproven = Verdict.ofDrain(StoreUnderTest.correct(LockingStrategy.IMMEDIATE),
                new DrainRaceDriver.DrainResult(raced, 1, 40, 0, 0, 0, 0, 0), 1);
        assertEquals(Verdict.Outcome.INCONCLUSIVE, unproven.outcome());
        assertTrue(!unproven.outcome().good() && !StressRun.settled(false, unproven.outcome()),
                "a run that proved nothing must neither pass nor stand: it is raced again");
        assertTrue(unproven.detail().startsWith("no stalled job was taken over"), unproven.detail());
        Verdict passed = Verdict.ofDrain(StoreUnderTest.correct(LockingStrategy.IMMEDIATE),
                new DrainRaceDriver.DrainResult(raced, 1, 40, 3, 0, 3, 0, 0), 1);
        assertEquals(Verdict.Outcome.PASS, passed.outcome());
        assertTrue(passed.detail().startsWith("40 jobs in 1 rounds, 3 duplicate executions, 0 duplicate accepted"),
                passed.detail());
    }

    @ParameterizedTest
    @MethodSource("controls")
    void everyControlIsCaught(StoreUnderTest control) {
        DrainRaceDriver.DrainResult result = DrainRaceDriver.run(control, dir,
                new DrainRaceDriver.Settings(6, 40, Duration.ofSeconds(20), 1_000, 42));
        RaceResult race = result.race();
        assertTrue(race.violated(), control + " came through " + result.rounds() + " rounds of draining");
        System.out.println("drain control " + control + " caught after " + result.rounds() + " rounds: "
                + (race.firstViolation() != null ? race.firstViolation().lines().findFirst().orElse("") : race.check().describeViolations(1)));
    }
}
