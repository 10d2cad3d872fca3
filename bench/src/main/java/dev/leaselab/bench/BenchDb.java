package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * One benchmark database and the store opened on it, one implementation per engine: a fresh SQLite
 * file in its own temporary directory ({@link SqliteBenchDb}), or a fresh schema of a PostgreSQL
 * server ({@link PostgresBenchDb}). {@link #close()} removes it again. Both prepare rows the same
 * way, through plain JDBC outside the store; they differ in how a setup transaction begins and
 * ends and in what a setup connection costs.
 */
abstract sealed class BenchDb implements AutoCloseable permits SqliteBenchDb, PostgresBenchDb {

    /**
     * Names a class with a no-argument constructor that implements
     * {@code UnaryOperator<LeaseStore>}; when set, every benchmark store is wrapped by it. Only the
     * gate's slowdown proof uses this (with a deliberately slowed store from the test sources); it
     * is not a strategy and nothing in the shipped jar implements it.
     */
    static final String DECORATOR_PROPERTY = "leaselab.bench.decorator";
    /** Passed to the decorator's forks with {@link #DECORATOR_PROPERTY}: the decorator may use it to pick the stores it changes. */
    static final String DECORATOR_ONLY_PROPERTY = DECORATOR_PROPERTY + ".only";

    static final Duration SETUP_BUSY_TIMEOUT = Duration.ofMinutes(1);

    /** Null for the floor's database, which has no store. */
    private final LeaseStore store;

    BenchDb(LeaseStore store) {
        this.store = store;
    }

    /**
     * Creates the database with the real schema by opening a store on it.
     *
     * @throws IllegalArgumentException if the strategy and the storage belong to different engines
     */
    static BenchDb open(LockingStrategy strategy, Storage storage) {
        requireSameEngine(strategy, storage);
        return switch (storage.engine()) {
            case SQLITE -> SqliteBenchDb.open(storage, strategy, true);
            case POSTGRESQL -> PostgresBenchDb.open(strategy, true);
        };
    }

    /** Creates the database with the real schema and closes the store again: for the floor. */
    static BenchDb openWithoutStore(Storage storage) {
        LockingStrategy any = LockingStrategy.of(storage.engine()).get(0);
        return switch (storage.engine()) {
            case SQLITE -> SqliteBenchDb.open(storage, any, false);
            case POSTGRESQL -> PostgresBenchDb.open(any, false);
        };
    }

    /**
     * A strategy of one engine on a storage of the other would measure nothing (or another store
     * than its name says). {@code java -jar benchmarks.jar} ({@link JmhLauncher}) and the runner's
     * profiles never combine them, but JMH's own {@code Main} and its Runner API run the cross
     * product of the two {@code @Param}s, so those forks must fail loudly, naming both.
     */
    static void requireSameEngine(LockingStrategy strategy, Storage storage) {
        if (strategy.engine() != storage.engine()) {
            throw new IllegalArgumentException("strategy " + strategy + " (" + strategy.engine() + ") cannot run on storage "
                    + storage + " (" + storage.engine() + "): a strategy of one engine on a storage of the other is not a "
                    + "benchmark. The runner's profiles and java -jar benchmarks.jar never combine them; with "
                    + "org.openjdk.jmh.Main or the Runner API pick matching values, e.g. -p storage=POSTGRESQL -p strategy="
                    + LockingStrategy.of(Engine.POSTGRESQL).get(0));
        }
    }

    LeaseStore store() {
        return store;
    }

    /** Where the database is, for messages: the SQLite file or the PostgreSQL schema. */
    abstract String where();

    /**
     * How another process reaches this database ({@link MultiProcessWorker}'s first argument): the
     * SQLite file's path, or the JDBC URL of the PostgreSQL schema.
     */
    abstract String workerArgument();

    /**
     * A plain connection with the storage's settings and the benchmarks' 1 s limit on waiting
     * (busy timeout, or statement timeout on PostgreSQL), in autocommit: the floor measures it.
     */
    abstract Connection connect() throws SQLException;

    /**
     * A plain connection for preparing and cleaning up rows between iterations. It is not measured,
     * so it waits up to a minute for the write lock rather than the benchmarks' 1 s busy timeout:
     * a preparation that gave up would cost the whole fork.
     */
    abstract Connection borrowForSetup() throws SQLException;

    /** Returns a setup connection that worked. */
    abstract void giveBack(Connection c) throws SQLException;

    /** Starts a setup transaction that writes. */
    abstract void begin(Connection c) throws SQLException;

    abstract void commit(Connection c) throws SQLException;

    /** Removes the database, after the store is closed. */
    abstract void delete();

    /**
     * Writes {@code ids} as rows in one transaction through plain JDBC, bypassing the store: the
     * rows are either fresh ({@code owner == null}) or exactly in the state that a claim by
     * {@code owner} with fence 1 leaves, so that a benchmark of {@code complete} does not have to
     * measure the claims that prepare it. The schema is an on-disk contract that other programs
     * may write, so this is a legitimate writer.
     */
    final void insertJobs(String[] ids, String owner, double until) {
        try {
            Connection c = borrowForSetup();
            try {
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

    /** Deletes finished jobs so that the table does not grow from iteration to iteration. */
    final void deleteDoneJobs() {
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
    public final void close() {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            delete();
        }
    }

    @SuppressWarnings("unchecked")
    static LeaseStore decorate(LeaseStore store) {
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
}
