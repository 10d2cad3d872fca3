package dev.leaselab.lease;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Objects;

/**
 * The {@link LeaseStore} on one SQLite file, following {@code docs/CONTRACT.md}.
 *
 * <p>Opening creates the {@code jobs} table if it is missing and never touches an existing one,
 * so fences survive a re-open; it adds the index that {@link #claimNext} reads the queue by, if
 * that is missing (the table itself stays as the contract has it). The store keeps up to {@link StoreOptions#poolSize()} connections
 * open and lends one to each operation; it is safe to share between threads, and several stores
 * in this process or in others may share one file. {@link #state} reads the file, never a cache.
 *
 * <pre>{@code
 * try (LeaseStore store = SqliteLeaseStore.open(Path.of("jobs.db"))) {
 *     store.enqueue("job-1");
 *     OptionalLong fence = store.claim("job-1", "worker-a", now, 30);
 *     ...
 *     store.complete("job-1", "worker-a", fence.getAsLong(), later, "result");
 * }
 * }</pre>
 */
public final class SqliteLeaseStore extends JdbcLeaseStore {

    private final Path file;
    private final StoreOptions options;
    private final SessionPool pool;

    /** Opens the store with {@link LockingStrategy#IMMEDIATE} and {@link StoreOptions#defaults()}. */
    public static SqliteLeaseStore open(Path file) {
        return open(file, LockingStrategy.IMMEDIATE);
    }

    /** Opens the store with the given strategy and {@link StoreOptions#defaults()}. */
    public static SqliteLeaseStore open(Path file, LockingStrategy strategy) {
        return open(file, strategy, StoreOptions.defaults());
    }

    /**
     * Opens the store, creating the database file and the {@code jobs} table if they are missing.
     *
     * @throws IllegalArgumentException if {@code strategy} is not a SQLite strategy
     * @throws LeaseStoreException if the file cannot be opened as a SQLite database: its directory
     *     is missing, it is not a database, or it cannot be written
     */
    public static SqliteLeaseStore open(Path file, LockingStrategy strategy, StoreOptions options) {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(options, "options");
        // protocol() refuses a strategy of the other engine, naming it, before anything is opened.
        return new SqliteLeaseStore(file, strategy, options, LeaseSql.CONTRACT, strategy.protocol(LeaseSql.CONTRACT, options));
    }

    /** Builds a store with other SQL or another protocol: test code uses this for broken variants. */
    SqliteLeaseStore(Path file, LockingStrategy strategy, StoreOptions options, LeaseSql sql, WriteProtocol protocol) {
        super(Objects.requireNonNull(file, "file").toAbsolutePath().toString(),
                Objects.requireNonNull(strategy, "strategy"), sql, protocol);
        strategy.requireEngine(LockingStrategy.Engine.SQLITE);
        this.file = file.toAbsolutePath();
        this.options = Objects.requireNonNull(options, "options");
        this.pool = new SessionPool(this.file, options);
        createTableOrClose(s -> {
            s.execute(sql.createTable());
            s.execute(LeaseSql.createQueueIndex(LockingStrategy.Engine.SQLITE));
            return null;
        });
    }

    /** The database file of this store. */
    public Path file() {
        return file;
    }

    /** The options this store was opened with. */
    public StoreOptions options() {
        return options;
    }

    @Override
    <T> T withSession(SessionPool.Work<T> work) throws SQLException {
        return pool.withSession(work);
    }

    @Override
    void requireOpen() {
        pool.requireOpen();
    }

    @Override
    void closeConnections() {
        pool.close();
    }

    @Override
    public String toString() {
        return "SqliteLeaseStore[" + file + ", " + strategy() + ", " + options + "]";
    }
}
