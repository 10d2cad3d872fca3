package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.powerloss.CutMode;
import dev.leaselab.testkit.PostgresServer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL with its data directory on the forgetful layer, a smoke: with {@code fsync=on} a few
 * cuts lose nothing acknowledged (the server starts again on what the layer kept, and
 * {@code amcheck} finds the table and its indexes sound), and {@code fsync=off} is caught losing
 * an acknowledged write. About 30 s on 2 cores. Needs a machine that can mount FUSE
 * file systems and PostgreSQL's binaries; fails where it cannot, unless
 * {@code -Dleaselab.postgres=skip} says to run without PostgreSQL (then it is skipped, as every
 * PostgreSQL test is).
 */
class PostgresPowerLossRaceTest {

    @TempDir
    Path dir;

    @BeforeEach
    void needsPostgresBinaries() {
        if (PowerLossPostgres.binaries().isEmpty() && "skip".equals(System.getProperty(PostgresServer.MODE_PROPERTY))) {
            Assumptions.abort("PostgreSQL power-loss race skipped (-D" + PostgresServer.MODE_PROPERTY
                    + "=skip): no PostgreSQL binaries");
        }
    }

    @Test
    void fsyncOnLosesNothingAcknowledgedAndFsyncOffIsCaught() {
        PowerLossDriver.Result durable = PowerLossDriver.run(StoreUnderTest.correct(LockingStrategy.PG_CONDITIONAL_UPDATE),
                PowerLossDriver.PostgresStorage.FSYNC_ON, dir,
                new PowerLossDriver.Settings(3, 2, 4, 1000, 300, 1200, CutMode.LOSE_UNSYNCED, 17, false));
        // fsync=off, not synchronous_commit=off: it loses at every cut (30 of 30 in the results),
        // synchronous_commit=off in 11 of 30, too seldom for a smoke of a few cuts that must not flake.
        PowerLossDriver.Result control = PowerLossDriver.run(StoreUnderTest.correct(LockingStrategy.PG_ROW_LOCK),
                PowerLossDriver.PostgresStorage.FSYNC_OFF, dir,
                new PowerLossDriver.Settings(3, 2, 4, 1000, 300, 1200, CutMode.LOSE_UNSYNCED, 18, true));
        String report = PowerLossMain.report(PowerLossMain.Profile.SMOKE, CutMode.LOSE_UNSYNCED, 17, List.of(durable, control));
        System.out.println(report);

        assertEquals(3, durable.cuts(), report);
        assertTrue(durable.acknowledged() > 10, "the workers got operations acknowledged before the cuts:\n" + report);
        assertEquals(0, durable.integrityFailures(), report);
        assertEquals(0, durable.lostWrites(), report);
        assertEquals(0, durable.reissuedFences(), report);
        assertTrue(durable.check().passed(), report);
        assertTrue(control.lostWrites() > 0, "fsync=off must be caught losing an acknowledged write:\n" + report);
    }
}
