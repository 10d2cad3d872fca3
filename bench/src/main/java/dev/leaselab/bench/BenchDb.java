package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.SqliteLeaseStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.UnaryOperator;

/**
 * One benchmark database: a fresh file in its own temporary directory, and the store opened on it.
 * {@link #close()} closes the store and deletes the directory with the file and its journals.
 */
final class BenchDb implements AutoCloseable {

    /**
     * Names a class with a no-argument constructor that implements
     * {@code UnaryOperator<LeaseStore>}; when set, every benchmark store is wrapped by it. Only the
     * gate's slowdown proof uses this (with a deliberately slowed store from the test sources); it
     * is not a strategy and nothing in the shipped jar implements it.
     */
    static final String DECORATOR_PROPERTY = "leaselab.bench.decorator";

    static final Duration SETUP_BUSY_TIMEOUT = Duration.ofMinutes(1);

    private final Path dir;
    private final Path file;
    private final Storage storage;
    private final LeaseStore store;

    private BenchDb(Path dir, Storage storage, LeaseStore store) {
        this.dir = dir;
        this.file = dir.resolve("bench.db");
        this.storage = storage;
        this.store = store;
    }

    /** Creates the database with the real schema by opening a store on it. */
    static BenchDb open(LockingStrategy strategy, Storage storage) {
        Path dir = tempDir();
        Path file = dir.resolve("bench.db");
        LeaseStore store = SqliteLeaseStore.open(file, strategy, storage.options());
        return new BenchDb(dir, storage, decorate(store));
    }

    /** Creates the database with the real schema and closes the store again: for the floor. */
    static BenchDb openWithoutStore(Storage storage) {
        Path dir = tempDir();
        SqliteLeaseStore.open(dir.resolve("bench.db"), LockingStrategy.values()[0], storage.options()).close();
        return new BenchDb(dir, storage, null);
    }

    LeaseStore store() {
        return store;
    }

    Path file() {
        return file;
    }

    /** A plain connection with the storage's settings and the benchmarks' busy timeout (the floor measures it). */
    Connection connect() throws SQLException {
        return storage.connect(file);
    }

    /**
     * A plain connection for preparing and cleaning up rows between iterations. It is not measured,
     * so it waits up to a minute for the write lock: several threads preparing their own batches
     * under {@code synchronous=FULL} can hold it for longer than the benchmarks' 1 s busy timeout.
     */
    private Connection connectForSetup() throws SQLException {
        return storage.connect(file, SETUP_BUSY_TIMEOUT);
    }

    /**
     * Writes {@code ids} as rows in one transaction through plain JDBC, bypassing the store: the
     * rows are either fresh ({@code owner == null}) or exactly in the state that a claim by
     * {@code owner} with fence 1 leaves, so that a benchmark of {@code complete} does not have to
     * measure the claims that prepare it. The schema is an on-disk contract that other programs
     * may write, so this is a legitimate writer.
     */
    void insertJobs(String[] ids, String owner, double until) {
        try (Connection c = connectForSetup()) {
            try (Statement s = c.createStatement()) {
                s.execute("BEGIN IMMEDIATE");
            }
            try (PreparedStatement insert = c.prepareStatement(
                    "INSERT INTO jobs (id, owner, until, fence) VALUES (?, ?, ?, ?)")) {
                for (String id : ids) {
                    insert.setString(1, id);
                    insert.setString(2, owner);
                    insert.setDouble(3, owner == null ? 0 : until);
                    insert.setLong(4, owner == null ? 0 : 1);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            try (Statement s = c.createStatement()) {
                s.execute("COMMIT");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not prepare " + ids.length + " jobs in " + file, e);
        }
    }

    /** Deletes finished jobs so that the table does not grow from iteration to iteration. */
    void deleteDoneJobs() {
        try (Connection c = connectForSetup(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM jobs WHERE done = 1");
        } catch (SQLException e) {
            throw new IllegalStateException("could not delete finished jobs in " + file, e);
        }
    }

    @Override
    public void close() {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            deleteRecursively(dir);
        }
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("leaselab-bench-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temporary directory for the benchmark database", e);
        }
    }

    @SuppressWarnings("unchecked")
    private static LeaseStore decorate(LeaseStore store) {
        String name = System.getProperty(DECORATOR_PROPERTY);
        if (name == null || name.isBlank()) {
            return store;
        }
        try {
            Object decorator = Class.forName(name).getDeclaredConstructor().newInstance();
            return ((UnaryOperator<LeaseStore>) decorator).apply(store);
        } catch (ReflectiveOperationException | ClassCastException e) {
            store.close();
            throw new IllegalStateException(DECORATOR_PROPERTY + "=" + name
                    + " must name a UnaryOperator<LeaseStore> with a no-argument constructor", e);
        }
    }

    /**
     * Deletes the database directory (it holds only the database and its journal files). It does
     * not stat the entries: SQLite may remove the WAL file while the last connection of another
     * thread closes, and a walk that stats a vanished entry would fail the benchmark.
     */
    private static void deleteRecursively(Path dir) {
        try {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                for (Path file : files) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete the benchmark directory " + dir, e);
        }
    }
}
