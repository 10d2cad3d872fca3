package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How long {@link GroupCommitProtocol.Gathering}'s leader waits, to the nanosecond, on a clock
 * that moves only when the leader yields (by {@link #YIELD_STEP}) or parks (by what it asked for):
 * it yields for {@link GroupCommitProtocol#YIELD_NANOS} at most, then parks for the rest, and stops
 * when the commits that the missing writes would save have had their time, or at its cap. The
 * rules of whom it waits for are {@link GroupCommitGatheringTest}'s, with real threads; here no
 * writer comes, so every wait runs to its bound. Nothing is timed: each wait is a count of calls.
 */
class GroupCommitGatheringBoundsTest {

    /** What one yield costs on the test's clock. */
    private static final long YIELD_STEP = 1_000;
    private static final long MICROS = 1_000;
    private static final long NO_CAP = 10_000_000 * MICROS;

    /** A clock that moves only when the leader yields or parks, and a record of both. */
    private static final class SteppedWaits implements GroupCommitProtocol.Gathering.Waits {
        /** Not zero, so that a deadline computed with the wrong sign cannot pass for a right one. */
        static final long START = 5_000_000_000L;
        long now = START;
        int yields;
        final List<Long> parks = new ArrayList<>();
        /** What happens on the clock after each yield: a writer queues, for instance. */
        Runnable afterEachYield = () -> { };

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void yieldCpu() {
            yields++;
            now += YIELD_STEP;
            afterEachYield.run();
        }

        @Override
        public void parkNanos(Object blocker, long nanos) {
            parks.add(nanos);
            now += nanos;
        }

        long waited() {
            return now - START;
        }
    }

    private final SteppedWaits waits = new SteppedWaits();

    private GroupCommitProtocol.Gathering gathering(long maxWaitNanos) {
        return new GroupCommitProtocol.Gathering(maxWaitNanos, GroupCommitProtocol.WAKE_UP_NANOS, waits);
    }

    @Test
    void theLeaderYieldsForTheYieldTimeThenParksForTheRestOfWhatTheMissingCommitsSave() {
        GroupCommitProtocol.Gathering gathering = gathering(NO_CAP);
        afterABatch(gathering, 8, 100 * MICROS);
        gathering.queued();
        // 7 writes missing, each saving a commit of 100 µs: 700 µs, 300 of them yielding.
        await(gathering);
        assertEquals(GroupCommitProtocol.YIELD_NANOS / YIELD_STEP, waits.yields);
        assertEquals(List.of(700 * MICROS - GroupCommitProtocol.YIELD_NANOS), waits.parks);
        assertEquals(700 * MICROS, waits.waited());
    }

    @Test
    void theWaitEndsAtItsCap() {
        GroupCommitProtocol.Gathering gathering = gathering(500 * MICROS);
        afterABatch(gathering, 8, 100 * MICROS);
        gathering.queued();
        await(gathering);
        assertEquals(GroupCommitProtocol.YIELD_NANOS / YIELD_STEP, waits.yields);
        assertEquals(List.of(500 * MICROS - GroupCommitProtocol.YIELD_NANOS), waits.parks);
        assertEquals(500 * MICROS, waits.waited());
    }

    @Test
    void aWaitShorterThanTheYieldTimeOnlyYields() {
        GroupCommitProtocol.Gathering gathering = gathering(NO_CAP);
        afterABatch(gathering, 8, 20 * MICROS);
        gathering.queued();
        // 7 missing commits of 20 µs: 140 µs, all of it yielding.
        await(gathering);
        assertEquals(140, waits.yields);
        assertEquals(List.of(), waits.parks);
        assertEquals(140 * MICROS, waits.waited());
    }

    @Test
    void fewerWritersAreWaitedForOnlyWhenTheirCommitsCostMoreThanAWakeUp() {
        // 3 writers, 1 queued: 2 missing commits. At exactly a wake-up's cost the leader goes on.
        GroupCommitProtocol.Gathering atAWakeUp = gathering(NO_CAP);
        afterABatch(atAWakeUp, 3, GroupCommitProtocol.WAKE_UP_NANOS / 2);
        atAWakeUp.queued();
        await(atAWakeUp);
        assertEquals(0, waits.waited(), "waited for 2 writers whose commits cost exactly a wake-up");

        // 2 ns more, and it waits for them: 101 yields reach the deadline of 100,002 ns.
        GroupCommitProtocol.Gathering aboveIt = gathering(NO_CAP);
        afterABatch(aboveIt, 3, GroupCommitProtocol.WAKE_UP_NANOS / 2 + 1);
        aboveIt.queued();
        await(aboveIt);
        assertEquals(101, waits.yields);
        assertEquals(List.of(), waits.parks);
    }

    @Test
    void fromFourWritersUpTheLeaderWaitsHoweverLittleTheCommitsCost() {
        // 4 writers, 1 queued: 3 missing commits of 10 µs, 30 µs in all, far below a wake-up.
        GroupCommitProtocol.Gathering gathering = gathering(NO_CAP);
        afterABatch(gathering, GroupCommitProtocol.MIN_WRITERS_TO_WAIT_FOR, 10 * MICROS);
        gathering.queued();
        await(gathering);
        assertEquals(30, waits.yields);
        assertEquals(30 * MICROS, waits.waited());
    }

    @Test
    void theWaitEndsAsSoonAsTheLastWriterHasQueued() {
        GroupCommitProtocol.Gathering gathering = gathering(NO_CAP);
        afterABatch(gathering, 8, 100 * MICROS);
        gathering.queued();
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
        GroupCommitProtocol.Gathering gathering = gathering(NO_CAP);
        afterABatch(gathering, 8, 100 * MICROS);
        // A second commit of 800 µs moves the average from 100 µs an eighth of the way: 187.5 µs.
        gathering.committed(800 * MICROS);
        gathering.queued();
        await(gathering);
        assertEquals(7 * 187_500, waits.waited());
    }

    @Test
    void noWaitWhenEveryWriterHasQueued() {
        GroupCommitProtocol.Gathering gathering = gathering(NO_CAP);
        afterABatch(gathering, 8, 100 * MICROS);
        for (int i = 0; i < 8; i++) {
            gathering.queued();
        }
        await(gathering);
        assertEquals(0, waits.yields);
        assertEquals(List.of(), waits.parks);
    }

    @Test
    void anInterruptedLeaderNeitherYieldsNorParksAndKeepsItsInterrupt() {
        GroupCommitProtocol.Gathering gathering = gathering(NO_CAP);
        afterABatch(gathering, 8, 100 * MICROS);
        gathering.queued();
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
     * spin on a clock that no longer moves: the preemptive timeout interrupts it, which ends its loops.
     */
    private static void await(GroupCommitProtocol.Gathering gathering) {
        assertTimeoutPreemptively(Duration.ofSeconds(10), gathering::awaitLastBatchWriters,
                "the leader's wait never reached its bound");
    }

    /** As the protocol reports a batch of {@code writers} that shared one commit of {@code commitNanos} on average. */
    private static void afterABatch(GroupCommitProtocol.Gathering gathering, int writers, long commitNanos) {
        for (int i = 0; i < writers; i++) {
            gathering.queued();
            gathering.taken();
        }
        // The average moves an eighth of the way each commit, from 0.
        gathering.committed(commitNanos * 8);
        gathering.batchEnded(writers);
    }
}
