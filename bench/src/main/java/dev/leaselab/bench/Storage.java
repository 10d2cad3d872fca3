package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.PostgresOptions;
import dev.leaselab.lease.StoreOptions;
import dev.leaselab.lease.StoreOptions.BusyWait;
import dev.leaselab.lease.StoreOptions.JournalMode;
import dev.leaselab.lease.StoreOptions.Synchronous;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.sqlite.SQLiteConfig;

/**
 * The storage settings every benchmark runs under: SQLite's journal mode and {@code synchronous},
 * or a PostgreSQL server.
 *
 * <p>{@code WAL_NORMAL} does not fsync on commit, so it shows the cost of locking; the {@code FULL}
 * settings fsync every commit, so they show how well a strategy amortises the disk. Benchmarks take
 * this enum as a {@code @Param} without values, so JMH runs every constant.
 *
 * <p>Each constant belongs to one {@link Engine}, and only the strategies of that engine run on it
 * ({@link #engine()}): a SQLite strategy on {@link #POSTGRESQL}, or a PostgreSQL strategy on a
 * SQLite file, is not a benchmark. The runner's profiles never combine them, nor does
 * {@code java -jar benchmarks.jar} ({@link JmhLauncher}, which runs JMH once per engine); JMH's own
 * {@code Main} or its Runner API, which run the cross product of both {@code @Param}s, fail those
 * forks in their setup with an {@link IllegalArgumentException} that names both.
 */
public enum Storage {
    /** WAL journal, {@code synchronous=NORMAL}: no fsync per commit (a power loss may lose the last commits). */
    WAL_NORMAL(Engine.SQLITE, JournalMode.WAL, Synchronous.NORMAL),
    /** WAL journal, {@code synchronous=FULL}: the store's default, one fsync per commit. */
    WAL_FULL(Engine.SQLITE, JournalMode.WAL, Synchronous.FULL),
    /** Rollback journal ({@code DELETE}), {@code synchronous=FULL}: readers and writers block each other. */
    DELETE_FULL(Engine.SQLITE, JournalMode.DELETE, Synchronous.FULL),
    /**
     * A PostgreSQL server with its own settings, whatever they are (the server's defaults are
     * {@code fsync=on} and {@code synchronous_commit=on}: every commit waits for its WAL flush, as
     * SQLite's {@code FULL} settings do). The server comes from {@code -Dleaselab.postgres.url} or
     * the environment variable {@code LEASELAB_POSTGRES_URL} ({@link PostgresTarget}); every trial
     * gets a fresh schema of its own. The server's actual {@code server_version}, {@code fsync} and
     * {@code synchronous_commit} are recorded in {@code environment.json} and the report's header.
     * The store's statement timeout is {@link #BUSY_TIMEOUT}, its analogue of the busy timeout.
     */
    POSTGRESQL(Engine.POSTGRESQL, null, null);

    private final Engine engine;
    /** SQLite's settings; null on PostgreSQL. */
    private final JournalMode journalMode;
    private final Synchronous synchronous;

    Storage(Engine engine, JournalMode journalMode, Synchronous synchronous) {
        this.engine = engine;
        this.journalMode = journalMode;
        this.synchronous = synchronous;
    }

    /** The database engine of this setting: only strategies of the same engine run on it. */
    public Engine engine() {
        return engine;
    }

    /** The settings of one engine, in declaration order. */
    static List<Storage> of(Engine engine) {
        return Arrays.stream(values()).filter(s -> s.engine() == engine).toList();
    }

    /**
     * Whether this is a SQLite setting with {@code synchronous=FULL}, under which SQLite's sleeping
     * busy handler stalls contended iterations ({@link Profile#STALL_SECONDS_PER_ITERATION}); false
     * for {@link #POSTGRESQL}, whose waiting writers queue on the row lock instead of sleeping.
     */
    boolean sqliteFsyncsEveryCommit() {
        return switch (engine) {
            case SQLITE -> synchronous == Synchronous.FULL;
            case POSTGRESQL -> false;
        };
    }

    /**
     * The busy timeout of every benchmark's connections: 1 s, not the store's default of 5 s. An
     * operation that waited a second for the write lock is a failure by any latency standard (the
     * target for p99.9 is 10 ms), and JMH ends an iteration only when every thread has returned, so
     * a starved thread holds the iteration open for up to this long: with 5 s the full profile's
     * contended {@code FULL} forks took 45 to 70 s instead of 9 s. {@code failed} therefore counts
     * operations that waited more than 1 s.
     *
     * <p>On {@link #POSTGRESQL} the same second is the store's {@code statement_timeout}: the
     * server cancels a statement that waited (for a row or advisory lock, or for the commit's
     * flush) longer than that, so there too {@code failed} counts operations that waited more than 1 s.
     */
    public static final Duration BUSY_TIMEOUT = Duration.ofSeconds(1);

    /**
     * {@code -Dleaselab.bench.busyTimeoutMillis=N}: another busy timeout (and PostgreSQL statement
     * timeout) for every store and connection of this JVM; {@link MultiProcessMain}'s
     * {@code --busy-timeout} passes it to its workers. Unset: {@link #BUSY_TIMEOUT}.
     */
    static final String BUSY_TIMEOUT_PROPERTY = "leaselab.bench.busyTimeoutMillis";

