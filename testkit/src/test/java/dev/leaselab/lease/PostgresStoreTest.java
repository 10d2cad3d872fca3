package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What {@link PostgresLeaseStore} itself does on a live server, beyond what the contract suite
 * checks: opening with the default options and showing its URL without the password, creating the
 * {@code jobs} table with the queue index (and adding a missing index to a table that has none),
 * handing out a claimNext batch in queue order whatever order PostgreSQL returns the rows in,
 * opening a database that its owner prepared as a role that may not create tables (and failing,
 * not pretending, where there is no table), and closing every connection of the store when it
 * closes.
 */
class PostgresStoreTest {

    private static final double TTL = 30;
    /** The password of the roles these tests create; the test servers trust loopback logins and ignore it. */
    private static final String ROLE_PASSWORD = "role-secret";

    @RegisterExtension
    final PostgresFixture postgres = new PostgresFixture();

    // ---- opening ----

    @ParameterizedTest(name = "{0}")
    @MethodSource(PostgresFixture.STRATEGIES)
    void openWithoutOptionsTakesTheDefaultsAndShowsTheUrlWithoutItsPassword(LockingStrategy strategy) {
        Database.PostgresSchema db = postgres.database();
        PostgresLeaseStore store = postgres.closeLater(PostgresLeaseStore.open(db.url() + "&password=secret", strategy));

        assertEquals(PostgresOptions.defaults(), store.options());
        assertEquals(strategy, store.strategy());
        assertEquals(db.url() + "&password=***", store.jdbcUrl());
        String shown = store.toString();
        assertTrue(shown.contains(db.url() + "&password=***"), shown);
        assertTrue(shown.contains(strategy.name()), shown);
        assertTrue(shown.contains(PostgresOptions.defaults().toString()), shown);
        assertFalse(shown.contains("secret"), shown);
        // And it is a working store on that database.
        assertTrue(store.enqueue("j"));
        assertEquals(OptionalLong.of(1), store.claim("j", "A", 100, TTL));
        assertEquals(new JobState("j", "A", 130, 1, null, false), db.rows().get("j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource(PostgresFixture.STRATEGIES)
    void openCreatesTheTableWithTheQueueIndex(LockingStrategy strategy) throws SQLException {
        Database.PostgresSchema db = postgres.database();
        assertEquals(Set.of(), indexesOfJobs(db), "a new schema has no table");
        postgres.closeLater(PostgresLeaseStore.open(db.url(), strategy));
        assertEquals(Set.of("jobs_pkey", LeaseSql.QUEUE_INDEX), indexesOfJobs(db));
    }

    @Test
    void openAddsTheQueueIndexToATableThatLacksIt() throws SQLException {
        Database.PostgresSchema db = postgres.database();
        PostgresLeaseStore first = postgres.closeLater(PostgresLeaseStore.open(db.url(), LockingStrategy.PG_CONDITIONAL_UPDATE));
        first.enqueue("j");
        long fence = first.claim("j", "A", 100, TTL).orElseThrow();
        db.execute("DROP INDEX " + LeaseSql.QUEUE_INDEX);
        assertEquals(Set.of("jobs_pkey"), indexesOfJobs(db));

        PostgresLeaseStore second = postgres.closeLater(PostgresLeaseStore.open(db.url(), LockingStrategy.PG_CONDITIONAL_UPDATE));
        assertEquals(Set.of("jobs_pkey", LeaseSql.QUEUE_INDEX), indexesOfJobs(db));
        // The table itself was left as it was: the job keeps its lease and fence.
        assertEquals(Optional.of(new JobState("j", "A", 130, fence, null, false)), second.state("j"));
    }

    /** The names of the indexes on the schema's {@code jobs} table; none when there is no table. */
    private static Set<String> indexesOfJobs(Database.PostgresSchema db) throws SQLException {
        return db.withConnection(c -> {
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT indexname FROM pg_indexes WHERE schemaname = ? AND tablename = 'jobs'")) {
                s.setString(1, db.schema());
                return strings(s);
            }
        });
    }

    // ---- claimNext's order ----

    /**
     * Planner settings that leave PostgreSQL one plan for claimNext's {@code UPDATE ... FROM picked}:
     * a hash join over a sequential scan of the table, whose {@code RETURNING} rows come in the order
     * the rows are stored in. With the default settings, the plans PostgreSQL picks for a small
     * table read the queue index or the picked rows first and so happen to return them in queue
     * order: a store that forgot to sort them would go unnoticed.
     */
    private static final String STORAGE_ORDER_PLAN = "&options=-c%20enable_indexscan=off%20-c%20enable_bitmapscan=off"
            + "%20-c%20enable_nestloop=off%20-c%20enable_mergejoin=off";

    @ParameterizedTest(name = "{0}")
    @MethodSource(PostgresFixture.STRATEGIES)
    void claimNextReturnsABatchInQueueOrderWhateverOrderTheRowsAreStoredIn(LockingStrategy strategy) {
        Database.PostgresSchema db = postgres.database();
        PostgresLeaseStore store = postgres.closeLater(PostgresLeaseStore.open(db.url() + STORAGE_ORDER_PLAN, strategy));
        // Stored c, b, a; the queue of jobs with the same expiry is by id: a, b, c.
        for (String id : List.of("c", "b", "a")) {
            store.enqueue(id);
        }
        assertEquals(List.of(new Lease("a", "A", 1, 130), new Lease("b", "A", 1, 130), new Lease("c", "A", 1, 130)),
                store.claimNext("A", 100, TTL, 3));
        // Leases that ran out come back by the expiry they had: c, b, a, though the rows were
        // last written a, b, c (an update stores a new version of its row).
        assertEquals(OptionalLong.of(2), store.claim("a", "X", 400, 1));
        assertEquals(OptionalLong.of(2), store.claim("b", "X", 300, 1));
        assertEquals(OptionalLong.of(2), store.claim("c", "X", 200, 1));
        assertEquals(List.of(new Lease("c", "B", 3, 1030), new Lease("b", "B", 3, 1030), new Lease("a", "B", 3, 1030)),
                store.claimNext("B", 1000, TTL, 3));
    }

    // ---- a role that may not create tables ----

    @ParameterizedTest(name = "{0}")
    @MethodSource(PostgresFixture.STRATEGIES)
    void aRoleThatMayNotCreateTablesOpensADatabaseThatItsOwnerPrepared(LockingStrategy strategy) throws SQLException {
        Database.PostgresSchema db = postgres.database();
        String role = newRole(db);
        // The owner opens the database once, which creates the table; then it lets the role use it.
        PostgresLeaseStore.open(db.url(), strategy).close();
        db.execute("GRANT USAGE ON SCHEMA " + db.schema() + " TO " + role);
        db.execute("GRANT SELECT, INSERT, UPDATE ON jobs TO " + role);

        PostgresLeaseStore store = postgres.closeLater(PostgresLeaseStore.open(urlOf(db, role), strategy));
        // What makes this test mean something: the store really runs as the role, which may not
        // create anything in the schema (CREATE TABLE IF NOT EXISTS would fail for it).
        assertEquals(List.of(role), store.withSession(s -> s.strings("SELECT current_user")));
        assertEquals(List.of("false"), store.withSession(s -> s.strings(
                "SELECT has_schema_privilege(current_user, '" + db.schema() + "', 'CREATE')::text")));

        assertTrue(store.enqueue("j"));
        long fence = store.claim("j", "A", 100, TTL).orElseThrow();
        assertTrue(store.complete("j", "A", fence, 110, "done by " + role));
        assertEquals(Optional.of(new JobState("j", "A", 130, fence, "done by " + role, true)), store.state("j"));
        assertEquals(new JobState("j", "A", 130, fence, "done by " + role, true), db.rows().get("j"));
    }

    @Test
    void aRoleThatMayNotCreateTablesCannotOpenAnEmptyDatabaseAndLeavesNoConnection() throws Exception {
        Database.PostgresSchema db = postgres.database();
        String role = newRole(db);
        db.execute("GRANT USAGE ON SCHEMA " + db.schema() + " TO " + role);
        String application = "refused_" + db.schema();
        String url = urlOf(db, role) + "&ApplicationName=" + application;
        String shown = url.replace("password=" + ROLE_PASSWORD, "password=***");

        LeaseStoreException e = assertThrows(LeaseStoreException.class,
                () -> postgres.closeLater(PostgresLeaseStore.open(url, LockingStrategy.PG_CONDITIONAL_UPDATE)));
        assertTrue(e.getMessage().startsWith("open failed on " + shown + " (PG_CONDITIONAL_UPDATE): "), e.getMessage());
        assertFalse(e.getMessage().contains(ROLE_PASSWORD), e.getMessage());
        assertInstanceOf(SQLException.class, e.getCause());
        assertEquals(Set.of(), indexesOfJobs(db), "nothing was created");
        awaitNoBackendOf(application);
    }

    /**
     * A new role that may log in and nothing else, unique to the test; dropped after the test with
     * whatever was granted to it (after the test's stores are closed, which are registered later).
     */
    private String newRole(Database.PostgresSchema db) throws SQLException {
        String role = "app_" + db.schema();
        db.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + ROLE_PASSWORD + "'");
        postgres.closeLater(() -> {
            db.execute("DROP OWNED BY " + role);
            db.execute("DROP ROLE " + role);
        });
        return role;
    }

    /** The database's URL for the role: PgJDBC takes the last value of a repeated parameter. */
    private static String urlOf(Database.PostgresSchema db, String role) {
        return db.url() + "&user=" + role + "&password=" + ROLE_PASSWORD;
    }

    // ---- closing ----

    @ParameterizedTest(name = "{0}")
    @MethodSource(PostgresFixture.STRATEGIES)
    void closeEndsEveryConnectionOfTheStore(LockingStrategy strategy) throws Exception {
        Database.PostgresSchema db = postgres.database();
        String application = "closing_" + db.schema();
        PostgresLeaseStore store = postgres.closeLater(PostgresLeaseStore.open(db.url() + "&ApplicationName=" + application, strategy));
        store.enqueue("j");
        long pid = store.withSession(s -> s.firstLong("SELECT pg_backend_pid()")).orElseThrow();
        try (Connection admin = PostgresServer.get().connect()) {
            Set<Long> backends = backendsOf(admin, application);
            assertTrue(backends.contains(pid), "the store's connection " + pid + " is not among " + backends);
        }

        store.close();
        awaitNoBackendOf(application);
    }

    /** Fails unless every backend of the application is gone within 10 s: a backend ends a moment after its client closes. */
    private static void awaitNoBackendOf(String application) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try (Connection admin = PostgresServer.get().connect()) {
            Set<Long> left = backendsOf(admin, application);
            while (!left.isEmpty()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("backends of " + application + " still there after 10 s: " + left);
                }
                Thread.sleep(50);
                left = backendsOf(admin, application);
            }
        }
    }

    /** The process ids of the server's backends for the application. */
    private static Set<Long> backendsOf(Connection admin, String application) throws SQLException {
        try (PreparedStatement s = admin.prepareStatement("SELECT pid FROM pg_stat_activity WHERE application_name = ?")) {
            s.setString(1, application);
            Set<Long> pids = new TreeSet<>();
            try (ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    pids.add(rows.getLong(1));
                }
            }
            return pids;
        }
    }

    private static Set<String> strings(PreparedStatement s) throws SQLException {
        Set<String> values = new TreeSet<>();
        try (ResultSet rows = s.executeQuery()) {
            while (rows.next()) {
                values.add(rows.getString(1));
            }
        }
        return values;
    }
}
