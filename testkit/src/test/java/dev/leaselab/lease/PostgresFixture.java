package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.fail;

import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the PostgreSQL tests of this package ({@link PostgresStoreTest}, {@link PostgresFaultsTest},
 * {@link PostgresRestartTest}, the lock-order tests) share: the strategies they run over, the
 * resources a test opens, closed when the test ends, and a wait for a session to block on a lock. A test class registers one per test on a field:
 * {@code @RegisterExtension final PostgresFixture postgres = new PostgresFixture();}
 *
 * <p>Resources close in the reverse order of registration, so a store closes before the schema it
 * was opened on is dropped, and a role is dropped only after the stores that logged in as it.
 */
final class PostgresFixture implements AfterEachCallback {

    /**
     * The factory of the PostgreSQL strategies, for {@code @MethodSource}: JUnit finds a method of
     * another class only by its fully qualified name.
     */
    static final String STRATEGIES = "dev.leaselab.lease.PostgresFixture#postgresStrategies";

    private final List<AutoCloseable> cleanup = new ArrayList<>();

    static List<LockingStrategy> postgresStrategies() {
        return LockingStrategy.of(LockingStrategy.Engine.POSTGRESQL);
    }

    /** Registers {@code resource} to be closed when the test ends; returns it. */
    <T extends AutoCloseable> T closeLater(T resource) {
        cleanup.add(resource);
        return resource;
    }

    /** A fresh schema on the tests' server ({@link PostgresServer#get()}), dropped when the test ends. */
    Database.PostgresSchema database() {
        Database.PostgresSchema db = PostgresServer.get().createSchema();
        cleanup.add(db::drop);
        return db;
    }

    /**
     * Waits, for at most 10 s, until some session of the server waits for a lock (the lock tests'
     * call has run into the one they hold), asking through {@code c}; fails naming {@code call}.
     */
    static void awaitALockWait(Connection c, String call) throws Exception {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < giveUp) {
            try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM pg_locks WHERE NOT granted");
                    ResultSet row = s.executeQuery()) {
                row.next();
                if (row.getLong(1) > 0) {
                    return;
                }
            }
            Thread.sleep(10);
        }
        fail(call + " never waited for the held lock");
    }

    /**
     * Takes the job's lock in {@code c}'s transaction, waiting for it or ({@code tryOnly}) answering
     * false at once if another transaction holds it: its advisory lock (as {@code PG_ADVISORY_LOCK}
     * takes it), or its row's lock.
     */
    static boolean jobLock(Connection c, boolean advisory, String job, boolean tryOnly) throws SQLException {
        String sql = advisory
                ? "SELECT " + (tryOnly ? "pg_try_advisory_xact_lock" : "pg_advisory_xact_lock") + "(hashtextextended(?, 0))::text"
                : "SELECT 'true' FROM jobs WHERE id = ? FOR UPDATE" + (tryOnly ? " SKIP LOCKED" : "");
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, job);
            try (ResultSet row = s.executeQuery()) {
                // pg_advisory_xact_lock returns void, read as ""; SKIP LOCKED returns no row for a held row.
                return row.next() && !"false".equals(row.getString(1));
            }
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }
}
