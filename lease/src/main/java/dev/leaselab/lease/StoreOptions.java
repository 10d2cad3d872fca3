package dev.leaselab.lease;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import org.sqlite.BusyHandler;

/**
 * Storage settings of a {@link SqliteLeaseStore}.
 *
 * <p>The defaults are WAL with {@code synchronous=FULL}: with {@code NORMAL}, WAL stays consistent
 * but a power loss can roll back transactions that had already committed, and a rolled-back claim
 * means its fence can be handed out a second time. {@code NORMAL} is faster (no fsync per commit)
 * and is available for those who accept that.
 *
 * @param journalMode SQLite's {@code journal_mode}
 * @param synchronous SQLite's {@code synchronous} setting
 * @param busyTimeout how long a write waits for SQLite's lock before it fails
 * @param poolSize how many connections the store keeps open at most (and so how many of its
 *     operations run at once)
 * @param busyWait how a write waits for SQLite's lock within the busy timeout
 * @param longestBusySleep the longest sleep of the {@link BusyWait#JITTERED} wait, from 50 µs (its
 *     first step) to 1 s; 4 ms by default. At 1 ms, CONDITIONAL_UPDATE in 4 processes x 2
 *     threads on WAL + FULL kept its open-loop p99.9 under 20 ms in 10 of 10 runs (5 of 10 at
 *     4 ms) for 15-30% of its throughput, and on a machine with slower syncs it was shorter than at
 *     4 ms in 4 of 4 runs at 2,000 requests/s. Elsewhere shorter sleeps cost throughput and did not
 *     shorten the tail, as more waiters poll the lock (results/busy-sleep-20261206).
 *     {@link BusyWait#SQLITE_SLEEPS} has its own sleeps, so with it this must stay at the default.
 */
