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
     * The URL a test's store opens: the schema's, with an application name of its own, so that
     * {@link #awaitALockWait} can tell the store's sessions from those of tests that run beside
     * this one (the kill matrix runs its PostgreSQL variants concurrently with other classes).
     */
    static String storeUrl(Database.PostgresSchema db) {
        return db.url() + "&ApplicationName=" + application(db);
    }

    /** The application name of the store opened on {@link #storeUrl}. */
    static String application(Database.PostgresSchema db) {
        return "store_" + db.schema();
    }

    /**
     * A job id that no test beside this one uses: a job's advisory lock belongs to the database, not
     * to the schema, so two tests that lock a job "a" under {@code PG_ADVISORY_LOCK} share its lock.
     * The id keeps {@code name}'s order among ids of the same schema.
     */
    static String job(Database.PostgresSchema db, String name) {
        return db.schema() + "." + name;
    }

    /**
     * Waits, for at most 30 s, until a session of {@code application} waits for a job's lock (a
     * row's, or a job's advisory lock), asking through {@code c} (in autocommit: PostgreSQL shows
     * a transaction the same {@code pg_stat_activity} until it ends); fails naming {@code call}. A
     * wait for a lock of two-integer form (the queue's advisory lock, which a claimNext of any
     * test on the server may hold for a moment) does not count.
     */
    static void awaitALockWait(Connection c, String application, String call) throws Exception {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String waits = "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                + " WHERE NOT l.granted AND a.application_name = ?"
                + " AND NOT (l.locktype = 'advisory' AND l.objsubid = 2)";
        while (System.nanoTime() < giveUp) {
            try (PreparedStatement s = c.prepareStatement(waits)) {
                s.setString(1, application);
                try (ResultSet row = s.executeQuery()) {
                    row.next();
                    if (row.getLong(1) > 0) {
                        return;
                    }
                }
            }
            Thread.sleep(10);
        }
        fail(call + " of " + application + " never waited for the held lock");
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
