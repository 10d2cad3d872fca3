package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The threads that race a {@code claimMany}'s claims never keep a JVM alive: a program that
 * returns from {@code main} without closing its store must still exit, not wait out the pool's
 * minute of idle time first.
 */
class ClaimThreadsTest {

    private static final String PREFIX = "leaselab-claim-";

    @TempDir
    Path dir;

    @Test
    void theThreadsThatRaceTheClaimsAreDaemons() {
        try (SqliteLeaseStore store = SqliteLeaseStore.open(dir.resolve("jobs.db"))) {
            store.enqueue("j");
            List<OptionalLong> results = store.claimMany("j", List.of("A", "B", "C"), 100, 30);
            assertEquals(1, results.stream().filter(OptionalLong::isPresent).count(), results.toString());

            // Each claim waited at the gate on a thread of its own, and the cached pool keeps
            // those threads idle for a minute: they are still alive to be looked at.
            assertEquals(3, ((ThreadPoolExecutor) store.claimThreads).getLargestPoolSize());
            List<Thread> claimants = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith(PREFIX))
                    .toList();
            assertTrue(claimants.size() >= 3, "the claim threads are gone, or not named " + PREFIX + ": " + claimants);
            for (Thread claimant : claimants) {
                assertTrue(claimant.isDaemon(), claimant + " is not a daemon: it keeps the JVM alive");
            }
        }
    }
}
