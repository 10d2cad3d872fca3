package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.BrokenStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A short run of the thread race driver: every strategy of both engines must come through real,
 * overlapping races without a violation, and every negative control must be caught.
 */
class ThreadRaceSmokeTest {

    /** Fewer overlapping races than this and a pass would prove little. */
    private static final int MIN_OVERLAPPING_RACES = 20;

    @TempDir
    Path dir;

    static List<StoreUnderTest> correctStores() {
        return TestEngines.all().stream().flatMap(engine -> StoreUnderTest.allCorrect(engine).stream()).toList();
    }

    static List<StoreUnderTest> controls() {
        return TestEngines.all().stream().flatMap(engine -> StoreUnderTest.controls(engine).stream()).toList();
    }

    @ParameterizedTest
    @MethodSource("correctStores")
    void everyStrategyComesThroughOverlappingRacesWithoutViolation(StoreUnderTest store) {
        RaceResult result = ThreadRaceDriver.run(store, dir,
                new ThreadRaceDriver.Settings(6, Duration.ofSeconds(2), 100_000, 42));

        assertFalse(result.violated(), () -> result.firstViolation() + "\n" + result.check().describeViolations(5));
        assertTrue(result.racesWithOverlap() >= MIN_OVERLAPPING_RACES,
                "only " + result.racesWithOverlap() + " races overlapped");
        assertTrue(result.check().staleWrites() > 0, "no stale write was tried");
        assertTrue(result.claimManyFailures() < result.claimManyRounds(),
                result.claimManyFailures() + " of " + result.claimManyRounds() + " claimMany rounds failed");
        assertEquals(result.check().staleWrites(), result.check().staleWritesRejected());
        assertEquals("ok", result.integrity());
        // The store's claimMany stamps its claims, so their overlap is measured, and some met.
        assertTrue(result.claimManyMeasured() > 0, "claimMany overlap not measured in " + result.claimManyRounds() + " rounds");
        assertTrue(result.claimManyOverlapped() > 0, "no claimMany round of " + result.claimManyMeasured() + " overlapped");
        System.out.printf("threads %s: claims overlapped in %d of %d measured claimMany rounds (%d rounds)%n",
                store.name(), result.claimManyOverlapped(), result.claimManyMeasured(), result.claimManyRounds());
    }

    @ParameterizedTest
    @MethodSource("controls")
    void everyNegativeControlIsCaughtByTheRoundsAndByTheChecker(StoreUnderTest control) {
        RaceResult result = ThreadRaceDriver.run(control, dir,
                new ThreadRaceDriver.Settings(6, Duration.ofSeconds(30), 100_000, 42));

        assertTrue(result.opsUntilFirstViolation() >= 0, control + " was not caught in " + result.races() + " races");
        if (control.broken() == BrokenStore.CLAIM_MANY_ONE_AT_A_TIME) {
            // Every result of this one is right: only its stamps may catch it, and must say so.
            assertTrue(result.firstViolation().contains("never overlapped in time"), result.firstViolation());
        }
        if (!result.firstViolation().startsWith(ThreadRaceDriver.CLAIM_MANY)) {
            // The driver stops at the first violation; one seen in a claimMany round (the only
            // way to catch CLAIM_MANY_FIRST_OWNER_ONLY, and now and then the first to catch a
            // check-then-act claim on PostgreSQL) is not in the recorded history.
            assertFalse(result.check().passed(), control + " got past the history checker: " + result.firstViolation());
        }
    }
}
