package dev.leaselab.lease;

import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.PostgresServer;
import dev.leaselab.testkit.process.Processes;
import java.util.SortedMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a PostgreSQL server does to a store that a SQLite file cannot: it is unreachable, it holds a
 * row past the statement timeout, it terminates a connection; and a session can break while its
 * connection does not. Each failure must be a
 * {@link LeaseStoreException} (never a {@code false}), leave every committed job as it was, and
 * leave the store working once the cause is gone. A server that restarts is
 * {@link PostgresRestartTest}'s, apart because it restarts a server of its own.
 *
 * <p>Bad numbers, nulls and a closed store are checked for the PostgreSQL strategies too, by
 * {@link LeaseStoreErrorsTest}, which runs those tests for every strategy of both engines.
 */
class PostgresFaultsTest {

    private static final double TTL = 30;

    @RegisterExtension
    final PostgresFixture postgres = new PostgresFixture();

    /** A store with a held job "j" (A, fence 1, until 130) and a done job "d". */
    private LeaseStore seeded(String url, LockingStrategy strategy, PostgresOptions options) {
        LeaseStore store = postgres.closeLater(PostgresLeaseStore.open(url, strategy, options));
        store.enqueue("j");
        assertEquals(OptionalLong.of(1), store.claim("j", "A", 100, TTL));
        store.enqueue("d");
        long fence = store.claim("d", "A", 100, TTL).orElseThrow();
        assertTrue(store.complete("d", "A", fence, 101, "kept"));
        return store;
    }

    // ---- an unreachable server, a wrong URL ----

