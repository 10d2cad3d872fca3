package dev.leaselab.lease;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
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
 * What every store of this package does the same way, whatever the database: the checks of the
 * caller's arguments (raised before the database is touched), the race of {@link #claimMany}, and
 * turning every {@link SQLException} into a {@link LeaseStoreException} that names the database
 * and the strategy. A subclass only says how an operation gets a {@link Session}.
 */
abstract class JdbcLeaseStore implements LeaseStore {

    private static final AtomicInteger CLAIM_THREADS = new AtomicInteger();

    private final String database;
    private final LockingStrategy strategy;
    private final WriteProtocol protocol;
    private final String selectState;
    final ExecutorService claimThreads = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "leaselab-claim-" + CLAIM_THREADS.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });

    /**
     * @param database how messages name the database: a file, or a URL without its password
     */
    JdbcLeaseStore(String database, LockingStrategy strategy, LeaseSql sql, WriteProtocol protocol) {
        this.database = database;
        this.strategy = strategy;
        this.protocol = protocol;
        this.selectState = sql.selectState();
    }

    /** Lends a session to {@code work} and takes it back. */
    abstract <T> T withSession(SessionPool.Work<T> work) throws SQLException;

    /** @throws IllegalStateException naming the database, once the store is closed */
    abstract void requireOpen();

    /** Closes the connections; called once by {@link #close()}. */
    abstract void closeConnections();

    /** The locking strategy this store writes with. */
    public LockingStrategy strategy() {
        return strategy;
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
    public List<Lease> claimNext(String owner, double now, double ttl, int max) {
        Objects.requireNonNull(owner, "owner");
        double until = expiry(now, ttl);
        if (max <= 0) {
            throw new IllegalArgumentException("max must be positive: " + max);
        }
        return List.copyOf(run("claimNext", s -> protocol.claimNext(s, owner, now, until, max)));
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
    public List<Boolean> completeAll(List<Completion> completions, double now) {
        Objects.requireNonNull(completions, "completions");
        for (int i = 0; i < completions.size(); i++) {
            Objects.requireNonNull(completions.get(i), "completions[" + i + "]");
        }
        requireFinite("now", now);
        requireOpen();
        if (completions.isEmpty()) {
            return List.of();
        }
        // Job-id order, so that two batches that share a row lock it in the same order (PostgreSQL
        // would otherwise let them deadlock); the sort is stable, so a job named twice keeps its
        // list order.
        Integer[] order = new Integer[completions.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparing(i -> completions.get(i).jobId()));
        List<Completion> sorted = new ArrayList<>(order.length);
        for (int i : order) {
            sorted.add(completions.get(i));
        }
        List<Boolean> decided = run("completeAll", s -> protocol.completeAll(s, sorted, now));
        Boolean[] accepted = new Boolean[order.length];
        for (int k = 0; k < order.length; k++) {
            accepted[order[k]] = decided.get(k);
        }
        return List.of(accepted);
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
        requireOpen();
        // Every claimant waits at the gate until all of them are on their threads, so the claims
        // really meet instead of running one after another as the threads start.
        CountDownLatch ready = new CountDownLatch(owners.size());
        CountDownLatch gate = new CountDownLatch(1);
        // The caller's probe, so a test can see whether the claims overlapped (ClaimManyProbe).
        ClaimManyProbe probe = ClaimManyProbe.current();
        List<Future<OptionalLong>> claims = new ArrayList<>(owners.size());
        for (String owner : owners) {
            claims.add(claimThreads.submit(() -> {
                ready.countDown();
                gate.await();
                return probe.stamp(owner, () -> claim(jobId, owner, now, ttl));
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
                            ? r : new LeaseStoreException("claimMany failed on " + database, e.getCause());
                    if (failure == null) {
                        failure = cause;
                    } else {
                        failure.addSuppressed(cause);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // The gate stays shut: cancelling interrupts the claimants that wait at it, so a claim
            // that has not started by now never runs for a caller that has already given up.
            claims.forEach(c -> c.cancel(true));
            throw new LeaseStoreException("interrupted while racing claims on " + database, e);
        }
        if (failure != null) {
            throw failure;
        }
        return results;
    }

    /**
     * Creates the table if it is missing, as the last step of opening: on failure the store closes
     * what it opened and throws (a database failure as {@link LeaseStoreException}).
     */
    void createTableOrClose(SessionPool.Work<?> createTable) {
        try {
            withSession(createTable);
        } catch (SQLException e) {
            close();
            throw failure("open", e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Closes the connections and the claim threads. Operations after this throw IllegalStateException. */
    @Override
    public void close() {
        closeConnections();
        claimThreads.shutdownNow();
    }

    static double expiry(double now, double ttl) {
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
            return withSession(work);
        } catch (SQLException e) {
            throw failure(operation, e);
        }
    }

    LeaseStoreException failure(String operation, SQLException e) {
        return failure(operation, database, strategy, e);
    }

    static LeaseStoreException failure(String operation, String database, LockingStrategy strategy, Exception e) {
        return new LeaseStoreException(operation + " failed on " + database + " (" + strategy + "): " + e.getMessage(), e);
    }
}
