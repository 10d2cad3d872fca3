package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What opening a store sets up, without a PostgreSQL server: the SQLite store's file, table, queue
 * index and accessors, the PostgreSQL store's connection settings as it hands them to HikariCP,
 * and the refusal of a strategy of the other engine by the constructors that test code uses.
 * (The PostgreSQL store against a live server: testkit's {@code PostgresStoreTest}.)
 */
class StoreOpeningTest {

    @TempDir
    Path dir;

    @Test
    void aSqliteStoreReportsWhatItWasOpenedWith() {
        Path relative = Path.of("").toAbsolutePath().relativize(dir.resolve("jobs.db"));
        StoreOptions options = StoreOptions.defaults().withPoolSize(3);
        try (SqliteLeaseStore store = SqliteLeaseStore.open(relative, LockingStrategy.GROUP_COMMIT, options)) {
            assertEquals(relative.toAbsolutePath(), store.file());
            assertSame(options, store.options());
            assertSame(LockingStrategy.GROUP_COMMIT, store.strategy());
            assertEquals("SqliteLeaseStore[" + store.file() + ", GROUP_COMMIT, " + options + "]", store.toString());
        }
    }

    @Test
    void openingCreatesTheQueueIndexAndAddsItToATableWithoutIt() throws SQLException {
        Path file = dir.resolve("jobs.db");
        SqliteLeaseStore.open(file).close();
        assertTrue(hasQueueIndex(file), "a new database gets the queue index");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.execute("DROP INDEX " + LeaseSql.QUEUE_INDEX);
        }
        assertFalse(hasQueueIndex(file));
        try (SqliteLeaseStore store = SqliteLeaseStore.open(file)) {
            assertTrue(hasQueueIndex(file), "a table without the index gets it when a store opens");
            assertTrue(store.enqueue("j"));
            assertEquals(OptionalLong.of(1), store.claim("j", "A", 100, 30));
        }
    }

    private static boolean hasQueueIndex(Path file) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '"
                     + LeaseSql.QUEUE_INDEX + "' AND tbl_name = 'jobs'")) {
            return rows.next() && rows.getInt(1) == 1;
        }
    }

    @Test
    void openWithoutOptionsIsRejectedByName() {
        Path file = dir.resolve("jobs.db");
        assertEquals("options", assertThrows(NullPointerException.class,
                () -> SqliteLeaseStore.open(file, LockingStrategy.IMMEDIATE, null)).getMessage());
        assertEquals("options", assertThrows(NullPointerException.class,
                () -> PostgresLeaseStore.open("jdbc:postgresql://127.0.0.1:1/none", LockingStrategy.PG_ROW_LOCK, null))
                .getMessage());
        assertFalse(Files.exists(file));
    }

    /** The constructors that test code uses for broken variants check the engine themselves. */
    @Test
    void theConstructorsRefuseAStrategyOfTheOtherEngineBeforeAnythingIsOpened() {
        Path file = dir.resolve("jobs.db");
        WriteProtocol sqliteWrites = new ConditionalUpdateProtocol(LeaseSql.CONTRACT, LockingStrategy.Engine.SQLITE);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SqliteLeaseStore(file,
                LockingStrategy.PG_ROW_LOCK, StoreOptions.defaults(), LeaseSql.CONTRACT, sqliteWrites));
        assertEquals("strategy PG_ROW_LOCK belongs to POSTGRESQL, not to SQLITE: open it with PostgresLeaseStore",
                e.getMessage());
        assertFalse(Files.exists(file));

        WriteProtocol postgresWrites = new ConditionalUpdateProtocol(LeaseSql.CONTRACT, LockingStrategy.Engine.POSTGRESQL);
        // No server listens on port 1: a constructor that tried to connect would fail otherwise.
        e = assertThrows(IllegalArgumentException.class, () -> new PostgresLeaseStore("jdbc:postgresql://127.0.0.1:1/none",
                LockingStrategy.IMMEDIATE, PostgresOptions.defaults(), LeaseSql.CONTRACT, postgresWrites));
        assertEquals("strategy IMMEDIATE belongs to SQLITE, not to POSTGRESQL: open it with SqliteLeaseStore",
                e.getMessage());
    }

    @Test
    void aUrlOfAnotherDatabaseIsRefusedBeforeAConnectionIsTried() {
        // A store that tried it would fail with a LeaseStoreException from the driver instead.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PostgresLeaseStore.open("jdbc:sqlite:" + dir.resolve("jobs.db") + "?password=secret",
                        LockingStrategy.PG_CONDITIONAL_UPDATE));
        assertTrue(e.getMessage().startsWith("jdbcUrl must start with jdbc:postgresql:, not jdbc:sqlite:"), e.getMessage());
        assertFalse(e.getMessage().contains("secret"), e.getMessage());
    }

    /**
     * What the PostgreSQL store asks of HikariCP and PgJDBC: READ COMMITTED (the strategies rely
     * on a statement re-checking the newest row after a lock wait), autocommit, the statement
     * timeout on every connection, and the timeouts of the options in the driver's units.
     */
    @Test
    void thePostgresPoolIsConfiguredFromTheOptions() {
        String url = "jdbc:postgresql://db.example:5433/jobs?user=app";
        PostgresOptions options = new PostgresOptions(7, Duration.ofMillis(2500), Duration.ofMillis(3000));
        HikariConfig config = PostgresLeaseStore.config(url, options);
        assertEquals("org.postgresql.Driver", config.getDriverClassName());
        assertEquals(url, config.getJdbcUrl());
        assertTrue(config.getPoolName().startsWith("leaselab-postgres-"), config.getPoolName());
        assertEquals(7, config.getMaximumPoolSize());
        assertEquals(1, config.getMinimumIdle());
        assertEquals(3000, config.getConnectionTimeout());
        assertEquals(3000, config.getValidationTimeout());
        assertTrue(config.isAutoCommit());
        assertEquals("TRANSACTION_READ_COMMITTED", config.getTransactionIsolation());
        assertEquals("SET statement_timeout = 2500", config.getConnectionInitSql());
        // PgJDBC takes seconds: 2.5 s of statement timeout round up to 3, and the socket gives up
        // a connect timeout after the server would have cancelled the statement.
        assertEquals(Map.of("connectTimeout", 3, "loginTimeout", 3, "socketTimeout", 6, "ApplicationName", "leaselab"),
                Map.copyOf(config.getDataSourceProperties()));

        HikariConfig longTimeouts = PostgresLeaseStore.config(url, options.withConnectTimeout(Duration.ofSeconds(30)));
        assertEquals(5000, longTimeouts.getValidationTimeout(), "the validation timeout is capped at 5 s");
        assertNotEquals(config.getPoolName(), longTimeouts.getPoolName(), "every pool has a name of its own");
    }
}
