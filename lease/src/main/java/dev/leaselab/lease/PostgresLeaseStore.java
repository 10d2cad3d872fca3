package dev.leaselab.lease;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * The {@link LeaseStore} on a PostgreSQL database, following {@code docs/CONTRACT.md}: the same
 * contract, the same rules (the SQL fragments are shared with {@link SqliteLeaseStore}) and the same
 * argument checks, for workers on several machines.
 *
 * <p>Opening creates the {@code jobs} table ({@code postgres-schema.sql}) if it is missing and never
 * touches an existing one, so fences survive a re-open; stores that open the same new database at
 * the same time serialise the creation on an advisory lock. The table is created in the first
 * schema of the connection's {@code search_path} (PgJDBC's {@code currentSchema} URL parameter sets
 * it). The store borrows a connection from a HikariCP pool for each operation, in READ COMMITTED,
 * which the strategies rely on; it is safe to share between threads, and any number of stores on
 * any number of machines may share one database, as long as they use strategies that exclude each
 * other (see {@link LockingStrategy#PG_ADVISORY_LOCK}). {@link #state} reads the database, never a
 * cache.
 *
 * <p>Every failure of the server or the network is a {@link LeaseStoreException}; the pool drops a
 * connection that failed and opens a new one for a later operation, so the store recovers by
 * itself once the server is back (after an outage, HikariCP retries connecting with a backoff that
 * grows to 5 s, so recovery can lag the server by that much).
 *
 * <pre>{@code
 * try (LeaseStore store = PostgresLeaseStore.open("jdbc:postgresql://db:5432/jobs?user=app",
 *         LockingStrategy.PG_CONDITIONAL_UPDATE)) {
 *     store.enqueue("job-1");
 *     OptionalLong fence = store.claim("job-1", "worker-a", now, 30);
 *     ...
 *     store.complete("job-1", "worker-a", fence.getAsLong(), later, "result");
 * }
 * }</pre>
 */
public final class PostgresLeaseStore extends JdbcLeaseStore {

    private static final String URL_PREFIX = "jdbc:postgresql:";

    /**
     * The key of the advisory lock that serialises the creation of the table. It is of the
     * two-integer form, whose keys never collide with the one-bigint keys of
     * {@link LockingStrategy#PG_ADVISORY_LOCK}; the numbers are "leas" and "schm" in ASCII.
     */
    private static final String SCHEMA_LOCK = "SELECT pg_advisory_xact_lock(1818583411, 1936223341)";

    private static final AtomicInteger POOLS = new AtomicInteger();
    private static final Pattern PASSWORD = Pattern.compile("(?i)(password=)[^&]*");

    private final String jdbcUrl;
    private final PostgresOptions options;
    private final HikariDataSource pool;
    private volatile boolean closed;

    /** Opens the store with the given strategy and {@link PostgresOptions#defaults()}. */
    public static PostgresLeaseStore open(String jdbcUrl, LockingStrategy strategy) {
        return open(jdbcUrl, strategy, PostgresOptions.defaults());
    }

    /**
     * Opens the store, creating the {@code jobs} table if it is missing.
     *
     * @param jdbcUrl a PgJDBC URL, {@code jdbc:postgresql://host:port/database?user=...}; its
     *     parameters (user, password, ssl, currentSchema, ...) are passed to the driver as they are
     * @throws IllegalArgumentException if {@code jdbcUrl} is not a PostgreSQL URL or
     *     {@code strategy} is not a PostgreSQL strategy
     * @throws LeaseStoreException if the server cannot be reached, refuses the login, or the table
     *     cannot be created
     */
    public static PostgresLeaseStore open(String jdbcUrl, LockingStrategy strategy, PostgresOptions options) {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(options, "options");
        // postgresProtocol() refuses a strategy of the other engine, naming it, before anything is opened.
        return new PostgresLeaseStore(jdbcUrl, strategy, options, LeaseSql.CONTRACT,
                strategy.postgresProtocol(LeaseSql.CONTRACT));
    }

    /** Builds a store with other SQL or another protocol: test code uses this for broken variants. */
    PostgresLeaseStore(String jdbcUrl, LockingStrategy strategy, PostgresOptions options, LeaseSql sql, WriteProtocol protocol) {
        super(redact(Objects.requireNonNull(jdbcUrl, "jdbcUrl")), Objects.requireNonNull(strategy, "strategy"), sql, protocol);
        strategy.requireEngine(LockingStrategy.Engine.POSTGRESQL);
        if (!jdbcUrl.startsWith(URL_PREFIX)) {
            throw new IllegalArgumentException("jdbcUrl must start with " + URL_PREFIX + ", not " + redact(jdbcUrl));
        }
        this.jdbcUrl = jdbcUrl;
        this.options = Objects.requireNonNull(options, "options");
        try {
            this.pool = new HikariDataSource(config(jdbcUrl, options));
        } catch (RuntimeException e) {
            // HikariCP tries one connection when the pool starts and wraps the driver's failure.
            super.close();
            throw failure("open", redact(jdbcUrl), strategy, e.getCause() instanceof SQLException ? (SQLException) e.getCause() : e);
        }
        createTableOrClose(s -> {
            createTable(s, sql);
            return null;
        });
    }

    static HikariConfig config(String jdbcUrl, PostgresOptions options) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("leaselab-postgres-" + POOLS.incrementAndGet());
        config.setDriverClassName("org.postgresql.Driver");
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(options.poolSize());
        // Connections are opened when operations need them, not all at once when the store opens:
        // a worker with one thread should cost the server one backend, not poolSize of them. The
        // one kept is the connection HikariCP opens to check the server when the pool starts.
        config.setMinimumIdle(1);
        config.setConnectionTimeout(options.connectTimeout().toMillis());
        config.setValidationTimeout(Math.min(options.connectTimeout().toMillis(), 5_000));
        config.setAutoCommit(true);
        // The strategies rely on READ COMMITTED: a statement that waited for a row lock re-checks
        // the newest version of the row. A server whose default is REPEATABLE READ or SERIALIZABLE
        // would turn every lost race into a serialization error instead of a clean "no".
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        config.setConnectionInitSql("SET statement_timeout = " + options.statementTimeout().toMillis());
        int connectSeconds = seconds(options.connectTimeout().toMillis());
        config.addDataSourceProperty("connectTimeout", connectSeconds);
        config.addDataSourceProperty("loginTimeout", connectSeconds);
        // The server cancels a statement after statement_timeout, but a server that no longer
        // answers at all (a network partition) never sends that cancellation: the socket gives up
        // a little later than the server would have.
        config.addDataSourceProperty("socketTimeout",
                seconds(options.statementTimeout().toMillis()) + connectSeconds);
        config.addDataSourceProperty("ApplicationName", "leaselab");
        return config;
    }

    private static int seconds(long millis) {
        return (int) Math.max(1, (millis + 999) / 1000);
    }

    /**
     * Creates the table if it is missing. PostgreSQL's {@code CREATE TABLE IF NOT EXISTS} is not
     * safe against itself: two sessions that both find the table missing both try to create it,
     * and one fails on the catalog's unique index. So the creation runs under an advisory lock, and
     * a table that already exists is not touched at all (a user without the right to create tables
     * can then still open a store on a prepared database). The same goes for the index that
     * claimNext reads the queue by: created with the table, or added once to a table without it.
     */
    private static void createTable(Session s, LeaseSql sql) throws SQLException {
        if (s.firstBoolean("SELECT to_regclass('jobs') IS NOT NULL AND to_regclass('" + LeaseSql.QUEUE_INDEX + "') IS NOT NULL")) {
            return;
        }
        s.inTransaction(() -> {
            s.execute(SCHEMA_LOCK);
            s.execute(sql.createPostgresTable());
            s.execute(LeaseSql.createQueueIndex(LockingStrategy.Engine.POSTGRESQL));
            return null;
        });
    }

    /** The JDBC URL of this store's database, with any password in it masked. */
    public String jdbcUrl() {
        return redact(jdbcUrl);
    }

    /** The options this store was opened with. */
    public PostgresOptions options() {
        return options;
    }

    @Override
    <T> T withSession(SessionPool.Work<T> work) throws SQLException {
        requireOpen();
        try (Connection connection = pool.getConnection()) {
            Session session = new Session(connection, Session.Parameters.POSITIONAL);
            try {
                return work.run(session);
            } finally {
                if (!session.reusable()) {
                    pool.evictConnection(connection);
                }
            }
        }
    }

    @Override
    void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the store on " + redact(jdbcUrl) + " is closed");
        }
    }

    @Override
    void closeConnections() {
        closed = true;
        if (pool != null) {
            pool.close();
        }
    }

    @Override
    public String toString() {
        return "PostgresLeaseStore[" + redact(jdbcUrl) + ", " + strategy() + ", " + options + "]";
    }

    /**
     * The URL with any password masked, as this store's messages show it: messages and reports
     * name a database by its URL, but never show a password that the URL carries. The harnesses
     * use this one rule for theirs.
     */
    public static String redact(String jdbcUrl) {
        return PASSWORD.matcher(Objects.requireNonNull(jdbcUrl, "jdbcUrl")).replaceAll("$1***");
    }
}
