package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.powerloss.CutMode;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The power-loss matrix and its storage settings, without a mount: which plans each engine gets. */
class PowerLossPlansTest {

    @Test
    void postgresqlRacesEveryStrategyWithFsyncOnAndRowLockInEachControl() {
        List<PowerLossMain.Plan> plans = PowerLossMain.plans(PowerLossMain.Profile.QUICK, null, EnumSet.of(Engine.POSTGRESQL));

        assertEquals(35, plans.stream().mapToInt(PowerLossMain.Plan::cuts).sum());
        assertEquals(LockingStrategy.of(Engine.POSTGRESQL).size() + 2, plans.size());
        for (PowerLossMain.Plan plan : plans) {
            assertEquals(Engine.POSTGRESQL, plan.sut().engine());
            assertEquals(Engine.POSTGRESQL, plan.storage().engine());
            if (!plan.storage().durable()) {
                assertEquals(LockingStrategy.PG_ROW_LOCK, plan.sut().strategy());
            }
        }
        assertEquals(List.of("FSYNC_ON", "SYNCHRONOUS_COMMIT_OFF", "FSYNC_OFF"),
                plans.stream().map(p -> p.storage().name()).distinct().toList());
    }

    @Test
    void theSmokeProfileRacesSqliteOnlyAndTheQuickProfileBothEngines() {
        assertTrue(PowerLossMain.plans(PowerLossMain.Profile.SMOKE, null).stream()
                .allMatch(p -> p.storage().engine() == Engine.SQLITE));
        List<PowerLossMain.Plan> quick = PowerLossMain.plans(PowerLossMain.Profile.QUICK, null);
        assertEquals(135, quick.stream().mapToInt(PowerLossMain.Plan::cuts).sum());
        assertEquals(100, PowerLossMain.plans(PowerLossMain.Profile.QUICK, null, EnumSet.of(Engine.SQLITE)).stream()
                .mapToInt(PowerLossMain.Plan::cuts).sum());
        assertTrue(PowerLossMain.plans(PowerLossMain.Profile.QUICK, 20, EnumSet.allOf(Engine.class)).stream()
                .allMatch(p -> p.cuts() == 20));
    }

    @Test
    void storageNamesReadBackAndOnlyTheSyncedSettingsPromiseDurability() {
        assertEquals(PowerLossDriver.PostgresStorage.FSYNC_ON, PowerLossDriver.Storage.parse("FSYNC_ON"));
        assertTrue(PowerLossDriver.Storage.parse("FSYNC_ON").durable());
        assertFalse(PowerLossDriver.Storage.parse("SYNCHRONOUS_COMMIT_OFF").durable());
        assertFalse(PowerLossDriver.Storage.parse("FSYNC_OFF").durable());
        PowerLossDriver.Storage wal = PowerLossDriver.Storage.parse("WAL_FULL");
        assertEquals("WAL_FULL", wal.name());
        assertEquals(Engine.SQLITE, wal.engine());
        assertTrue(wal.durable());
        IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
                () -> PowerLossDriver.Storage.parse("FSYNC"));
        assertTrue(wrong.getMessage().contains("FSYNC_ON"), wrong.getMessage());
    }

    @Test
    void aStrategyIsRacedOnlyInItsOwnEnginesSettings() {
        PowerLossDriver.Settings settings = new PowerLossDriver.Settings(1, 1, 1, 1000, 0, 0, CutMode.LOSE_UNSYNCED, 1, false);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PowerLossDriver.run(
                StoreUnderTest.correct(LockingStrategy.IMMEDIATE), PowerLossDriver.PostgresStorage.FSYNC_ON, Path.of("unused"),
                settings));
        assertTrue(e.getMessage().contains("FSYNC_ON"), e.getMessage());
    }
}
