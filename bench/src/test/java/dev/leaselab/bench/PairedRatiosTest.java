package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.bench.PairedClaimBenchmark.Slice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading the paired slices back from a tally: the ratios of a group, and the guard that a group
 * holds each slice exactly once (a measurement that does not start at a group would pair slices of
 * two groups). Each guard is checked against a tally that breaks it.
 */
class PairedRatiosTest {

    @TempDir
    Path dir;

    @Test
    void aGroupGivesClaimOverFloorAtOneAndAllThreadsAndTheScaling() throws Exception {
        // One group: claim at all threads 600/s, floor at all 1000/s, claim alone 300/s, floor alone 500/s.
        Map<ForkKey, PairedRatios.Row> rows = PairedRatios.read(tally(oneGroup(100)));
        assertEquals(1, rows.size());
        PairedRatios.Group g = rows.values().iterator().next().groups().get(0);
        assertEquals(0.6, g.xFloorAll(), 1e-9);
        assertEquals(0.6, g.xFloorOne(), 1e-9);
        assertEquals(2.0, g.scaling(), 1e-9, "the idle thread of a one-thread slice must not stretch its span");
    }

    @Test
    void theScalingOverTheFloorsDividesTheClaimsScalingByTheFloorsOfTheSameGroup() throws Exception {
        // claim: 120 at all threads, 60 alone (scales 2.0); floor: 200 at all threads, 80 alone (2.5)
        PairedRatios.Row row = PairedRatios.read(tally(oneGroup(80))).values().iterator().next();
        PairedRatios.Group g = row.groups().get(0);
        assertEquals(2.0, g.scaling(), 1e-9);
        assertEquals(0.8, g.scalingOverFloor(), 1e-9);
        assertEquals(g.xFloorAll() / g.xFloorOne(), g.scalingOverFloor(), 1e-9, "the same as x floor, N over x floor, 1");
        assertEquals(0.8, row.estimate(PairedRatios.Measure.SCALING_OVER_FLOOR).median(), 1e-9);
    }

    @Test
    void aOneThreadSliceThatRanForNoTimeGivesNoRatiosInsteadOfARateOfZero() throws Exception {
        // Group 1 whole; in group 2 thread 0 measured nothing in the one-thread claim slice.
        List<String> lines = new ArrayList<>(List.of(line(1, Slice.CLAIM_ALL, 0, 60), line(1, Slice.CLAIM_ALL, 1, 60),
                line(2, Slice.FLOOR_ALL, 0, 100), line(2, Slice.FLOOR_ALL, 1, 100),
                line(3, Slice.CLAIM_ONE, 0, 60), line(3, Slice.CLAIM_ONE, 1, 0),
                line(4, Slice.FLOOR_ONE, 0, 100), line(4, Slice.FLOOR_ONE, 1, 0),
                line(5, Slice.CLAIM_ALL, 0, 60), line(5, Slice.CLAIM_ALL, 1, 60),
                line(6, Slice.FLOOR_ALL, 0, 100), line(6, Slice.FLOOR_ALL, 1, 100),
                line(7, Slice.CLAIM_ONE, 0, 0), line(7, Slice.CLAIM_ONE, 1, 0),
                line(8, Slice.FLOOR_ONE, 0, 100), line(8, Slice.FLOOR_ONE, 1, 0)));
        PairedRatios.Row row = PairedRatios.read(tally(lines)).values().iterator().next();
        PairedRatios.Group empty = row.groups().get(1);
        assertTrue(Double.isNaN(empty.xFloorOne()) && Double.isNaN(empty.scaling()) && Double.isNaN(empty.scalingOverFloor()),
                empty.toString());
        assertEquals(0.6, empty.xFloorAll(), 1e-9, "the group's all-threads ratio still counts");
        assertEquals(1, row.ratios(PairedRatios.Measure.X_FLOOR_ONE).length);
        assertEquals(0.6, row.ratios(PairedRatios.Measure.X_FLOOR_ONE)[0], 1e-9);
        assertEquals(2, row.ratios(PairedRatios.Measure.X_FLOOR_ALL).length);
        assertEquals(600, row.medianRate(Slice.CLAIM_ONE), 1e-6, "the empty slice is not a rate of 0");
    }

    @Test
    void aGroupWithASliceTwiceIsRefusedNamingTheWarmup() throws Exception {
        Path tally = tally(List.of(line(1, Slice.CLAIM_ALL, 0, 60), line(2, Slice.CLAIM_ALL, 0, 60),
                line(3, Slice.CLAIM_ONE, 0, 60), line(4, Slice.FLOOR_ONE, 0, 100)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PairedRatios.read(tally));
        assertTrue(e.getMessage().contains("twice") && e.getMessage().contains("warmup"), e.getMessage());
    }

    @Test
    void aGroupWithoutAllFourSlicesIsRefused() throws Exception {
        Path tally = tally(List.of(line(1, Slice.CLAIM_ALL, 0, 60), line(2, Slice.FLOOR_ALL, 0, 100)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PairedRatios.read(tally));
        assertTrue(e.getMessage().contains("not all 4"), e.getMessage());
    }

    /** One group on two threads: the claim 60 + 60 at all threads and 60 alone, the floor 100 + 100 and {@code floorAlone}. */
    private static List<String> oneGroup(long floorAlone) {
        return List.of(line(1, Slice.CLAIM_ALL, 0, 60), line(1, Slice.CLAIM_ALL, 1, 60),
                line(2, Slice.FLOOR_ALL, 0, 100), line(2, Slice.FLOOR_ALL, 1, 100),
                line(3, Slice.CLAIM_ONE, 0, 60), line(3, Slice.CLAIM_ONE, 1, 0),
                line(4, Slice.FLOOR_ONE, 0, floorAlone), line(4, Slice.FLOOR_ONE, 1, 0));
    }

    private Path tally(List<String> lines) throws Exception {
        Path file = dir.resolve("tally.jsonl");
        Files.write(file, new ArrayList<>(lines));
        return file;
    }

    /** A measurement line of thread {@code thread} in {@code iteration}: {@code won} over 0.1 s, or an idle thread. */
    private static String line(int iteration, Slice slice, int thread, long won) {
        long start = 1_000_000_000L * iteration;
        return "{\"benchmark\":\"dev.leaselab.bench.PairedClaimBenchmark.slice\",\"mode\":\"thrpt\","
                + "\"params\":{\"strategy\":\"IMMEDIATE\",\"storage\":\"WAL_NORMAL\"},\"threads\":2,\"thread\":" + thread
                + ",\"pid\":7,\"iterationType\":\"measurement\",\"iteration\":" + iteration + ",\"slice\":\"" + slice
                + "\",\"won\":" + won + ",\"lost\":0,\"refused\":0,\"failed\":0,\"refills\":0,\"startNanos\":"
                + (won > 0 ? start : start + 300_000_000L) + ",\"endNanos\":" + (start + (won > 0 ? 100_000_000L : 300_000_000L)) + "}";
    }
}
