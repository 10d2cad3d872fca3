package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * {@link GroupCommitProtocol}'s leader waits, before it drains the queue, until the writers of its
 * last batch have queued again ({@link GroupCommitProtocol.Gathering}): without that wait the
 * returning leader commits its own write alone while the writers it has just woken are still being
 * scheduled, and batches alternate between one write and the rest (results/group-commit-20261203).
 * A leader that does not wait is the negative control. The waits here end on the count, or on a
 * bound of their own, never on a measured duration: nothing is timed.
 */
class GroupCommitGatheringTest {

    /** Longer than any test: a leader still parked at a check is waiting, not just slow. */
    private static final long PATIENT_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long ENDS_WITHIN_MILLIS = 30_000;
    /** A commit long enough that a wait it bounds outlasts every test. */
    private static final long COMMIT_NANOS = TimeUnit.SECONDS.toNanos(80);
    private static final long TWO_COMMITS = 2 * COMMIT_NANOS;

    /** The leader as it was before f9b3fb3: it never waits. Test code only. */
    private static final class Impatient extends GroupCommitProtocol.Gathering {
        Impatient() {
            super(PATIENT_NANOS, GroupCommitProtocol.WAKE_UP_NANOS);
        }

        @Override
        void awaitLastBatchWriters() {
        }
    }

    @Test
    void theLeaderWaitsUntilEveryWriterOfItsLastBatchHasQueuedAgain() throws Exception {
        assertWaitsForTheWritersOfTheLastBatch(new GroupCommitProtocol.Gathering(PATIENT_NANOS, GroupCommitProtocol.WAKE_UP_NANOS));
    }

    @Test
    void aLeaderThatFindsAllButOneWriterQueuedStillWaitsForTheLast() throws Exception {
        GroupCommitProtocol.Gathering gathering = new GroupCommitProtocol.Gathering(PATIENT_NANOS, GroupCommitProtocol.WAKE_UP_NANOS);
        afterABatch(gathering, 4, TimeUnit.SECONDS.toNanos(80));
        queue(gathering, 3);
        assertLeaderWaitsForAll(gathering, 3, 4);
    }

    @Test
    void writersThatQueuedWhileTheLastBatchRanAreWaitedForToo() throws Exception {
        // A batch of 3 while 2 more writers queued: 5 writers present, though the batch held 3.
        GroupCommitProtocol.Gathering gathering = new GroupCommitProtocol.Gathering(PATIENT_NANOS, GroupCommitProtocol.WAKE_UP_NANOS);
        queue(gathering, 3);
        for (int i = 0; i < 3; i++) {
            gathering.taken();
        }
        queue(gathering, 2);
        gathering.committed(TimeUnit.SECONDS.toNanos(80) * 8);
        gathering.batchEnded(3);
        queue(gathering, 1);
        assertLeaderWaitsForAll(gathering, 3, 5);
    }

    @Test
    void aLeaderThatDoesNotWaitIsCaught() {
        assertThrows(AssertionFailedError.class, () -> assertWaitsForTheWritersOfTheLastBatch(new Impatient()));
    }

    @Test
    void fewerWritersThanTheThresholdAreNotWaitedForWhenTheirCommitsCostNoMoreThanAWakeUp() throws Exception {
        assertDoesNotWaitForWritersWorthAWakeUp(new GroupCommitProtocol.Gathering(PATIENT_NANOS, TWO_COMMITS), ENDS_WITHIN_MILLIS);
    }

    @Test
    void aLeaderThatWaitsWhateverTheWakeUpCostsIsCaught() {
        // It waits up to PATIENT_NANOS, so a second's patience tells it from one that goes on.
        assertThrows(AssertionFailedError.class, () -> assertDoesNotWaitForWritersWorthAWakeUp(
                new GroupCommitProtocol.Gathering(PATIENT_NANOS, 0), 1_000));
    }

    /**
     * Commits of 80 s and a wake-up said to cost two of them, so that a wait, which lasts as long as
     * the commits it would save, outlasts the test: {@code MIN_WRITERS_TO_WAIT_FOR - 1} writers of
     * whom one is queued miss exactly two commits, and must not be waited for.
     */
    private static void assertDoesNotWaitForWritersWorthAWakeUp(GroupCommitProtocol.Gathering gathering, long patienceMillis)
            throws InterruptedException {
        int writers = GroupCommitProtocol.MIN_WRITERS_TO_WAIT_FOR - 1;
        afterABatch(gathering, writers, COMMIT_NANOS);
        queue(gathering, writers - 2);
        Thread leader = leader(gathering);
        try {
            leader.join(patienceMillis);
            assertFalse(leader.isAlive(), "the leader waited for 2 writers whose commits cost no more than a wake-up");
        } finally {
            leader.interrupt();
        }
    }

