package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.SqliteLeaseStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A benchmark database on SQLite: a fresh file in its own temporary directory under
 * {@code java.io.tmpdir} (which the forks inherit from the runner's command line), deleted with its
 * journals on close. A SQLite connection is cheap, so each setup opens its own.
 */
final class SqliteBenchDb extends BenchDb {

    private final Storage storage;
    private final Path dir;
    private final Path file;

    private SqliteBenchDb(Storage storage, Path dir, LeaseStore store) {
        super(store);
        this.storage = storage;
        this.dir = dir;
        this.file = dir.resolve("bench.db");
    }

    /** Creates the file with the real schema by opening a store on it; {@code keepStore} false closes it again. */
    static SqliteBenchDb open(Storage storage, LockingStrategy strategy, boolean keepStore) {
        return open(storage, strategy, keepStore, tempDir());
    }

    /**
     * The same in {@code dir}, an empty directory that becomes the database's: deleted on close, and
     * at once if the store cannot be opened or decorated, as {@link PostgresBenchDb} drops its schema.
     * A fork whose setup fails would otherwise leave its directory under {@code java.io.tmpdir}.
     */
    static SqliteBenchDb open(Storage storage, LockingStrategy strategy, boolean keepStore, Path dir) {
        try {
            LeaseStore store = SqliteLeaseStore.open(dir.resolve("bench.db"), strategy, storage.options());
            if (!keepStore) {
                store.close();
                return new SqliteBenchDb(storage, dir, null);
            }
            return new SqliteBenchDb(storage, dir, decorate(store));
        } catch (RuntimeException e) {
            try {
                deleteDirectory(dir);
            } catch (UncheckedIOException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    @Override
    String where() {
        return file.toString();
    }

    @Override
    String workerArgument() {
        return file.toString();
    }

    @Override
    Connection connect() throws SQLException {
        return storage.connect(file);
    }

    @Override
    Connection borrowForSetup() throws SQLException {
        return storage.connect(file, SETUP_BUSY_TIMEOUT);
    }

    @Override
    void giveBack(Connection c) throws SQLException {
        c.close();
    }

    /** Takes the write lock up front: a deferred transaction could fail to upgrade. */
    @Override
    void begin(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
        }
    }

    @Override
    void commit(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("COMMIT");
        }
    }

    /**
     * Deletes the database directory (it holds only the database and its journal files). It does
     * not stat the entries: SQLite may remove the WAL file while the last connection of another
     * thread closes, and a walk that stats a vanished entry would fail the benchmark.
     */
    @Override
    void delete() {
        deleteDirectory(dir);
    }

    /** Deletes a directory that holds one database and its journal files, without stat-ing its entries (see {@link #delete()}). */
    static void deleteDirectory(Path dir) {
        try {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                for (Path f : files) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete the database directory " + dir, e);
        }
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("leaselab-bench-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temporary directory for the benchmark database", e);
        }
    }
}
