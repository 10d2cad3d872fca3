package dev.leaselab.lease;

import java.time.Duration;
import java.util.Objects;

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
 */
public record StoreOptions(JournalMode journalMode, Synchronous synchronous, Duration busyTimeout, int poolSize) {

    /** SQLite journal modes that a store may use. */
    public enum JournalMode { WAL, DELETE, TRUNCATE, PERSIST }

    /** SQLite {@code synchronous} settings. */
    public enum Synchronous { OFF, NORMAL, FULL }

    /** WAL, {@code synchronous=FULL}, a 5 s busy timeout and at most 16 connections. */
    public static StoreOptions defaults() {
        return new StoreOptions(JournalMode.WAL, Synchronous.FULL, Duration.ofSeconds(5), 16);
    }

    public StoreOptions {
        Objects.requireNonNull(journalMode, "journalMode");
        Objects.requireNonNull(synchronous, "synchronous");
        Objects.requireNonNull(busyTimeout, "busyTimeout");
        if (busyTimeout.isNegative() || busyTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("busyTimeout must be between 0 and " + Integer.MAX_VALUE + " ms: " + busyTimeout);
        }
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1: " + poolSize);
        }
    }

    public StoreOptions withJournalMode(JournalMode mode) {
        return new StoreOptions(mode, synchronous, busyTimeout, poolSize);
    }

    public StoreOptions withSynchronous(Synchronous sync) {
        return new StoreOptions(journalMode, sync, busyTimeout, poolSize);
    }

    public StoreOptions withBusyTimeout(Duration timeout) {
        return new StoreOptions(journalMode, synchronous, timeout, poolSize);
    }

    public StoreOptions withPoolSize(int size) {
        return new StoreOptions(journalMode, synchronous, busyTimeout, size);
    }
}
