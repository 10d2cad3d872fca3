package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.testkit.Database;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

    private static final Set<String> WRITES = Set.of("enqueue", "claim", "claimMany", "renew", "complete", "release");

    @TempDir
    Path dir;

    @Test
    void everyWriteIsMadeAfterFreeAndEveryLeaseIsWorkedOnAnnouncedHeld() throws Exception {
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        PrintStream announce = new PrintStream(said, true, StandardCharsets.UTF_8);
        List<String> lastLineAtEachWrite = new ArrayList<>();
        List<String> writes = new ArrayList<>();
        MemoryHistory history = new MemoryHistory();
        try (LeaseStore real = StoreUnderTest.correct(LockingStrategy.IMMEDIATE).open(new Database.SqliteFile(dir.resolve("jobs.db")), 2)) {
            LeaseStore watched = (LeaseStore) Proxy.newProxyInstance(LeaseStore.class.getClassLoader(),
                    new Class<?>[] {LeaseStore.class}, (proxy, method, args) -> {
                        if (WRITES.contains(method.getName())) {
                            writes.add(method.getName());
                            List<String> lines = said.toString(StandardCharsets.UTF_8).lines().toList();
                            lastLineAtEachWrite.add(lines.isEmpty() ? "FREE" : lines.get(lines.size() - 1));
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            int slots = 2;
            for (int slot = 0; slot < slots; slot++) {
                real.enqueue(StressWorker.jobId(slot, 0));
            }
            // A lease of 20 ms and work of up to 8: a step takes a few to 40 ms.
            StressWorker worker = new StressWorker(new RecordedStore(watched, "w0", history), "IMMEDIATE", "w0", 7, slots, 20, 8,
                    announce);
            for (int step = 0; step < 400 && (count(writes, "complete") < 5 || count(writes, "renew") < 20); step++) {
                worker.step();
            }
        }
        assertTrue(count(writes, "renew") >= 20 && count(writes, "complete") >= 5 && count(writes, "release") >= 1,
                "too few lease writes to judge: " + writes);
        for (int i = 0; i < writes.size(); i++) {
            assertEquals("FREE", lastLineAtEachWrite.get(i), "write " + i + " (" + writes.get(i) + ") of " + writes);
        }
        assertTrue(said.toString(StandardCharsets.UTF_8).lines().anyMatch(line -> line.matches("HOLD job-\\d+-\\d+ \\d+")),
                "the worker never said it held a lease");
    }

    private static long count(List<String> writes, String name) {
        return writes.stream().filter(name::equals).count();
    }
}
