package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy.Engine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The drain race across worker processes ({@link ProcessDrainDriver}), briefly, on SQLite: every
 * strategy must drain every job exactly once through claimNext calls of different processes that
 * met, with a worker killed and a worker paused past its lease, whose stale writes after the
 * takeover must all be refused; every control must be caught.
 */
class ProcessDrainRaceTest {

    @TempDir
    Path dir;

    static List<StoreUnderTest> correctStores() {
        return StoreUnderTest.allCorrect(Engine.SQLITE);
    }

    static List<StoreUnderTest> controls() {
        return ProcessDrainDriver.controls(Engine.SQLITE);
    }

    @ParameterizedTest
    @MethodSource("correctStores")
    void everyStrategyDrainsEveryJobOnceThroughKillsAndPauses(StoreUnderTest store) {
        // A race whose one pause led to no late write proved nothing and is raced again with a new
        // seed, as the stress run does (a clean-clone CI run had one such race); a violation is final.
        ProcessDrainDriver.Settings settings = new ProcessDrainDriver.Settings(3, Duration.ofSeconds(2), 1, 1, 12, 200, 42);
        ProcessDrainDriver.DrainResult result = StressRun.raceUntilCaught(StressRun.INCONCLUSIVE_ATTEMPTS,
                attempt -> ProcessDrainDriver.run(store, attempt == 1 ? dir : dir.resolve("attempt-" + attempt),
                        settings.withSeed(settings.seed() + attempt - 1)),
                r -> r.race().violated() || r.unproven() == null,
                (r, attempt) -> System.out.println("process drain " + store + ": proved nothing in attempt " + attempt
                        + ", racing again: " + r.summary())).result();
        RaceResult race = result.race();
        System.out.println("process drain " + store + ": " + result.summary() + "; " + race.millis() + " ms");

        assertFalse(race.violated(), () -> race.firstViolation() + "\n" + race.check().describeViolations(5)
                + "integrity: " + race.integrity());
        assertNull(result.unproven(), result::summary);
        assertTrue(race.kills() >= 1 && race.pauses() >= 1, result::summary);
        assertEquals(0, result.duplicateAcceptedCompletions(), result::summary);
        assertTrue(race.racesWithOverlap() > 0, result::summary);
        assertTrue(result.completeAllCalls() > 0, () -> "no batch was completed in one completeAll: " + result.summary());
        assertTrue(result.staleWritesRefused() > 0 && result.pausedWritesRefused() > 0, result::summary);
        assertEquals(result.pausedWrites(), result.pausedWritesRefused(), result::summary);
        assertEquals(race.check().staleWrites(), race.check().staleWritesRejected(), result::summary);
        assertTrue(result.jobs() >= 12 && race.check().jobs() == result.jobs(), result::summary);
        assertEquals("ok", race.integrity());
    }

    /**
     * Whether a race caught the control by what it breaks: a stale-writer control by a paused
     * worker's late write accepted, which needs its pause to have led to a late write (a clean-clone
     * CI run of e388bbc caught COMPLETE_WITHOUT_FENCE_CHECK/IMMEDIATE by rule 6 in a race whose pause
     * led to none, and the assertion below then failed); any other control by any violation.
     */
    private static boolean caughtByWhatItBreaks(StoreUnderTest control, ProcessDrainDriver.DrainResult drained) {
        return drained.race().violated()
                && (!control.isStaleWriterControl() || drained.pausedWrites() > drained.pausedWritesRefused());
    }

    /**
     * A control is raced again with a new seed when a race did not catch it by what it breaks, up to
     * {@link StressRun#CONTROL_ATTEMPTS} races, as the stress run does: a stale writer shows
     * only when the paused worker's late complete lands between another worker's claim of its job
     * and that worker's own complete, which one 2 s race with one pause does not always bring about
     * (a clean-clone CI run missed COMPLETE_WITHOUT_FENCE_CHECK/IMMEDIATE in its one race).
     */
    @ParameterizedTest
    @MethodSource("controls")
    void everyControlIsCaught(StoreUnderTest control) {
        ProcessDrainDriver.Settings settings = new ProcessDrainDriver.Settings(3, Duration.ofSeconds(2), 1, 1, 12, 200, 42);
        ProcessDrainDriver.DrainResult result = StressRun.raceUntilCaught(StressRun.CONTROL_ATTEMPTS,
                attempt -> {
                    ProcessDrainDriver.DrainResult drained = ProcessDrainDriver.run(control,
                            dir.resolve("attempt-" + attempt), settings.withSeed(settings.seed() + attempt - 1));
                    RaceResult race = drained.race();
                    System.out.println("process drain control " + control + ", race " + attempt + ": "
                            + drained.summary() + "; caught: " + (race.firstViolation() == null ? "-"
                                    : race.firstViolation().lines().findFirst().orElse("")));
                    return drained;
                },
                drained -> caughtByWhatItBreaks(control, drained),
                (drained, attempt) -> { }).result();
        RaceResult race = result.race();

        assertTrue(race.violated(), control + " came through " + StressRun.CONTROL_ATTEMPTS + " races, the last: " + result.summary());
        if (control.isStaleWriterControl()) {
            // Caught by what it breaks: a paused worker's late complete accepted under another's lease.
            assertTrue(result.pausedWrites() > result.pausedWritesRefused(), result::summary);
        } else {
            // Two workers handed one job: a fence out of order, or two live leases.
            assertTrue(race.check().violations().stream().anyMatch(v -> List.of(1, 2, 6).contains(v.rule())),
                    race.check().describeViolations(3));
        }
    }
}