    @ParameterizedTest(name = "{0}")
    @MethodSource(PostgresFixture.STRATEGIES)
    void anUnreachableServerIsAFailureThatNamesTheUrlButNotThePassword(LockingStrategy strategy) throws IOException {
        String url = "jdbc:postgresql://127.0.0.1:" + closedPort() + "/jobs?user=app&password=secret";
        LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> PostgresLeaseStore.open(url,
                strategy, PostgresOptions.defaults().withConnectTimeout(Duration.ofMillis(250))));
        assertTrue(e.getMessage().startsWith("open failed on jdbc:postgresql://127.0.0.1:"), e.getMessage());
        assertTrue(e.getMessage().contains("password=***"), e.getMessage());
        assertFalse(e.getMessage().contains("secret"), e.getMessage());
        assertInstanceOf(SQLException.class, e.getCause());
    }

    @Test
    void aUrlOfAnotherDatabaseIsRejectedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PostgresLeaseStore.open("jdbc:sqlite:/tmp/jobs.db", LockingStrategy.PG_ROW_LOCK));
        assertTrue(e.getMessage().startsWith("jdbcUrl must start with jdbc:postgresql:"), e.getMessage());
        assertEquals("jdbcUrl", assertThrows(NullPointerException.class,
                () -> PostgresLeaseStore.open(null, LockingStrategy.PG_ROW_LOCK)).getMessage());
        assertEquals("strategy", assertThrows(NullPointerException.class,
                () -> PostgresLeaseStore.open("jdbc:postgresql://127.0.0.1:1/none", null)).getMessage());
    }

    @Test
    void optionsRejectNonsense() {
        PostgresOptions defaults = PostgresOptions.defaults();
        assertEquals(new PostgresOptions(16, Duration.ofSeconds(5), Duration.ofSeconds(5)), defaults);
        assertEquals("poolSize must be at least 1: 0",
                assertThrows(IllegalArgumentException.class, () -> defaults.withPoolSize(0)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> defaults.withStatementTimeout(Duration.ZERO))
                .getMessage().startsWith("statementTimeout "));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> defaults.withConnectTimeout(Duration.ofMillis(100)))
                .getMessage().startsWith("connectTimeout "));
        assertEquals("statementTimeout", assertThrows(NullPointerException.class, () -> defaults.withStatementTimeout(null)).getMessage());
    }

    // ---- a row held past the statement timeout ----

    @ParameterizedTest(name = "{0}")
    @MethodSource(PostgresFixture.STRATEGIES)
    void aRowLockHeldPastTheStatementTimeoutIsAFailureAndChangesNothing(LockingStrategy strategy) throws Exception {
        Database.PostgresSchema db = postgres.database();
        LeaseStore store = seeded(db.url(), strategy, PostgresOptions.defaults().withStatementTimeout(Duration.ofMillis(200)));
        SortedMap<String, JobState> before = db.rows();
        try (Connection other = db.connect(); Statement s = other.createStatement()) {
            other.setAutoCommit(false);
            s.executeUpdate("UPDATE jobs SET result = 'uncommitted' WHERE id = 'j'");
            // Every write below passes its rule, so it must reach the locked row and wait for it.
            List<Executable> writes = List.of(
                    () -> store.claim("j", "B", 200, TTL),
                    () -> store.renew("j", "A", 1, 110, TTL),
                    () -> store.complete("j", "A", 1, 110, "r"),
                    () -> store.release("j", "A", 1),
                    () -> store.claimMany("j", List.of("B", "C"), 200, TTL),
                    () -> store.completeAll(List.of(new Completion("j", "A", 1, "r")), 110));
            for (Executable write : writes) {
                LeaseStoreException e = assertThrows(LeaseStoreException.class, write);
                assertTrue(e.getMessage().contains(db.label()), e.getMessage());
                assertInstanceOf(SQLException.class, e.getCause());
            }
            // claimNext passes a locked row by (FOR UPDATE SKIP LOCKED), but PG_ADVISORY_LOCK picks
            // under its advisory locks, without the row's, and its claim must wait for the row.
            if (strategy == LockingStrategy.PG_ADVISORY_LOCK) {
                LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> store.claimNext("B", 200, TTL, 1));
                assertInstanceOf(SQLException.class, e.getCause());
            } else {
                assertEquals(List.of(), store.claimNext("B", 200, TTL, 1));
            }
            // Readers do not wait for writers: the store still reads the committed row.
            assertEquals(new JobState("j", "A", 130, 1, null, false), store.state("j").orElseThrow());
            other.rollback();
        }
        assertEquals(before, db.rows());
        // Once the lock is gone the same store works again, the queue's advisory lock included.
        assertEquals(List.of(new Lease("j", "B", 2, 200 + TTL)), store.claimNext("B", 200, TTL, 1));
    }

    // ---- a connection terminated by the server ----

    @ParameterizedTest(name = "{0}")
    @MethodSource(PostgresFixture.STRATEGIES)
    void aTerminatedConnectionFailsItsOperationAndTheStoreRecovers(LockingStrategy strategy) throws Exception {
        Database.PostgresSchema db = postgres.database();
        String application = "victim_" + db.schema();
        LeaseStore store = seeded(db.url() + "&ApplicationName=" + application, strategy, PostgresOptions.defaults());
        SortedMap<String, JobState> before = db.rows();
        ExecutorService thread = Executors.newSingleThreadExecutor();
        postgres.closeLater(thread::shutdownNow);
        try (Connection other = db.connect(); Statement s = other.createStatement()) {
            other.setAutoCommit(false);
            s.executeQuery("SELECT * FROM jobs WHERE id = 'j' FOR UPDATE").close();
            // The claim passes its rule and then waits for the row: terminate it right there.
            Future<OptionalLong> inFlight = thread.submit(() -> store.claim("j", "B", 200, TTL));
            try (Connection admin = db.connect()) {
                PostgresFixture.awaitALockWait(admin, application, "the claim");
            }
            assertTrue(terminate(application) >= 1, "no backend of the store was terminated");
            ExecutionException e = assertThrows(ExecutionException.class, () -> inFlight.get(30, TimeUnit.SECONDS));
            assertInstanceOf(LeaseStoreException.class, e.getCause());
            other.rollback();
        }
        assertEquals(before, db.rows());

        // Terminate every connection of the store again, idle ones included. The next operations
        // may meet a dead connection; each of them must fail with an exception or succeed.
        terminate(application);
        Optional<JobState> seen = Optional.empty();
        for (int attempt = 0; attempt <= PostgresOptions.defaults().poolSize() && seen.isEmpty(); attempt++) {
            try {
                seen = store.state("j");
                assertTrue(seen.isPresent(), "a state that succeeds must find the job");
            } catch (LeaseStoreException expected) {
                assertNotNull(expected.getCause());
            }
        }
        assertEquals(Optional.of(new JobState("j", "A", 130, 1, null, false)), seen);
        // From now on everything works, and nothing committed was lost.
        assertEquals(OptionalLong.of(2), store.claim("j", "B", 200, TTL));
        assertTrue(store.complete("j", "B", 2, 210, "b"));
        assertEquals(new JobState("d", "A", 130, 1, "kept", true), store.state("d").orElseThrow());
        assertEquals(new JobState("j", "B", 230, 2, "b", true), store.state("j").orElseThrow());
    }

    // ---- a session that breaks while its connection does not ----

    /**
     * A session whose rollback failed is marked unusable, and the store must take its connection
     * out of the pool even though the server kept it. HikariCP evicts a connection by itself only
     * for SQL states that say the connection is gone (the terminated backends above); for any
     * other failure only the store's own eviction keeps a connection in an unknown state from
     * being lent to the next operation.
     */
    @Test
    void aSessionBrokenOnALiveConnectionIsNeverLentAgain() throws Exception {
        Database.PostgresSchema db = postgres.database();
        PostgresLeaseStore store = postgres.closeLater(PostgresLeaseStore.open(db.url(), LockingStrategy.PG_CONDITIONAL_UPDATE));
        store.enqueue("j");
        long broken = store.withSession(s -> {
            long pid = backendPid(s);
            // No transaction is open, so PgJDBC refuses the rollback; the connection is fine.
            s.rollbackTransactionQuietly();
            assertFalse(s.reusable(), "a failed rollback must mark the session unusable");
            return pid;
        });
        // HikariCP lends a thread the connection it gave back last, so a connection that stayed in
        // the pool would come straight back here.
        for (int i = 0; i <= PostgresOptions.defaults().poolSize(); i++) {
            assertNotEquals(broken, store.withSession(PostgresFaultsTest::backendPid),
                    "the connection of the broken session was lent again");
        }
        awaitBackendGone(broken);
        assertEquals(OptionalLong.of(1), store.claim("j", "A", 100, TTL));
        assertEquals(new JobState("j", "A", 130, 1, null, false), store.state("j").orElseThrow());
    }

    private static long backendPid(Session s) throws SQLException {
        return s.firstLong("SELECT pg_backend_pid()").orElseThrow();
    }

    /** Waits, for at most 10 s, until the server has no backend {@code pid}: its connection was closed. */
    private static void awaitBackendGone(long pid) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try (Connection admin = PostgresServer.get().connect(); Statement s = admin.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rows = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid)) {
                    rows.next();
                    if (rows.getInt(1) == 0) {
                        return;
                    }
                }
                Thread.sleep(10);
            }
        }
        throw new AssertionError("backend " + pid + " of the broken session is still connected 10 s later");
    }

    /** Terminates every backend of the application; returns how many. */
    private static int terminate(String application) throws SQLException {
        try (Connection admin = PostgresServer.get().connect(); Statement s = admin.createStatement();
             ResultSet rows = s.executeQuery("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
                     + " WHERE application_name = '" + application + "'")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static int closedPort() throws IOException {
        return Processes.freeLoopbackPort();
    }
}
