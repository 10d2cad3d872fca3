package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The faults {@link WorkerFleet#race} injects, on {@link HoldingWorker}s (which hold a lease all
 * the time, so a pause always finds a holder): each race of ten seeds makes its kill and its pause,
 * and a kill after a pause spares the worker just paused, whose late writes are what the pause is
 * for. Seed 44's late moments lost the pause of every race with it (the third attempt of a
 * clean-clone CI run's guest drain had none), and in local races a kill right after a pause took
 * the paused worker before it wrote (results/process-drain-attempts-20261207).
 */
class WorkerFleetTest {

    private static final long TTL_MILLIS = 100;
    private static final long RACE_MILLIS = (WorkerFleet.LEASES_AFTER_THE_FAULTS + 2) * TTL_MILLIS;

    @TempDir
    Path dir;

    @Test
    void everyRaceMakesItsFaultsAndAKillSparesTheWorkerPausedBeforeIt() throws IOException {
        int killsAfterAPause = 0;
        for (long seed = 40; seed < 50; seed++) {
            Path race = Files.createDirectories(dir.resolve("seed-" + seed));
            Path stop = race.resolve("stop");
            WorkerFleet.Faults faults;
            try (WorkerFleet fleet = new WorkerFleet(race, new Random(seed),
                    (name, history) -> List.of(HoldingWorker.class.getName(), name, stop.toString()))) {
                fleet.startAndAwaitReady(2);
                faults = fleet.race(RACE_MILLIS, 1, 1, TTL_MILLIS);
                assertEquals(List.of(), fleet.stop(stop), "seed " + seed);
            }
            assertEquals(1, faults.kills(), "seed " + seed + ": " + faults.log());
            assertEquals(1, faults.pauses().size(), "seed " + seed + ": " + faults.log());
            if (faults.log().get(0).startsWith("SIGSTOP")) {
                killsAfterAPause++;
                assertNotEquals("kill -9 " + faults.pauses().get(0).worker(), faults.log().get(1).split(" at ")[0],
                        "seed " + seed + ": " + faults.log());
            }
        }
        assertTrue(killsAfterAPause >= 2, "ten seeds gave " + killsAfterAPause + " kills after a pause: the check above proved little");
    }

    @Test
    void aRaceTooShortForAPauseAndItsLateWritesIsRefusedNamingTheDuration() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> WorkerFleet.requireRoomForFaults(Duration.ofMillis(999), 200));
        assertTrue(e.getMessage().startsWith("duration must be at least 5 leases of 200 ms (1000 ms)"), e.getMessage());
        WorkerFleet.requireRoomForFaults(Duration.ofMillis(1000), 200);
    }
}
