package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LeaseStore#claimMany}'s gate: no owner's claim starts until every owner's claimant is on
 * its thread, so that the claims meet instead of running one after another as their threads start.
 * The results cannot show it (one after another still gives one winner), so this test makes the
 * last claimant's thread slow to start: before it takes its task it watches the job for a second,
 * and a claim that ran meanwhile would have claimed it. A store whose claimants do not wait at the
 * gate, or whose caller opens the gate before every claimant is ready (the negative controls, by
 * hand and in PIT's run), fails here every time: its first claimant claims within milliseconds.
 */
class ClaimManyGateTest {

    /** How long the last claimant's thread watches the job before it starts its claim. */
    private static final long WATCH_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final List<String> OWNERS = List.of("A", "B", "C");

    @TempDir
    Path dir;

    private volatile boolean watched;
    private volatile JobState claimedBeforeTheLastClaimantStarted;

    @Test
    void noClaimStartsBeforeTheLastClaimantIsOnItsThread() {
        try (SqliteLeaseStore store = SqliteLeaseStore.open(dir.resolve("jobs.db"), LockingStrategy.CONDITIONAL_UPDATE)) {
            store.enqueue("j");
            // A new store has no claim threads yet, and its claimants wait at the gate, so each owner
            // gets a thread of its own from the factory: the last one created watches first.
            ThreadPoolExecutor claimants = (ThreadPoolExecutor) store.claimThreads;
            ThreadFactory threads = claimants.getThreadFactory();
            AtomicInteger created = new AtomicInteger();
            claimants.setThreadFactory(task -> created.incrementAndGet() < OWNERS.size()
                    ? threads.newThread(task)
                    : threads.newThread(() -> {
                        watch(store);
                        task.run();
                    }));

            List<OptionalLong> results = store.claimMany("j", OWNERS, 100, 30);

            assertTrue(watched, "the last claimant never watched: " + created.get() + " claim threads were created");
            assertNull(claimedBeforeTheLastClaimantStarted, "a claim ran before the last claimant was on its thread");
            assertEquals(1, results.stream().filter(OptionalLong::isPresent).count(), results.toString());
            assertEquals(1, store.state("j").orElseThrow().fence());
        }
    }

    private void watch(SqliteLeaseStore store) {
        watched = true;
        for (long deadline = System.nanoTime() + WATCH_NANOS; System.nanoTime() - deadline < 0; ) {
            JobState job = store.state("j").orElseThrow();
            if (job.fence() > 0) {
                claimedBeforeTheLastClaimantStarted = job;
                return;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
