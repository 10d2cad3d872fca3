package dev.leaselab.bench;

import dev.leaselab.lease.StoreOptions;
import dev.leaselab.lease.StoreOptions.JournalMode;
import dev.leaselab.lease.StoreOptions.Synchronous;
import java.nio.file.Path;
import java.time.Duration;
import java.sql.Connection;
import java.sql.SQLException;
import org.sqlite.SQLiteConfig;

/**
 * The storage settings every benchmark runs under: SQLite's journal mode and {@code synchronous}.
 *
 * <p>{@code WAL_NORMAL} does not fsync on commit, so it shows the cost of locking; the {@code FULL}
 * settings fsync every commit, so they show how well a strategy amortises the disk. Benchmarks take
 * this enum as a {@code @Param} without values, so JMH runs every constant.
 */
public enum Storage {
    /** WAL journal, {@code synchronous=NORMAL}: no fsync per commit (a power loss may lose the last commits). */
    WAL_NORMAL(JournalMode.WAL, Synchronous.NORMAL),
    /** WAL journal, {@code synchronous=FULL}: the store's default, one fsync per commit. */
    WAL_FULL(JournalMode.WAL, Synchronous.FULL),
    /** Rollback journal ({@code DELETE}), {@code synchronous=FULL}: readers and writers block each other. */
    DELETE_FULL(JournalMode.DELETE, Synchronous.FULL);

    private final JournalMode journalMode;
    private final Synchronous synchronous;

    Storage(JournalMode journalMode, Synchronous synchronous) {
        this.journalMode = journalMode;
        this.synchronous = synchronous;
    }

    /**
     * The busy timeout of every benchmark's connections: 1 s, not the store's default of 5 s. An
     * operation that waited a second for the write lock is a failure by any latency standard (the
     * target for p99.9 is 10 ms), and JMH ends an iteration only when every thread has returned, so
     * a starved thread holds the iteration open for up to this long: with 5 s the full profile's
     * contended {@code FULL} forks took 45 to 70 s instead of 9 s. {@code failed} therefore counts
     * operations that waited more than 1 s.
     */
    public static final Duration BUSY_TIMEOUT = Duration.ofSeconds(1);

    /**
     * The store options for this setting. The pool holds 16 connections, more than the largest
     * thread count measured, so threads wait for SQLite's lock and not for a connection.
     */
    public StoreOptions options() {
        return StoreOptions.defaults().withJournalMode(journalMode).withSynchronous(synchronous)
                .withBusyTimeout(BUSY_TIMEOUT).withPoolSize(16);
    }

    /**
     * A plain JDBC connection with the same journal mode, {@code synchronous} and busy timeout as
     * the store's own connections: the floor benchmark and the bulk preparation of jobs use it.
     */
    public Connection connect(Path file) throws SQLException {
        return connect(file, BUSY_TIMEOUT);
    }

    /** As {@link #connect(Path)} with another busy timeout: setup work that is not measured waits longer. */
    Connection connect(Path file, Duration busyTimeout) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout((int) busyTimeout.toMillis());
        config.setJournalMode(SQLiteConfig.JournalMode.valueOf(journalMode.name()));
        config.setSynchronous(SQLiteConfig.SynchronousMode.valueOf(synchronous.name()));
        return config.createConnection("jdbc:sqlite:" + file.toAbsolutePath());
    }
}
