package dev.leaselab.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.SqliteLeaseStore;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * The negative control of the drain test's guard against a drain that never raced
 * ({@code workersDrainingOneQueueAtOnceAreEachHandedDifferentJobs}). No store can make concurrent
 * callers' claimNext calls stop overlapping, so the control is a drain that cannot race: one
 * worker. Every one of its drains hands each job out exactly once and passes those checks; the
 * guard alone must fail it, after all its drains, saying why.
 */
class DrainNeverRacedTest {

    @TempDir
    Path dir;

    @Test
    void aDrainByOneWorkerPassesEveryCheckButTheRaceAndFailsSayingSo(TestReporter reporter) throws Exception {
        Path file = dir.resolve("jobs.db");
        try (LeaseStore one = SqliteLeaseStore.open(file, LockingStrategy.CONDITIONAL_UPDATE);
                LeaseStore two = SqliteLeaseStore.open(file, LockingStrategy.CONDITIONAL_UPDATE)) {
            AssertionFailedError failure = assertThrows(AssertionFailedError.class,
                    () -> LeaseStoreContract.drainUntilRaced(one, two, 1, 10, reporter));
            assertEquals("no two claimNext calls overlapped in time, in " + LeaseStoreContract.DRAIN_ATTEMPTS
                    + " drains: the drain was never raced", failure.getMessage());
            String lastJob = "drain-" + LeaseStoreContract.DRAIN_ATTEMPTS + "-9";
            assertEquals(new JobState(lastJob, "worker-0", 130, 1, null, false), one.state(lastJob).orElseThrow(),
                    "every drain ran to its end before the guard failed");
        }
    }
}
