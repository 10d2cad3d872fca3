package dev.leaselab.stress;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.ProtocolLeaseStore;
import dev.leaselab.testkit.process.ChildJvm;
import java.util.List;
import java.util.Objects;

/**
 * A lease store from outside the project, raced by the process race driver next to the Java
 * strategies: a command that serves the worker protocol ({@code docs/worker-protocol.md}), opened
 * as a {@link ProtocolLeaseStore} inside a worker JVM, so that the worker's history, its faults
 * ({@code kill -9} reaches the command too, {@code SIGSTOP} pauses both) and the checker are those
 * of every other worker.
 *
 * @param name how the verdict table shows it, e.g. {@code python}
 * @param command the command line, without the database file the store appends
 * @param control whether the guest is a deliberately wrong variant, which the race must catch
 */
public record Guest(String name, List<String> command, boolean control) {

    private static final String PREFIX = "guest:";
    private static final ObjectMapper JSON = new ObjectMapper();

    public Guest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(command, "command");
        if (name.isBlank() || name.contains("/") || name.contains("+")) {
            throw new IllegalArgumentException("name must be a word without '/' or '+': '" + name + "'");
        }
        if (command.isEmpty() || command.stream().anyMatch(word -> word == null || word.isEmpty())) {
            throw new IllegalArgumentException("command must be a non-empty list of words: " + command);
        }
        command = List.copyOf(command);
    }

    /** A guest from a command line as typed, split at whitespace (no quoting: point it at a script for more). */
    public static Guest parse(String name, String commandLine, boolean control) {
        Objects.requireNonNull(commandLine, "commandLine");
        String trimmed = commandLine.strip();
        if (trimmed.isEmpty()) {
            throw new IllegalArgumentException("--worker-command must not be empty");
        }
        return new Guest(name, List.of(trimmed.split("\\s+")), control);
    }

    /**
     * A Java store of your own as a guest: a {@link dev.leaselab.testkit.LeaseStoreProvider} on this
     * JVM's class path, served over the worker protocol by {@link dev.leaselab.testkit.ProtocolServer}
     * in a JVM of its own, named by the class's simple name.
     *
     * @throws IllegalArgumentException naming the class when it cannot be loaded or is no provider
     */
    public static Guest javaStore(String providerClass, boolean control) {
        Objects.requireNonNull(providerClass, "providerClass");
        Class<?> type;
        try {
            type = Class.forName(providerClass);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("--store-class " + providerClass + " is not on the class path (run "
                    + "java -cp stress.jar:your.jar dev.leaselab.stress.StressMain ...)", e);
        }
        if (!dev.leaselab.testkit.LeaseStoreProvider.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("--store-class " + providerClass + " is not a "
                    + dev.leaselab.testkit.LeaseStoreProvider.class.getName());
        }
        return new Guest(type.getSimpleName(), List.of(ChildJvm.java(), "-Xmx96m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", ChildJvm.classPath(), dev.leaselab.testkit.ProtocolServer.class.getName(),
                "--provider", providerClass), control);
    }

    /** The store argument of a {@link StressWorker} that serves this guest. */
    String workerArgument() {
        try {
            return PREFIX + JSON.writeValueAsString(command);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + command, e);
        }
    }

    /**
     * Opens the store a worker argument names: a guest ({@link #workerArgument()}) over the protocol
     * on the SQLite file, or a {@link StoreUnderTest} by its name.
     */
    static LeaseStore open(String workerArgument, Database db) {
        if (!workerArgument.startsWith(PREFIX)) {
            return StoreUnderTest.parse(workerArgument).open(db, 2);
        }
        if (!(db instanceof Database.SqliteFile file)) {
            throw new IllegalArgumentException("a guest races on a SQLite file, not on " + db);
        }
        List<String> command;
        try {
            command = JSON.readValue(workerArgument.substring(PREFIX.length()), new TypeReference<List<String>>() {});
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a guest's command: " + workerArgument, e);
        }
        return ProtocolLeaseStore.open(command, file.file());
    }
}
