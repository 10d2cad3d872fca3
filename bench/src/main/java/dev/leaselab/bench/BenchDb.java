package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.PostgresLeaseStore;
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
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.UnaryOperator;

/**
 * One benchmark database and the store opened on it. On SQLite: a fresh file in its own temporary
 * directory, which {@link #close()} deletes with its journals. On {@link Storage#POSTGRESQL}: a fresh
 * schema of the server ({@link PostgresTarget}), created and dropped with plain JDBC, and the store
 * opened on it with 16 connections and a 1 s statement timeout ({@link Storage#postgresOptions()}).
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

    private final Storage storage;
    /** SQLite: the temporary directory and the file in it; null on PostgreSQL. */
    private final Path dir;
    private final Path file;
    /** PostgreSQL: the server and this database's schema; null on SQLite. */
    private final PostgresTarget server;
    private final String schema;
    /**
     * PostgreSQL: idle setup connections. A new PostgreSQL connection costs the server a process
     * and tens of milliseconds of CPU, and every thread prepares its jobs before every iteration, so
     * setup connections are kept for the trial; a SQLite connection is cheap and opened each time.
     */
    private final Queue<Connection> idleSetup = new ConcurrentLinkedQueue<>();
    private final LeaseStore store;

    private BenchDb(Storage storage, Path dir, PostgresTarget server, String schema, LeaseStore store) {
        this.storage = storage;
        this.dir = dir;
        this.file = dir == null ? null : dir.resolve("bench.db");
        this.server = server;
        this.schema = schema;
        this.store = store;
    }

    /**
     * Creates the database with the real schema by opening a store on it.
     *
     * @throws IllegalArgumentException if the strategy and the storage belong to different engines
     */
    static BenchDb open(LockingStrategy strategy, Storage storage) {
        requireSameEngine(strategy, storage);
        if (storage.engine() == Engine.POSTGRESQL) {
            return openPostgres(strategy, true);
        }
        Path dir = tempDir();
        Path file = dir.resolve("bench.db");
        LeaseStore store = SqliteLeaseStore.open(file, strategy, storage.options());
        return new BenchDb(storage, dir, null, null, decorate(store));
    }

    /** Creates the database with the real schema and closes the store again: for the floor. */
    static BenchDb openWithoutStore(Storage storage) {
        LockingStrategy any = LockingStrategy.of(storage.engine()).get(0);
        if (storage.engine() == Engine.POSTGRESQL) {
            return openPostgres(any, false);
        }
        Path dir = tempDir();
        SqliteLeaseStore.open(dir.resolve("bench.db"), any, storage.options()).close();
        return new BenchDb(storage, dir, null, null, null);
    }

    private static BenchDb openPostgres(LockingStrategy strategy, boolean keepStore) {
        PostgresTarget server = PostgresTarget.require();
        String schema = server.createSchema();
        try {
            LeaseStore store = PostgresLeaseStore.open(server.schemaUrl(schema), strategy, Storage.POSTGRESQL.postgresOptions());
            if (!keepStore) {
                store.close();
                return new BenchDb(Storage.POSTGRESQL, null, server, schema, null);
            }
            return new BenchDb(Storage.POSTGRESQL, null, server, schema, decorate(store));
        } catch (RuntimeException e) {
            server.dropSchema(schema);
            throw e;
        }
    }

    /**
     * A strategy of one engine on a storage of the other would measure nothing (or another
     * store than its name says); JMH's own command line runs the cross product of the two
     * {@code @Param}s, so those forks must fail loudly, naming both.
     */
    static void requireSameEngine(LockingStrategy strategy, Storage storage) {
        if (strategy.engine() != storage.engine()) {
            throw new IllegalArgumentException("strategy " + strategy + " (" + strategy.engine() + ") cannot run on storage "
                    + storage + " (" + storage.engine() + "): a strategy of one engine on a storage of the other is not a "
                    + "benchmark. The runner's profiles never combine them; with JMH's own command line pick matching "
                    + "values, e.g. -p storage=POSTGRESQL -p strategy=" + LockingStrategy.of(Engine.POSTGRESQL).get(0));
        }
    }

    LeaseStore store() {
        return store;
    }

    /** Where the database is, for messages: the SQLite file or the PostgreSQL schema. */
    String where() {
        return file != null ? file.toString() : "schema " + schema + " of " + server.redactedUrl();
    }

    /**
     * A plain connection with the storage's settings and the benchmarks' 1 s limit on waiting
     * (busy timeout, or statement timeout on PostgreSQL), in autocommit: the floor measures it.
     */
    Connection connect() throws SQLException {
        return file != null ? storage.connect(file) : server.connect(schema, Storage.BUSY_TIMEOUT);
    }

    /**
     * A plain connection for preparing and cleaning up rows between iterations. It is not measured,
     * so it waits up to a minute for the write lock rather than the benchmarks' 1 s busy timeout:
     * a preparation that gave up would cost the whole fork.
     */
    private Connection borrowForSetup() throws SQLException {
        if (file != null) {
            return storage.connect(file, SETUP_BUSY_TIMEOUT);
        }
        Connection idle = idleSetup.poll();
        return idle != null ? idle : server.connect(schema, SETUP_BUSY_TIMEOUT);
    }

    /** Returns a setup connection that worked: SQLite's are closed, PostgreSQL's kept for the next iteration. */
    private void giveBack(Connection c) throws SQLException {
        if (file != null) {
            c.close();
        } else {
            idleSetup.add(c);
        }
    }

    /**
     * Writes {@code ids} as rows in one transaction through plain JDBC, bypassing the store: the
     * rows are either fresh ({@code owner == null}) or exactly in the state that a claim by
     * {@code owner} with fence 1 leaves, so that a benchmark of {@code complete} does not have to
     * measure the claims that prepare it. The schema is an on-disk contract that other programs
     * may write, so this is a legitimate writer.
     */
    void insertJobs(String[] ids, String owner, double until) {
        try {
            Connection c = borrowForSetup();
            try {
                // SQLite: take the write lock up front (a deferred transaction could fail to upgrade).
                begin(c);
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
                commit(c);
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
            giveBack(c);
        } catch (SQLException e) {
            throw new IllegalStateException("could not prepare " + ids.length + " jobs in " + where(), e);
        }
    }

    private void begin(Connection c) throws SQLException {
        if (file != null) {
            try (Statement s = c.createStatement()) {
                s.execute("BEGIN IMMEDIATE");
            }
        } else {
            c.setAutoCommit(false);
        }
    }

    private void commit(Connection c) throws SQLException {
        if (file != null) {
            try (Statement s = c.createStatement()) {
                s.execute("COMMIT");
            }
        } else {
            c.commit();
            c.setAutoCommit(true);
        }
    }

    /** Deletes finished jobs so that the table does not grow from iteration to iteration. */
    void deleteDoneJobs() {
        try {
            Connection c = borrowForSetup();
            try (Statement s = c.createStatement()) {
                s.executeUpdate("DELETE FROM jobs WHERE done = 1");
            } catch (SQLException | RuntimeException e) {
                c.close();
                throw e;
            }
            giveBack(c);
        } catch (SQLException e) {
            throw new IllegalStateException("could not delete finished jobs in " + where(), e);
        }
    }

    @Override
    public void close() {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            if (file != null) {
                deleteRecursively(dir);
            } else {
                for (Connection c; (c = idleSetup.poll()) != null; ) {
                    try {
                        c.close();
                    } catch (SQLException e) {
                        // The schema is dropped next; a connection that failed to close is gone anyway.
                    }
                }
                server.dropSchema(schema);
            }
        }
    }

    /** Under {@code java.io.tmpdir}, which the forks inherit from the runner's command line. */
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