public record StoreOptions(JournalMode journalMode, Synchronous synchronous, Duration busyTimeout, int poolSize,
        BusyWait busyWait, Duration longestBusySleep) {

    /** The jittered wait's first step: a longest sleep below it would never be reached. */
    static final Duration LONGEST_BUSY_SLEEP_MIN = Duration.ofNanos(JitteredBusyHandler.FIRST_STEP_NANOS);
    /** Beyond a second the jittered wait would sleep as coarsely as SQLite's own handler, and worse. */
    static final Duration LONGEST_BUSY_SLEEP_MAX = Duration.ofSeconds(1);
    private static final Duration DEFAULT_LONGEST_BUSY_SLEEP = Duration.ofNanos(JitteredBusyHandler.LONGEST_STEP_NANOS);

    /** SQLite journal modes that a store may use. */
    public enum JournalMode { WAL, DELETE, TRUNCATE, PERSIST }

    /**
     * SQLite {@code synchronous} settings. {@code EXTRA} is {@code FULL} plus a sync of the directory
     * after a rollback journal is deleted at commit: in the DELETE journal mode, under {@code FULL},
     * a power cut soon after a commit can bring the deleted journal back, and SQLite then rolls the
     * committed transaction back (results/powerloss.md measured it).
     */
    public enum Synchronous { OFF, NORMAL, FULL, EXTRA }

    /**
     * How a connection waits while another holds SQLite's lock. Either way a write that is still
     * shut out when the busy timeout is spent fails with a {@link LeaseStoreException}.
     */
    public enum BusyWait {
        /**
         * SQLite's own busy handler ({@code sqlite3_busy_timeout}): it sleeps 1, 2, 5, 10, 15, 20,
         * 25, 25, 25, 50, 50 and then 100 ms between tries, so a writer that has waited a while
         * sleeps through every release that comes in the meantime and loses the lock to writers
         * that arrived after it.
         */
        SQLITE_SLEEPS,
        /**
         * A busy handler of this project: tries again after short waits whose step doubles from
         * 50 µs to at most 4 ms ({@link StoreOptions#longestBusySleep()} sets another longest
         * step), each a random time between half and all of its step, so every
         * waiter tries again soon after the lock is released and none is favoured by its sleep
         * schedule. Measured against {@link #SQLITE_SLEEPS} on two cores (results/README.md):
         * no writer waited out a 1 s busy timeout where SQLite's handler let dozens per second
         * do so, at the price of some throughput at eight threads; the steps were picked from
         * 20 µs..1 ms, 100 µs..2 ms and 50 µs..4 ms, the last giving the most throughput.
         */
        JITTERED;

        /**
         * Makes {@code connection} (a sqlite-jdbc connection) wait this way for at most
         * {@code busyTimeout}: for connections opened outside a store that must wait as the
         * store's own do, as the benchmarks' floor does. {@link #SQLITE_SLEEPS} sets SQLite's
         * busy timeout; {@link #JITTERED} replaces SQLite's busy handler with this project's, at
         * its default longest sleep ({@link StoreOptions#installBusyWait} takes another).
         */
        public void install(Connection connection, Duration busyTimeout) throws SQLException {
            defaults().withBusyWait(this).withBusyTimeout(busyTimeout).installBusyWait(connection);
        }
    }

    /**
     * Makes {@code connection} (a sqlite-jdbc connection) wait for SQLite's lock as a store with
     * these options does: {@link #busyWait()} for at most {@link #busyTimeout()}, the jittered wait
     * sleeping at most {@link #longestBusySleep()} at a time. For connections opened outside a
     * store that must wait as the store's own do, as the benchmarks' floor does.
     */
    public void installBusyWait(Connection connection) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        switch (busyWait) {
            case SQLITE_SLEEPS -> {
                try (Statement s = connection.createStatement()) {
                    s.execute("PRAGMA busy_timeout = " + busyTimeout.toMillis());
                }
            }
            case JITTERED -> BusyHandler.setHandler(connection, jitteredBusyHandler());
        }
    }

    /** The handler that {@link #installBusyWait} gives a connection under {@link BusyWait#JITTERED}. */
    JitteredBusyHandler jitteredBusyHandler() {
        return new JitteredBusyHandler(busyTimeout, longestBusySleep);
    }

    /**
     * WAL, {@code synchronous=FULL}, a 5 s busy timeout, at most 16 connections, the
     * {@link BusyWait#JITTERED} busy wait: with eight threads in one to eight worker processes on
     * one file (results/processes-20261202) SQLite's own handler let writers wait out the timeout
     * and starved some threads (Jain below 0.6 in 19 of 28 WAL + FULL rows) where the jittered wait
     * failed none and mostly had shorter tails; in one process at eight contending threads it costs
     * some throughput (results/README.md, "Busy waits"), and {@link BusyWait#SQLITE_SLEEPS}
     * remains an option.
     */
    public static StoreOptions defaults() {
        return new StoreOptions(JournalMode.WAL, Synchronous.FULL, Duration.ofSeconds(5), 16, BusyWait.JITTERED,
                DEFAULT_LONGEST_BUSY_SLEEP);
    }

    /** Checks every option: a bad one is refused with an exception that names it. */
    public StoreOptions {
        Objects.requireNonNull(journalMode, "journalMode");
        Objects.requireNonNull(synchronous, "synchronous");
        requireBusyTimeout(busyTimeout);
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1: " + poolSize);
        }
        Objects.requireNonNull(busyWait, "busyWait");
        Objects.requireNonNull(longestBusySleep, "longestBusySleep");
        if (longestBusySleep.compareTo(LONGEST_BUSY_SLEEP_MIN) < 0 || longestBusySleep.compareTo(LONGEST_BUSY_SLEEP_MAX) > 0) {
            throw new IllegalArgumentException("longestBusySleep must be between " + LONGEST_BUSY_SLEEP_MIN.toNanos() / 1000
                    + " µs and " + LONGEST_BUSY_SLEEP_MAX.toMillis() + " ms: " + longestBusySleep);
        }
        if (busyWait == BusyWait.SQLITE_SLEEPS && !longestBusySleep.equals(DEFAULT_LONGEST_BUSY_SLEEP)) {
            // Accepting it would leave a setting that changes nothing: say so instead.
            throw new IllegalArgumentException("longestBusySleep is a setting of the JITTERED busy wait; SQLITE_SLEEPS sleeps as "
                    + "SQLite does, so it must stay at the default " + DEFAULT_LONGEST_BUSY_SLEEP.toMillis() + " ms: "
                    + longestBusySleep);
        }
    }

    private static void requireBusyTimeout(Duration busyTimeout) {
        Objects.requireNonNull(busyTimeout, "busyTimeout");
        // Compared as Durations: toMillis() overflows on a huge one.
        if (busyTimeout.isNegative() || busyTimeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("busyTimeout must be between 0 and " + Integer.MAX_VALUE + " ms: " + busyTimeout);
        }
    }

    /** As these options, with {@link #journalMode()} set to {@code mode}. */
    public StoreOptions withJournalMode(JournalMode mode) {
        return new StoreOptions(mode, synchronous, busyTimeout, poolSize, busyWait, longestBusySleep);
    }

    /** As these options, with {@link #synchronous()} set to {@code sync}. */
    public StoreOptions withSynchronous(Synchronous sync) {
        return new StoreOptions(journalMode, sync, busyTimeout, poolSize, busyWait, longestBusySleep);
    }

    /** As these options, with {@link #busyTimeout()} set to {@code timeout}. */
    public StoreOptions withBusyTimeout(Duration timeout) {
        return new StoreOptions(journalMode, synchronous, timeout, poolSize, busyWait, longestBusySleep);
    }

    /** As these options, with {@link #poolSize()} set to {@code size}. */
    public StoreOptions withPoolSize(int size) {
        return new StoreOptions(journalMode, synchronous, busyTimeout, size, busyWait, longestBusySleep);
    }

    /** As these options, with {@link #busyWait()} set to {@code wait}. */
    public StoreOptions withBusyWait(BusyWait wait) {
        return new StoreOptions(journalMode, synchronous, busyTimeout, poolSize, wait, longestBusySleep);
    }

    /** As these options, the {@link BusyWait#JITTERED} wait sleeping at most {@code sleep} at a time. */
    public StoreOptions withLongestBusySleep(Duration sleep) {
        return new StoreOptions(journalMode, synchronous, busyTimeout, poolSize, busyWait, sleep);
    }
}
