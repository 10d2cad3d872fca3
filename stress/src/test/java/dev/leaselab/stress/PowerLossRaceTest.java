package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.powerloss.CutMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The power-loss smoke, on a real FUSE mount (at least 20 cuts, a minute or two): the durable settings lose
 * nothing acknowledged, and the controls (WAL without sync; DELETE without a directory sync after
 * the journal's delete) are caught losing acknowledged writes. Needs a machine that can mount FUSE
 * file systems; fails, never skips, where it cannot (.ci/run installs libfuse2 and fuse3).
 */
class PowerLossRaceTest {

    @TempDir
    Path dir;

    @Test
    void theSmokeProfileLosesNothingDurableAndCatchesEveryControl() {
        List<PowerLossMain.Plan> plans = PowerLossMain.plans(PowerLossMain.Profile.SMOKE, null);
        assertEquals(20, plans.stream().filter(p -> !p.untilCaught()).mapToInt(PowerLossMain.Plan::cuts).sum());
        List<PowerLossDriver.Result> results = new ArrayList<>();
        long seed = 41;
        for (PowerLossMain.Plan plan : plans) {
            results.add(PowerLossDriver.run(plan.sut(), plan.storage(), dir, plan.settings(CutMode.LOSE_UNSYNCED, seed++)));
        }
        String report = PowerLossMain.report(PowerLossMain.Profile.SMOKE, CutMode.LOSE_UNSYNCED, 41, results);
        System.out.println(report);
        assertTrue(results.stream().mapToInt(PowerLossDriver.Result::cuts).sum() > 20, "more than 20 cuts:\n" + report);
        for (int i = 0; i < plans.size(); i++) {
            PowerLossDriver.Result r = results.get(i);
            boolean durable = plans.get(i).storage().durable();
            assertTrue(r.acknowledged() > 20, "the workers got operations acknowledged before the cuts:\n" + report);
            assertTrue(PowerLossMain.verdict(r, durable).ok(), r.store() + " " + r.storage() + ":\n" + report);
            if (durable) {
                assertTrue(r.interrupted() > 0, "the cuts hit operations in flight:\n" + report);
                assertEquals(0, r.lostWrites());
                assertEquals(0, r.reissuedFences());
                assertTrue(r.check().passed());
            } else {
                assertTrue(r.lostWrites() > 0, r.storage() + " must be caught losing an acknowledged write:\n" + report);
            }
        }
    }
}
