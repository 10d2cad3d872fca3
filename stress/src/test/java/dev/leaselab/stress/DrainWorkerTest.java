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
 * What a {@link DrainWorker} tells the driver: it says {@code FREE} before every call that writes,
 * so a {@code SIGSTOP} that lands inside a call (which may hold the write lock, and which began
 * before any takeover) is let go at once, and says {@code HOLD} while it works on a batch, so a
 * pause can find it holding leases. Local guest drains proved nothing when their pause landed
 * inside the batch's completeAll, announced as held (results/process-drain-attempts-20261207).
 */
class DrainWorkerTest {

    private static final Set<String> WRITES = Set.of("claimNext", "renew", "complete", "completeAll", "release");

    @TempDir
    Path dir;

    @Test
    void everyWriteIsMadeAfterFreeAndEveryBatchIsAnnouncedHeld() throws Exception {
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
            for (int i = 0; i < 200; i++) {
                real.enqueue("job-" + i);
            }
            DrainWorker worker = new DrainWorker(new RecordedStore(watched, "w0", history, HostClock::nanos), "w0", 7, 1000, 2,
                    null, announce);
            for (int step = 0; step < 100 && writes.stream().filter("completeAll"::equals).count() < 10; step++) {
                worker.step();
            }
        }
        assertTrue(writes.stream().filter("completeAll"::equals).count() >= 10, "too few completeAll calls: " + writes);
        for (int i = 0; i < writes.size(); i++) {
            assertEquals("FREE", lastLineAtEachWrite.get(i), "write " + i + " (" + writes.get(i) + ") of " + writes);
        }
        assertTrue(said.toString(StandardCharsets.UTF_8).lines().anyMatch(line -> line.startsWith("HOLD job-")),
                "the worker never said it held a batch");
    }
}
