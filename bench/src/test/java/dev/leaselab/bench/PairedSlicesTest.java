package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PairedSlices}: the schedule every process of a paired multi-process run follows, and the
 * fold of their per-slice counts into x floor. Nothing here runs a database: the counts are made
 * up, so every figure the fold returns is known in advance.
 */
class PairedSlicesTest {

    private static final long MS = 1_000_000;
    private static final MultiProcessMain.Split TWO_BY_TWO = new MultiProcessMain.Split(2, 2);

    @Test
    void everyGroupHoldsOneFloorSliceAndOneClaimSliceInAnOrderThatVaries() {
        int floorFirst = 0;
        for (long g = -10; g < 1000; g++) {
            assertNotEquals(PairedSlices.isFloor(2 * g), PairedSlices.isFloor(2 * g + 1), "group " + g);
            floorFirst += g >= 0 && PairedSlices.isFloor(2 * g) ? 1 : 0;
        }
        // A fixed order would pair every claim with the floor of the same moment of a drifting machine.
        assertTrue(floorFirst > 400 && floorFirst < 600, "floor first in " + floorFirst + " of 1000 groups");
    }

    @Test
    void slicesAreCountedFromTheEndOfTheWarmup() {
        PairedSlices slices = new PairedSlices(1_000 * MS, 500 * MS, 100 * MS, 3);
        assertEquals(-5, slices.sliceAt(1_000 * MS));
        assertEquals(-1, slices.sliceAt(1_500 * MS - 1));
        assertEquals(0, slices.sliceAt(1_500 * MS));
        assertEquals(5, slices.sliceAt(slices.endNanos() - 1));
        assertEquals(6, slices.sliceAt(slices.endNanos()));
        assertEquals(2_100 * MS, slices.endNanos());
    }

    @Test
    void aScheduleWithoutGroupsOrSlicesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PairedSlices(0, 0, 100 * MS, 0));
        assertThrows(IllegalArgumentException.class, () -> new PairedSlices(0, 0, 0, 4));
        assertThrows(IllegalArgumentException.class, () -> new PairedSlices(0, -1, 100 * MS, 4));
    }

    /**
     * Two processes of two threads, 4 groups of 100 ms: every thread wins 25 in each floor slice and
     * 40 in each claim slice, so every group's ratio is 1.6 and the interval is that point.
     */
    @Test
    void theFoldGivesEachGroupsClaimWinsOverItsFloorWins() {
        PairedSlices slices = new PairedSlices(0, 0, 100 * MS, 4);
        List<JsonNode> workers = List.of(worker(slices, 25, 40), worker(slices, 25, 40));
        PairedSlices.Result r = slices.fold("GROUP_COMMIT", TWO_BY_TWO, workers);
        assertEquals(1.6, r.xFloor().median(), 1e-12);
        assertEquals(1.6, r.xFloor().low(), 1e-12);
        assertEquals(1.6, r.xFloor().high(), 1e-12);
        assertEquals(4, r.xFloor().pairs());
        assertEquals(4 * 40 / 0.1, r.claimWonPerSecond(), 1e-9, "4 threads, 40 in each claim slice of 100 ms");
        assertEquals(4 * 25 / 0.1, r.floorWonPerSecond(), 1e-9);
        assertEquals(1.0, r.jain(), 1e-12);
        assertEquals(List.of(320L, 320L), r.perProcessClaimWon());
        assertEquals(12, r.acrossSwitch(), "3 for each of the 4 threads");
    }

    /**
     * The negative control of the schedule: counts a worker put in the slices of the other order
     * (as a worker that drew its own order would) give the inverse ratio, so the parent and the
     * workers must share {@link PairedSlices#isFloor}.
     */
    @Test
    void countsInTheOtherOrderGiveTheInverseRatio() {
        PairedSlices slices = new PairedSlices(0, 0, 100 * MS, 4);
        ObjectNode swapped = worker(slices, 40, 25);
        assertEquals(25.0 / 40, slices.fold("GROUP_COMMIT", TWO_BY_TWO, List.of(swapped)).xFloor().median(), 1e-12);
    }

    @Test
    void aGroupWhoseFloorWonNothingHasNoRatioAndTheOthersStillCount() {
        PairedSlices slices = new PairedSlices(0, 0, 100 * MS, 4);
        ObjectNode worker = worker(slices, 25, 50);
        int floorOfGroup0 = PairedSlices.isFloor(0) ? 0 : 1;
        for (JsonNode thread : worker.path("threads")) {
            ((ArrayNode) thread.path("won")).set(floorOfGroup0, 0);
        }
        PairedSlices.Result r = slices.fold("GROUP_COMMIT", TWO_BY_TWO, List.of(worker));
        assertEquals(3, r.xFloor().pairs());
        assertEquals(2.0, r.xFloor().median(), 1e-12);
    }

    @Test
    void aWorkerThatCountedAnotherNumberOfSlicesIsRefused() {
        PairedSlices four = new PairedSlices(0, 0, 100 * MS, 4);
        ObjectNode fromAnotherSchedule = worker(new PairedSlices(0, 0, 100 * MS, 5), 25, 40);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> four.fold("GROUP_COMMIT", TWO_BY_TWO, List.of(fromAnotherSchedule)));
        assertTrue(e.getMessage().contains("10 slices") && e.getMessage().contains("8"), e.getMessage());
    }

    /** A worker's output: each of its two threads won {@code floorWon} in every floor slice and {@code claimWon} in every claim slice. */
    private static ObjectNode worker(PairedSlices slices, long floorWon, long claimWon) {
        ObjectNode worker = Json.MAPPER.createObjectNode().put("pid", 1).put("busyTimeoutMillis", 1000);
        ArrayNode threads = worker.putArray("threads");
        for (int t = 0; t < 2; t++) {
            ObjectNode thread = threads.addObject().put("acrossSwitch", 3);
            ArrayNode won = thread.putArray("won");
            ArrayNode lost = thread.putArray("lost");
            ArrayNode failed = thread.putArray("failed");
            for (int s = 0; s < slices.slices(); s++) {
                won.add(PairedSlices.isFloor(s) ? floorWon : claimWon);
                lost.add(0);
                failed.add(0);
            }
        }
        return worker;
    }
}