    /** The busy timeout this JVM's benchmarks use ({@link #BUSY_TIMEOUT_PROPERTY}, else {@link #BUSY_TIMEOUT}). */
    static Duration busyTimeout() {
        String millis = System.getProperty(BUSY_TIMEOUT_PROPERTY);
        if (millis == null) {
            return BUSY_TIMEOUT;
        }
        try {
            long value = Long.parseLong(millis.trim());
            if (value < 1) {
                throw new IllegalArgumentException("-D" + BUSY_TIMEOUT_PROPERTY + " must be at least 1 ms: " + millis);
            }
            return Duration.ofMillis(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-D" + BUSY_TIMEOUT_PROPERTY + " must be a number of milliseconds: " + millis, e);
        }
    }

    /**
     * {@code -Dleaselab.bench.busyWait=SQLITE_SLEEPS|JITTERED}: how every SQLite connection of the
     * benchmarks (the store's and the floor's) waits for the lock; the store's default when unset.
     * The runner passes its own value to every fork and records it in the run's settings.
     */
    static final String BUSY_WAIT_PROPERTY = "leaselab.bench.busyWait";

    /** The busy wait this JVM's benchmarks use ({@link #BUSY_WAIT_PROPERTY}). */
    static BusyWait busyWait() {
        String name = System.getProperty(BUSY_WAIT_PROPERTY);
        if (name == null || name.isBlank()) {
            return StoreOptions.defaults().busyWait();
        }
        try {
            return BusyWait.valueOf(name.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-D" + BUSY_WAIT_PROPERTY + " must be one of "
                    + Arrays.toString(BusyWait.values()) + ": '" + name + "'", e);
        }
    }

    /**
     * {@code -Dleaselab.bench.longestBusySleepMicros=N}: the jittered busy wait's longest sleep
     * ({@link StoreOptions#longestBusySleep()}) for every store and connection of this JVM;
     * {@link MultiProcessMain}'s {@code --longest-busy-sleep} passes it to its workers. Unset: the
     * store's default (4 ms). The runner refuses it: its profiles and gate measure the default.
     */
    static final String LONGEST_BUSY_SLEEP_PROPERTY = "leaselab.bench.longestBusySleepMicros";

    /** The jittered wait's longest sleep in this JVM ({@link #LONGEST_BUSY_SLEEP_PROPERTY}, else the store's default). */
    static Duration longestBusySleep() {
        String micros = System.getProperty(LONGEST_BUSY_SLEEP_PROPERTY);
        if (micros == null || micros.isBlank()) {
            return StoreOptions.defaults().longestBusySleep();
        }
        try {
            return Duration.ofNanos(Math.multiplyExact(Long.parseLong(micros.strip()), 1000L));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("-D" + LONGEST_BUSY_SLEEP_PROPERTY + " must be a number of microseconds: '" + micros + "'", e);
        }
    }

    /**
     * The {@code -D} options that give a child JVM this JVM's busy wait, busy timeout and longest
     * busy sleep, so that a worker or zombie process runs under the settings of the command that
     * started it.
     */
    static List<String> childJvmProperties() {
        return List.of("-D" + BUSY_WAIT_PROPERTY + "=" + busyWait().name(),
                "-D" + BUSY_TIMEOUT_PROPERTY + "=" + busyTimeout().toMillis(),
                "-D" + LONGEST_BUSY_SLEEP_PROPERTY + "=" + longestBusySleep().toNanos() / 1000);
    }

    /**
     * The store options for this setting. The pool holds 16 connections, more than the largest
     * thread count measured, so threads wait for SQLite's lock and not for a connection.
     */
    public StoreOptions options() {
        requireSqlite();
        return StoreOptions.defaults().withJournalMode(journalMode).withSynchronous(synchronous)
                .withBusyTimeout(busyTimeout()).withPoolSize(16).withBusyWait(busyWait()).withLongestBusySleep(longestBusySleep());
    }

    /**
     * The PostgreSQL store's options: 16 connections, as for SQLite, and {@link #BUSY_TIMEOUT} as
     * the statement timeout.
     */
    PostgresOptions postgresOptions() {
        if (engine() != Engine.POSTGRESQL) {
            throw new IllegalStateException(name() + " is a SQLite setting: it has no PostgreSQL options");
        }
        return PostgresOptions.defaults().withPoolSize(16).withStatementTimeout(busyTimeout());
    }

    /**
     * A plain JDBC connection with the same journal mode, {@code synchronous}, busy timeout and
     * busy wait (and its longest sleep) as the store's own connections: the floor benchmark and the bulk preparation of jobs use it.
     */
    public Connection connect(Path file) throws SQLException {
        return connect(file, busyTimeout());
    }

    /** As {@link #connect(Path)} with another busy timeout: setup work that is not measured waits longer. */
    Connection connect(Path file, Duration busyTimeout) throws SQLException {
        requireSqlite();
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout((int) busyTimeout.toMillis());
        // As the store's connections (SessionPool): the floor pays the driver's per-statement
        // costs that the store pays, no more.
        config.setGetGeneratedKeys(false);
        config.setJournalMode(SQLiteConfig.JournalMode.valueOf(journalMode.name()));
        config.setSynchronous(SQLiteConfig.SynchronousMode.valueOf(synchronous.name()));
        Connection connection = config.createConnection("jdbc:sqlite:" + file.toAbsolutePath());
        try {
            options().withBusyTimeout(busyTimeout).installBusyWait(connection);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return connection;
    }

    private void requireSqlite() {
        if (engine() != Engine.SQLITE) {
            throw new IllegalStateException(name() + " is not a SQLite setting: it has no journal mode or synchronous");
        }
    }
}
