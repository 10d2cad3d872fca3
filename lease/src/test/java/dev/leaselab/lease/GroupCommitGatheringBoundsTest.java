package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How long {@link GroupCommitProtocol.Gathering}'s leader waits, to the nanosecond, on a clock
 * that moves only when the leader yields or parks ({@link SteppedWaits}):
 * it yields for {@link GroupCommitProtocol#YIELD_NANOS} at most, then parks for the rest, and stops
 * when the commits that the missing writes would save have had their time, or at its cap. The
 * rules of whom it waits for are {@link GroupCommitGatheringTest}'s, with real threads; here no
 * writer comes, so every wait runs to its bound. Nothing is timed: each wait is a count of calls.
 */
class GroupCommitGatheringBoundsTest {

    private static final long YIELD_STEP = SteppedWaits.YIELD_STEP;
    private static final long MICROS = 1_000;
    private static final long NO_CAP = 10_000_000 * MICROS;

    private final SteppedWaits waits = new SteppedWaits();

    /**
     * A leader on {@link #waits} with a cap of {@code maxWaitNanos}, after a batch of {@code writers}
     * writes whose commits took {@code commitNanos} on average, with {@code queued} writes queued again.
     */
    private GroupCommitProtocol.Gathering leader(long maxWaitNanos, int writers, long commitNanos, int queued) {
        GroupCommitProtocol.Gathering gathering = new GroupCommitProtocol.Gathering(maxWaitNanos, GroupCommitProtocol.WAKE_UP_NANOS, waits);
        GroupCommitGatheringTest.afterABatch(gathering, writers, commitNanos);
        GroupCommitGatheringTest.queue(gathering, queued);
        return gathering;
    }

    @Test
    void theLeaderYieldsForTheYieldTimeThenParksForTheRestOfWhatTheMissingCommitsSave() {
        GroupCommitProtocol.Gathering gathering = leader(NO_CAP, 8, 100 * MICROS, 1);
        // 7 writes missing, each saving a commit of 100 µs: 700 µs, 300 of them yielding.
        await(gathering);
        assertEquals(GroupCommitProtocol.YIELD_NANOS / YIELD_STEP, waits.yields);
        assertEquals(List.of(700 * MICROS - GroupCommitProtocol.YIELD_NANOS), waits.parks);
        assertEquals(700 * MICROS, waits.waited());
    }

    @Test
    void theWaitEndsAtItsCap() {
        GroupCommitProtocol.Gathering gathering = leader(500 * MICROS, 8, 100 * MICROS, 1);
        await(gathering);
        assertEquals(GroupCommitProtocol.YIELD_NANOS / YIELD_STEP, waits.yields);
        assertEquals(List.of(500 * MICROS - GroupCommitProtocol.YIELD_NANOS), waits.parks);
        assertEquals(500 * MICROS, waits.waited());
    }

    @Test
    void aWaitShorterThanTheYieldTimeOnlyYields() {
        GroupCommitProtocol.Gathering gathering = leader(NO_CAP, 8, 20 * MICROS, 1);
        // 7 missing commits of 20 µs: 140 µs, all of it yielding.
        await(gathering);
        assertEquals(140, waits.yields);
        assertEquals(List.of(), waits.parks);
        assertEquals(140 * MICROS, waits.waited());
    }

    @Test
    void fewerWritersAreWaitedForOnlyWhenTheirCommitsCostMoreThanAWakeUp() {
        // 3 writers, 1 queued: 2 missing commits. At exactly a wake-up's cost the leader goes on.
        GroupCommitProtocol.Gathering atAWakeUp = leader(NO_CAP, 3, GroupCommitProtocol.WAKE_UP_NANOS / 2, 1);
        await(atAWakeUp);
        assertEquals(0, waits.waited(), "waited for 2 writers whose commits cost exactly a wake-up");

        // 2 ns more, and it waits for them: 101 yields reach the deadline of 100,002 ns.
        GroupCommitProtocol.Gathering aboveIt = leader(NO_CAP, 3, GroupCommitProtocol.WAKE_UP_NANOS / 2 + 1, 1);
        await(aboveIt);
        assertEquals(101, waits.yields);
        assertEquals(List.of(), waits.parks);
    }

    @Test
    void fromFourWritersUpTheLeaderWaitsHoweverLittleTheCommitsCost() {
        // 4 writers, 1 queued: 3 missing commits of 10 µs, 30 µs in all, far below a wake-up.
        GroupCommitProtocol.Gathering gathering = leader(NO_CAP, GroupCommitProtocol.MIN_WRITERS_TO_WAIT_FOR, 10 * MICROS, 1);
        await(gathering);
        assertEquals(30, waits.yields);
        assertEquals(30 * MICROS, waits.waited());
    }

    @Test
    void theWaitEndsAsSoonAsTheLastWriterHasQueued() {
        GroupCommitProtocol.Gathering gathering = leader(NO_CAP, 8, 100 * MICROS, 1);
        // The 7 missing writers queue one every 10 yields: the 7th after 70, long before 700 µs.
        waits.afterEachYield = () -> {
            if (waits.yields % 10 == 0) {
                gathering.queued();
            }
        };
        await(gathering);
        assertEquals(70, waits.yields);
        assertEquals(List.of(), waits.parks);
    }

    @Test
    void theCommitCostIsAMovingAverageThatMovesAnEighthOfTheWayEachCommit() {
        GroupCommitProtocol.Gathering gathering = leader(NO_CAP, 8, 100 * MICROS, 1);
        // A second commit of 800 µs moves the average from 100 µs an eighth of the way: 187.5 µs.
        gathering.committed(800 * MICROS);
        await(gathering);
        assertEquals(7 * 187_500, waits.waited());
    }

    @Test
    void noWaitWhenEveryWriterHasQueued() {
        GroupCommitProtocol.Gathering gathering = leader(NO_CAP, 8, 100 * MICROS, 8);
        await(gathering);
        assertEquals(0, waits.yields);
        assertEquals(List.of(), waits.parks);
    }

    @Test
    void anInterruptedLeaderNeitherYieldsNorParksAndKeepsItsInterrupt() {
        GroupCommitProtocol.Gathering gathering = leader(NO_CAP, 8, 100 * MICROS, 1);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            Thread.currentThread().interrupt();
            gathering.awaitLastBatchWriters();
            assertTrue(Thread.interrupted(), "the interrupt is kept");
        });
        assertEquals(0, waits.yields);
        assertEquals(List.of(), waits.parks);
    }

    /**
     * Runs the leader's wait (on a thread of JUnit's). A wait that stopped yielding or parking would
     * spin on a clock that no longer moves: {@link SteppedWaits} fails it after a million reads, and
     * the preemptive timeout (which interrupts it, ending its loops) catches one that spins without
     * reading the clock.
     */
    private static void await(GroupCommitProtocol.Gathering gathering) {
        assertTimeoutPreemptively(Duration.ofSeconds(10), gathering::awaitLastBatchWriters,
                "the leader's wait never reached its bound");
    }
}
