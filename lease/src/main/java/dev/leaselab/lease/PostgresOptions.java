package dev.leaselab.lease;

import java.time.Duration;
import java.util.Objects;

/**
 * Connection settings of a {@link PostgresLeaseStore}.
 *
 * <p>Both timeouts turn a wait that would otherwise last forever into a {@link LeaseStoreException}:
 * a row held by a transaction that does not end, a server that is down or restarting.
 *
 * @param poolSize how many connections the store keeps at most (and so how many of its operations
 *     run at once); they are opened when first needed
 * @param statementTimeout PostgreSQL's {@code statement_timeout} for the store's connections: how
 *     long one statement, including its wait for a row or advisory lock, may run before the server
 *     cancels it
 * @param connectTimeout how long an operation waits for a connection, a new one to the server or a
 *     free one of the pool
 */
public record PostgresOptions(int poolSize, Duration statementTimeout, Duration connectTimeout) {

    private static final Duration SHORTEST_TIMEOUT = Duration.ofMillis(1);
    private static final Duration LONGEST_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

    /** 16 connections, a 5 s statement timeout and a 5 s connect timeout. */
    public static PostgresOptions defaults() {
        return new PostgresOptions(16, Duration.ofSeconds(5), Duration.ofSeconds(5));
    }

    /** Checks every option: a bad one is refused with an exception that names it. */
    public PostgresOptions {
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1: " + poolSize);
        }
        requirePositive("statementTimeout", statementTimeout);
        requirePositive("connectTimeout", connectTimeout);
        // HikariCP refuses to wait less than 250 ms for a connection.
        if (connectTimeout.toMillis() < 250) {
            throw new IllegalArgumentException("connectTimeout must be at least 250 ms: " + connectTimeout);
        }
    }

    /** As these options, with {@link #poolSize()} set to {@code size}. */
    public PostgresOptions withPoolSize(int size) {
        return new PostgresOptions(size, statementTimeout, connectTimeout);
    }

    /** As these options, with {@link #statementTimeout()} set to {@code timeout}. */
    public PostgresOptions withStatementTimeout(Duration timeout) {
        return new PostgresOptions(poolSize, timeout, connectTimeout);
    }

    /** As these options, with {@link #connectTimeout()} set to {@code timeout}. */
    public PostgresOptions withConnectTimeout(Duration timeout) {
        return new PostgresOptions(poolSize, statementTimeout, timeout);
    }

    private static void requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        // Compared as Durations: toMillis() would truncate a fraction of a millisecond to 0, which
        // PostgreSQL's statement_timeout reads as no timeout at all, and overflow on a huge one.
        if (value.compareTo(SHORTEST_TIMEOUT) < 0 || value.compareTo(LONGEST_TIMEOUT) > 0) {
            throw new IllegalArgumentException(name + " must be between 1 and " + Integer.MAX_VALUE + " ms: " + value);
        }
    }
}
