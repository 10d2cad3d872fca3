package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.testkit.Database;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a {@link DrainWorker} tells the driver: it says {@code FREE} before every call that writes,
 * so a {@code SIGSTOP} that lands inside a call (which may hold the write lock, and which began
 * before any takeover) is let go at once, and says {@code HOLD} while it works on a batch, so a
 * pause can find it holding leases. Local guest drains proved nothing when their pause landed
 * inside the batch's completeAll, announced as held (results/process-drain-attempts-20261207).
 */
class DrainWorkerTest {

    @TempDir
    Path dir;

    @Test
    void everyWriteIsMadeAfterFreeAndEveryBatchIsAnnouncedHeld() throws Exception {
        AnnouncedWrites seen = new AnnouncedWrites(Set.of("claimNext", "renew", "complete", "completeAll", "release"));
        try (LeaseStore real = StoreUnderTest.correct(LockingStrategy.IMMEDIATE).open(new Database.SqliteFile(dir.resolve("jobs.db")), 2)) {
            for (int i = 0; i < 200; i++) {
                real.enqueue("job-" + i);
            }
            DrainWorker worker = new DrainWorker(new RecordedStore(seen.watch(real), "w0", new MemoryHistory(), HostClock::nanos), "w0", 7,
                    1000, 2, null, seen.announce);
            for (int step = 0; step < 100 && seen.count("completeAll") < 10; step++) {
                worker.step();
            }
        }
        assertTrue(seen.count("completeAll") >= 10, "too few completeAll calls: " + seen.writes);
        seen.assertEveryWriteFollowedFree();
        assertTrue(seen.lines().stream().anyMatch(line -> line.startsWith("HOLD job-")), "the worker never said it held a batch");
    }
}