    @Test
    void aPartnerIsWaitedForWhenTheCommitItSavesCostsMoreThanAWakeUp() throws Exception {
        // Two threads of one process on WAL + FULL: the commit the partner saves syncs the WAL.
        assertWaitsForAPartnerWhoseCommitIsDear(new GroupCommitProtocol.Gathering(PATIENT_NANOS, GroupCommitProtocol.WAKE_UP_NANOS));
    }

    @Test
    void aLeaderThatCountsWritersOnlyIsCaught() {
        // The rule before the wake-up's cost was weighed: fewer than MIN_WRITERS_TO_WAIT_FOR, never.
        assertThrows(AssertionFailedError.class, () -> assertWaitsForAPartnerWhoseCommitIsDear(
                new GroupCommitProtocol.Gathering(PATIENT_NANOS, Long.MAX_VALUE)));
    }

    private static void assertWaitsForAPartnerWhoseCommitIsDear(GroupCommitProtocol.Gathering gathering)
            throws InterruptedException {
        afterABatch(gathering, 2, COMMIT_NANOS);
        queue(gathering, 1);
        assertLeaderWaitsForAll(gathering, 1, 2);
    }

    @Test
    void theWaitEndsWhenTheCommitsItWouldSaveHaveHadTheirTime() throws Exception {
        // Commits measured at 64 µs on average: 3 missing writes are worth 192 µs, far below the cap.
        GroupCommitProtocol.Gathering gathering = new GroupCommitProtocol.Gathering(PATIENT_NANOS, GroupCommitProtocol.WAKE_UP_NANOS);
        afterABatch(gathering, 4, 64_000);
        queue(gathering, 1);
        assertLeaderGoesOn(gathering, "the leader waited past what the missing writes would save, 1 of 4 queued");
    }

    @Test
    void theWaitEndsAtItsCapWhateverTheCommitsCost() throws Exception {
        GroupCommitProtocol.Gathering gathering = new GroupCommitProtocol.Gathering(TimeUnit.MILLISECONDS.toNanos(1), GroupCommitProtocol.WAKE_UP_NANOS);
        afterABatch(gathering, 8, TimeUnit.SECONDS.toNanos(80));
        queue(gathering, 1);
        assertLeaderGoesOn(gathering, "the leader waited past its cap of 1 ms, 1 of 8 queued");
    }

    /**
     * After a batch of 4 whose commit took long enough that only the count can end the wait, with
     * the leader's own write queued: the leader must stay parked until the 4th write is queued.
     */
    private static void assertWaitsForTheWritersOfTheLastBatch(GroupCommitProtocol.Gathering gathering)
            throws InterruptedException {
        afterABatch(gathering, 4, TimeUnit.SECONDS.toNanos(80));
        queue(gathering, 1);
        assertLeaderWaitsForAll(gathering, 1, 4);
    }

    /**
     * With {@code queued} of the {@code present} writers queued, a leader must park, stay parked as
     * the others queue one by one, and go once the last has.
     */
    private static void assertLeaderWaitsForAll(GroupCommitProtocol.Gathering gathering, int queued, int present)
            throws InterruptedException {
        Thread leader = leader(gathering);
        try {
            for (int q = queued; q < present; q++) {
                leader.join(200);
                assertTrue(leader.isAlive(), "the leader went on with " + q + " of the " + present + " writers present queued");
                gathering.queued();
            }
            leader.join(ENDS_WITHIN_MILLIS);
            assertFalse(leader.isAlive(), "the leader still waited with all " + present + " writers queued");
        } finally {
            leader.interrupt();
        }
    }

    private static void assertLeaderGoesOn(GroupCommitProtocol.Gathering gathering, String otherwise)
            throws InterruptedException {
        Thread leader = leader(gathering);
        leader.join(ENDS_WITHIN_MILLIS);
        assertFalse(leader.isAlive(), otherwise);
    }

    static void queue(GroupCommitProtocol.Gathering gathering, int writes) {
        for (int i = 0; i < writes; i++) {
            gathering.queued();
        }
    }

    /** As the protocol reports a batch of {@code writers} that shared one commit of {@code commitNanos} on average. */
    static void afterABatch(GroupCommitProtocol.Gathering gathering, int writers, long commitNanos) {
        queue(gathering, writers);
        for (int i = 0; i < writers; i++) {
            gathering.taken();
        }
        // The average moves an eighth of the way each commit, from 0.
        gathering.committed(commitNanos * 8);
        gathering.batchEnded(writers);
    }

    private static Thread leader(GroupCommitProtocol.Gathering gathering) {
        Thread leader = new Thread(gathering::awaitLastBatchWriters, "leader");
        leader.setDaemon(true);
        leader.start();
        return leader;
    }
}
