package dev.leaselab.lease;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * Read, decide, write, all inside one SQLite transaction: the check reads the row with the
 * operation's rule, and only when it matches is the effect written.
 *
 * <p>The transaction is opened with an explicit {@code BEGIN ...} on an autocommit connection:
 * switching the driver to manual commit with an IMMEDIATE transaction mode would take the write
 * lock again right after every commit, so an idle connection would block every other writer.
 */
final class TransactionProtocol implements WriteProtocol {

    private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final String begin;
    private final Lock inProcessLock;
    private final boolean retryOnBusy;
    private final long retryBudgetNanos;
    private final String enqueue;
    private final CheckedWrites statements;
    private final String nextIds;

    /**
     * @param begin the statement that opens the transaction
     * @param inProcessLock held around each write, or null
     * @param retryOnBusy whether to roll back and retry when SQLite reports the database busy
     * @param retryBudget how long retries may go on before the operation fails
     */
    TransactionProtocol(LeaseSql sql, String begin, Lock inProcessLock, boolean retryOnBusy, Duration retryBudget) {
        this.begin = Objects.requireNonNull(begin, "begin");
        this.inProcessLock = inProcessLock;
        this.retryOnBusy = retryOnBusy;
        this.retryBudgetNanos = retryBudget.toNanos();
        this.enqueue = sql.enqueue();
        this.statements = CheckedWrites.of(sql, LeaseSql::check);
        this.nextIds = sql.nextClaimableIds(LockingStrategy.Engine.SQLITE);
    }

    @Override
    public boolean enqueue(Session s, String id) throws SQLException {
        return inTransaction(s, () -> s.update(enqueue, id) == 1);
    }

    @Override
    public OptionalLong claim(Session s, String id, String owner, double now, double until) throws SQLException {
        return inTransaction(s, () -> s.exists(statements.claimCheck(), id, owner, now, until)
                ? s.firstLong(statements.claimWrite(), id, owner, now, until)
                : OptionalLong.empty());
    }

    /** The pick is the check: it runs in the same transaction as the writes. */
    @Override
    public List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException {
        return inTransaction(s, () -> {
            List<Lease> leases = new ArrayList<>();
            for (String id : s.strings(nextIds, max, owner, now, until)) {
                OptionalLong fence = s.firstLong(statements.claimWrite(), id, owner, now, until);
                if (fence.isPresent()) {
                    leases.add(new Lease(id, owner, fence.getAsLong(), until));
                }
            }
            return leases;
        });
    }

    @Override
    public boolean renew(Session s, String id, String owner, long fence, double now, double until) throws SQLException {
        return inTransaction(s, () -> s.exists(statements.renewCheck(), id, owner, fence, now, until)
                && s.update(statements.renewWrite(), id, owner, fence, now, until) == 1);
    }

    @Override
    public boolean complete(Session s, String id, String owner, long fence, double now, String result) throws SQLException {
        return inTransaction(s, () -> s.exists(statements.completeCheck(), id, owner, fence, now, result)
                && s.update(statements.completeWrite(), id, owner, fence, now, result) == 1);
    }

    @Override
    public List<Boolean> completeAll(Session s, List<Completion> completions, double now) throws SQLException {
        return inTransaction(s, () -> {
            List<Boolean> accepted = new ArrayList<>(completions.size());
            for (Completion c : completions) {
                accepted.add(s.exists(statements.completeCheck(), c.jobId(), c.owner(), c.fence(), now, c.result())
                        && s.update(statements.completeWrite(), c.jobId(), c.owner(), c.fence(), now, c.result()) == 1);
            }
            return accepted;
        });
    }

    @Override
    public boolean release(Session s, String id, String owner, long fence) throws SQLException {
        return inTransaction(s, () -> s.exists(statements.releaseCheck(), id, owner, fence)
                && s.update(statements.releaseWrite(), id, owner, fence) == 1);
    }

    private <T> T inTransaction(Session s, Session.Work<T> work) throws SQLException {
        if (inProcessLock != null) {
            inProcessLock.lock();
        }
        try {
            long deadline = System.nanoTime() + retryBudgetNanos;
            for (int attempt = 0; ; attempt++) {
                try {
                    s.execute(begin);
                    T result = work.run();
                    s.execute("COMMIT");
                    return result;
                } catch (SQLException | RuntimeException e) {
                    s.rollbackQuietly();
                    if (!retryOnBusy || !(e instanceof SQLException sqlError) || !Session.isBusy(sqlError)
                            || System.nanoTime() - deadline > 0) {
                        throw e;
                    }
                }
                backOff(attempt);
            }
        } finally {
            if (inProcessLock != null) {
                inProcessLock.unlock();
            }
        }
    }

    /** Sleeps a random time up to a bound that doubles with each attempt, so retries spread out. */
    private static void backOff(int attempt) {
        long bound = Math.min(MAX_BACKOFF_NANOS, 20_000L << Math.min(attempt, 16));
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(bound / 2, bound));
    }
}
