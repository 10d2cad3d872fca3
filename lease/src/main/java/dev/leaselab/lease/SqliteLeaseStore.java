package dev.leaselab.lease;

import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link LeaseStore} on one SQLite file, following {@code shared/SPEC.md}.
 *
 * <p>Opening creates the {@code jobs} table if it is missing and never touches an existing one,
 * so fences survive a re-open. The store keeps up to {@link StoreOptions#poolSize()} connections
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
public final class SqliteLeaseStore implements LeaseStore {

    private static final AtomicInteger CLAIM_THREADS = new AtomicInteger();

    private final Path file;
    private final LockingStrategy strategy;
    private final StoreOptions options;
    private final WriteProtocol protocol;
    private final SessionPool pool;
    private final String selectState;
    private final ExecutorService claimThreads;

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
     * @throws LeaseStoreException if the file cannot be opened as a SQLite database: its directory
     *     is missing, it is not a database, or it cannot be written
     */
    public static SqliteLeaseStore open(Path file, LockingStrategy strategy, StoreOptions options) {
        Objects.requireNonNull(strategy, "strategy");
        return new SqliteLeaseStore(file, strategy, options, LeaseSql.CONTRACT, strategy.protocol(LeaseSql.CONTRACT, options));
    }

    /** Builds a store with other SQL or another protocol: test code uses this for broken variants. */
    SqliteLeaseStore(Path file, LockingStrategy strategy, StoreOptions options, LeaseSql sql, WriteProtocol protocol) {
        this.file = Objects.requireNonNull(file, "file").toAbsolutePath();
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        this.options = Objects.requireNonNull(options, "options");
        this.protocol = protocol;
        this.selectState = sql.selectState();
        this.pool = new SessionPool(this.file, options);
        try {
            pool.withSession(s -> {
                s.execute(sql.createTable());
                return null;
            });
        } catch (SQLException e) {
            pool.close();
            throw failure("open", e);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
        this.claimThreads = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "leaselab-claim-" + CLAIM_THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The database file of this store. */
    public Path file() {
        return file;
    }

    public LockingStrategy strategy() {
        return strategy;
    }

    public StoreOptions options() {
        return options;
    }

    @Override
    public boolean enqueue(String jobId) {
        Objects.requireNonNull(jobId, "jobId");
        return run("enqueue", s -> protocol.enqueue(s, jobId));
    }

    @Override
    public Optional<JobState> state(String jobId) {
        Objects.requireNonNull(jobId, "jobId");
        return run("state", s -> {
            try (ResultSet row = s.query(selectState, jobId)) {
                if (!row.next()) {
                    return Optional.empty();
                }
                return Optional.of(new JobState(row.getString(1), row.getString(2), row.getDouble(3),
                        row.getLong(4), row.getString(5), row.getInt(6) != 0));
            }
        });
    }

    @Override
    public OptionalLong claim(String jobId, String owner, double now, double ttl) {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(owner, "owner");
        double until = expiry(now, ttl);
        return run("claim", s -> protocol.claim(s, jobId, owner, now, until));
    }

    @Override
    public boolean renew(String jobId, String owner, long fence, double now, double ttl) {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(owner, "owner");
        double until = expiry(now, ttl);
        return run("renew", s -> protocol.renew(s, jobId, owner, fence, now, until));
    }

    @Override
    public boolean complete(String jobId, String owner, long fence, double now, String result) {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(result, "result");
        requireFinite("now", now);
        return run("complete", s -> protocol.complete(s, jobId, owner, fence, now, result));
    }

    @Override
    public boolean release(String jobId, String owner, long fence) {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(owner, "owner");
        return run("release", s -> protocol.release(s, jobId, owner, fence));
    }

    @Override
    public List<OptionalLong> claimMany(String jobId, List<String> owners, double now, double ttl) {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(owners, "owners");
        for (int i = 0; i < owners.size(); i++) {
            Objects.requireNonNull(owners.get(i), "owners[" + i + "]");
        }
        expiry(now, ttl);
        pool.requireOpen();
        // Every claimant waits at the gate until all of them are on their threads, so the claims
        // really meet instead of running one after another as the threads start.
        CountDownLatch ready = new CountDownLatch(owners.size());
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<OptionalLong>> claims = new ArrayList<>(owners.size());
        for (String owner : owners) {
            claims.add(claimThreads.submit(() -> {
                ready.countDown();
                gate.await();
                return claim(jobId, owner, now, ttl);
            }));
        }
        List<OptionalLong> results = new ArrayList<>(owners.size());
        RuntimeException failure = null;
        try {
            ready.await();
            gate.countDown();
            for (Future<OptionalLong> claim : claims) {
                try {
                    results.add(claim.get());
                } catch (ExecutionException e) {
                    RuntimeException cause = e.getCause() instanceof RuntimeException r
                            ? r : new LeaseStoreException("claimMany failed on " + file, e.getCause());
                    if (failure == null) {
                        failure = cause;
                    } else {
                        failure.addSuppressed(cause);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            gate.countDown();
            claims.forEach(c -> c.cancel(true));
            throw new LeaseStoreException("interrupted while racing claims on " + file, e);
        }
        if (failure != null) {
            throw failure;
        }
        return results;
    }

    /** Closes the connections and the claim threads. Operations after this throw IllegalStateException. */
    @Override
    public void close() {
        pool.close();
        if (claimThreads != null) {
            claimThreads.shutdownNow();
        }
    }

    @Override
    public String toString() {
        return "SqliteLeaseStore[" + file + ", " + strategy + ", " + options + "]";
    }

    private static double expiry(double now, double ttl) {
        requireFinite("now", now);
        requireFinite("ttl", ttl);
        if (ttl <= 0) {
            throw new IllegalArgumentException("ttl must be positive: " + ttl);
        }
        double until = now + ttl;
        if (Double.isInfinite(until)) {
            throw new IllegalArgumentException("now + ttl overflows: now=" + now + ", ttl=" + ttl);
        }
        return until;
    }

    private static void requireFinite(String name, double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException(name + " must be finite: " + value);
        }
    }

    private <T> T run(String operation, SessionPool.Work<T> work) {
        try {
            return pool.withSession(work);
        } catch (SQLException e) {
            throw failure(operation, e);
        }
    }

    private LeaseStoreException failure(String operation, SQLException e) {
        return new LeaseStoreException(operation + " failed on " + file + " (" + strategy + "): " + e.getMessage(), e);
    }
}
