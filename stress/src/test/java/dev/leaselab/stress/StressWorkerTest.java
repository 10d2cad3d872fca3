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
 * What a {@link StressWorker} of the process race tells the driver: {@code FREE} before every call
 * that writes, so that a {@code SIGSTOP} landing inside a call (which may hold the write lock, and
 * which began before any takeover) is let go at once, and {@code HOLD job fence} while it works
 * under a lease, so that a pause can find it there. Until 2026-12-08 it said {@code HOLD} from its
 * claim to its complete, renew and the write after it included, as {@link DrainWorker} did before
 * results/process-drain-attempts-20261207.
 */
class StressWorkerTest {

    @TempDir
    Path dir;

    @Test
    void everyWriteIsMadeAfterFreeAndEveryLeaseIsWorkedOnAnnouncedHeld() throws Exception {
        AnnouncedWrites seen = new AnnouncedWrites(Set.of("enqueue", "claim", "claimMany", "renew", "complete", "release"));
        try (LeaseStore real = StoreUnderTest.correct(LockingStrategy.IMMEDIATE).open(new Database.SqliteFile(dir.resolve("jobs.db")), 2)) {
            int slots = 2;
            for (int slot = 0; slot < slots; slot++) {
                real.enqueue(StressWorker.jobId(slot, 0));
            }
            // A lease of 20 ms and work of up to 8: a step takes a few to 40 ms.
            StressWorker worker = new StressWorker(new RecordedStore(seen.watch(real), "w0", new MemoryHistory()), "IMMEDIATE", "w0", 7,
                    slots, 20, 8, seen.announce);
            for (int step = 0; step < 400 && (seen.count("complete") < 5 || seen.count("renew") < 20); step++) {
                worker.step();
            }
        }
        assertTrue(seen.count("renew") >= 20 && seen.count("complete") >= 5 && seen.count("release") >= 1,
                "too few lease writes to judge: " + seen.writes);
        seen.assertEveryWriteFollowedFree();
        assertTrue(seen.lines().stream().anyMatch(line -> line.matches("HOLD job-\\d+-\\d+ \\d+")), "the worker never said it held a lease");
    }
}
