package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.leaselab.lease.LeaseStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a race worker announced to its driver ({@code HOLD ...} / {@code FREE}) at each call it made
 * that writes: the worker announces into {@link #announce}, and calls the store that {@link #watch}
 * returns. Shared by the tests of {@link DrainWorker} and {@link StressWorker}, which must both say
 * {@code FREE} before every write.
 */
final class AnnouncedWrites {

    private final Set<String> writeMethods;
    private final ByteArrayOutputStream said = new ByteArrayOutputStream();
    /** Where the worker under test says {@code HOLD} and {@code FREE}. */
    final PrintStream announce = new PrintStream(said, true, StandardCharsets.UTF_8);
    /** The name of each write, in order. */
    final List<String> writes = new ArrayList<>();
    private final List<String> lastLineAtEachWrite = new ArrayList<>();

    /** @param writeMethods the names of the {@link LeaseStore} methods that write */
    AnnouncedWrites(Set<String> writeMethods) {
        this.writeMethods = Set.copyOf(writeMethods);
    }

    /** {@code real}, noting at each write the last line announced before it ({@code FREE} if none yet). */
    LeaseStore watch(LeaseStore real) {
        return (LeaseStore) Proxy.newProxyInstance(LeaseStore.class.getClassLoader(), new Class<?>[] {LeaseStore.class},
                (proxy, method, args) -> {
                    if (writeMethods.contains(method.getName())) {
                        writes.add(method.getName());
                        List<String> lines = lines();
                        lastLineAtEachWrite.add(lines.isEmpty() ? "FREE" : lines.get(lines.size() - 1));
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** How many writes were calls of {@code method}. */
    long count(String method) {
        return writes.stream().filter(method::equals).count();
    }

    /** Every line announced so far. */
    List<String> lines() {
        return said.toString(StandardCharsets.UTF_8).lines().toList();
    }

    /** Fails unless the last line announced before each write was {@code FREE}. */
    void assertEveryWriteFollowedFree() {
        for (int i = 0; i < writes.size(); i++) {
            assertEquals("FREE", lastLineAtEachWrite.get(i), "write " + i + " (" + writes.get(i) + ") of " + writes);
        }
    }
}
