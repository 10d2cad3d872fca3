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

    /** The leader as it was before f9b3fb3: it never waits. Test code only. */
    private static final class Impatient extends GroupCommitProtocol.Gathering {
        Impatient() {
            super(PATIENT_NANOS);
        }

        @Override
        void awaitLastBatchWriters() {
        }
    }

    @Test
    void theLeaderWaitsUntilEveryWriterOfItsLastBatchHasQueuedAgain() throws Exception {
        assertWaitsForTheWritersOfTheLastBatch(new GroupCommitProtocol.Gathering(PATIENT_NANOS));
    }

    @Test
    void aLeaderThatFindsAllButOneWriterQueuedStillWaitsForTheLast() throws Exception {
        GroupCommitProtocol.Gathering gathering = new GroupCommitProtocol.Gathering(PATIENT_NANOS);
        afterABatch(gathering, 4, TimeUnit.SECONDS.toNanos(80));
        gathering.queued();
        gathering.queued();
        gathering.queued();
        Thread leader = leader(gathering);
        try {
            leader.join(200);
            assertTrue(leader.isAlive(), "the leader went on with 3 of the last batch's 4 writers queued");
            gathering.queued();
            leader.join(ENDS_WITHIN_MILLIS);
            assertFalse(leader.isAlive(), "the leader still waited with all 4 writers queued");
        } finally {
            leader.interrupt();
        }
    }

    @Test
    void writersThatQueuedWhileTheLastBatchRanAreWaitedForToo() throws Exception {
        // A batch of 3 while 2 more writers queued: 5 writers present, though the batch held 3.
        GroupCommitProtocol.Gathering gathering = new GroupCommitProtocol.Gathering(PATIENT_NANOS);
        for (int i = 0; i < 3; i++) {
            gathering.queued();
        }
        for (int i = 0; i < 3; i++) {
            gathering.taken();
        }
        gathering.queued();
        gathering.queued();
        gathering.committed(TimeUnit.SECONDS.toNanos(80) * 8);
        gathering.batchEnded(3);
        gathering.queued();
        Thread leader = leader(gathering);
        try {
            leader.join(200);
            assertTrue(leader.isAlive(), "the leader went on with 3 of the 5 writers present queued");
            gathering.queued();
            gathering.queued();
            leader.join(ENDS_WITHIN_MILLIS);
            assertFalse(leader.isAlive(), "the leader still waited with all 5 writers queued");
        } finally {
            leader.interrupt();
        }
    }

    @Test
    void aLeaderThatDoesNotWaitIsCaught() {
        assertThrows(AssertionFailedError.class, () -> assertWaitsForTheWritersOfTheLastBatch(new Impatient()));
    }

    @Test
    void fewerWritersThanTheThresholdAreNotWaitedFor() throws Exception {
        GroupCommitProtocol.Gathering gathering = new GroupCommitProtocol.Gathering(PATIENT_NANOS);
        afterABatch(gathering, GroupCommitProtocol.MIN_WRITERS_TO_WAIT_FOR - 1, TimeUnit.SECONDS.toNanos(80));
        gathering.queued();

        Thread leader = leader(gathering);
        leader.join(ENDS_WITHIN_MILLIS);
        assertFalse(leader.isAlive(), "the leader waited for " + (GroupCommitProtocol.MIN_WRITERS_TO_WAIT_FOR - 1) + " writers");
    }

    @Test
    void theWaitEndsWhenTheCommitsItWouldSaveHaveHadTheirTime() throws Exception {
        // Commits measured at 64 µs on average: 3 missing writes are worth 192 µs, far below the cap.
        GroupCommitProtocol.Gathering gathering = new GroupCommitProtocol.Gathering(PATIENT_NANOS);
        afterABatch(gathering, 4, 64_000);
        gathering.queued();

        Thread leader = leader(gathering);
        leader.join(ENDS_WITHIN_MILLIS);
        assertFalse(leader.isAlive(), "the leader waited past what the missing writes would save, 1 of 4 queued");
    }

    @Test
    void theWaitEndsAtItsCapWhateverTheCommitsCost() throws Exception {
        GroupCommitProtocol.Gathering gathering = new GroupCommitProtocol.Gathering(TimeUnit.MILLISECONDS.toNanos(1));
        afterABatch(gathering, 8, TimeUnit.SECONDS.toNanos(80));
        gathering.queued();

        Thread leader = leader(gathering);
        leader.join(ENDS_WITHIN_MILLIS);
        assertFalse(leader.isAlive(), "the leader waited past its cap of 1 ms, 1 of 8 queued");
    }

    /**
     * After a batch of 4 whose commit took long enough that only the count can end the wait: the
     * leader must still be parked with 1 and with 3 of the 4 writes queued, and go once the 4th is.
     */
    private static void assertWaitsForTheWritersOfTheLastBatch(GroupCommitProtocol.Gathering gathering)
            throws InterruptedException {
        afterABatch(gathering, 4, TimeUnit.SECONDS.toNanos(80));
        gathering.queued();
        Thread leader = leader(gathering);
        try {
            leader.join(200);
            assertTrue(leader.isAlive(), "the leader went on with 1 of the last batch's 4 writers queued");
            gathering.queued();
            gathering.queued();
            leader.join(200);
            assertTrue(leader.isAlive(), "the leader went on with 3 of the last batch's 4 writers queued");
            gathering.queued();
            leader.join(ENDS_WITHIN_MILLIS);
            assertFalse(leader.isAlive(), "the leader still waited with all 4 writers queued");
        } finally {
            leader.interrupt();
        }
    }

    /** As the protocol reports a batch of {@code writers} that shared one commit of {@code commitNanos} on average. */
    private static void afterABatch(GroupCommitProtocol.Gathering gathering, int writers, long commitNanos) {
        for (int i = 0; i < writers; i++) {
            gathering.queued();
        }
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
