package dev.leaselab.lease;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Lock, check, write, all inside one PostgreSQL transaction under READ COMMITTED. What makes the
 * check and the write one step is the lock taken first: the job's row lock
 * ({@code SELECT ... FOR UPDATE}) or the job's advisory lock ({@code pg_advisory_xact_lock}). Both
 * are held until the commit, and both are released only after the commit is visible, so the next
 * holder's check reads what the previous holder wrote.
 *
 * <p>{@code enqueue} needs no lock: {@code INSERT ... ON CONFLICT DO NOTHING} on the primary key is
 * atomic by itself, so it runs in autocommit.
 *
 * <p>claimNext picks its jobs under the same kind of lock: with {@link Lock#ROW}, by
 * {@code SELECT ... FOR UPDATE SKIP LOCKED}, so racing workers lock different rows instead of
 * queueing for one; with {@link Lock#ADVISORY}, under an advisory lock of the whole queue that
 * serialises claimNext calls, then the picked jobs' own advisory locks (in job-id order, as
 * completeAll takes them), because a {@code claim} of one of them takes only the job's lock. Then one {@code UPDATE} claims every picked job whose rule
 * still holds (under the advisory locks, a claim may have won one in between), so a batch costs
 * a few round trips instead of one to three per job.
 *
 * <p>completeAll runs each completion as one compare-and-set {@code UPDATE}, all of them in one JDBC
 * batch, as {@link ConditionalUpdateProtocol} does: a few round trips for the batch, where a lock
 * and a check per job took two or three each. With {@link Lock#ROW} the {@code UPDATE} is itself
 * the row lock, and under READ COMMITTED it evaluates the rule on the row version it locked, so
 * the check and the write are one step under that lock. With {@link Lock#ADVISORY} the batch
 * first takes the advisory locks of all its jobs, in one statement: a claim of one of them checks
 * under that lock and then writes without a condition, so the lock must keep the completion out
 * of that window.
 */
final class PostgresTransactionProtocol implements WriteProtocol {

    /** What the transaction locks before it checks the rule. */
    enum Lock {
        /** The job's row, with {@code SELECT (rule) ... FOR UPDATE}. */
        ROW,
        /** The job's advisory lock; the check is then a plain read. */
        ADVISORY
    }

    private final Lock lock;
    private final String enqueue;
    private final CheckedWrites statements;
    private final String advisoryLock;
    private final String pick;
    private final String advisoryLocks;
    private final String claimPicked;
    private final ConditionalUpdateProtocol compareAndSet;

    /**
     * The advisory lock of the queue, of the two-integer form like the store's schema lock, so
     * it never collides with a job's one-bigint lock; the numbers are "leas" and "queu" in ASCII.
     */
    static final String QUEUE_LOCK = "SELECT pg_advisory_xact_lock(1818583411, 1903519093)";

    PostgresTransactionProtocol(LeaseSql sql, Lock lock) {
        this.lock = lock;
        this.enqueue = sql.enqueue();
        this.statements = CheckedWrites.of(sql, this::check);
        this.advisoryLock = LeaseSql.advisoryLock();
        String ids = sql.nextClaimableIds(LockingStrategy.Engine.POSTGRESQL);
        this.pick = lock == Lock.ROW ? ids + " FOR UPDATE SKIP LOCKED" : ids;
        this.advisoryLocks = LeaseSql.advisoryLocksInOrder();
        this.claimPicked = sql.claimPicked();
        this.compareAndSet = new ConditionalUpdateProtocol(sql, LockingStrategy.Engine.POSTGRESQL);
    }

    private String check(String rule) {
        return lock == Lock.ROW ? LeaseSql.lockAndCheck(rule) : LeaseSql.check(rule);
    }

    @Override
    public boolean enqueue(Session s, String id) throws SQLException {
        return s.update(enqueue, id) == 1;
    }

    @Override
    public OptionalLong claim(Session s, String id, String owner, double now, double until) throws SQLException {
        return inTransaction(s, id, () -> allowed(s, statements.claimCheck(), id, owner, now, until)
                ? s.firstLong(statements.claimWrite(), id, owner, now, until)
                : OptionalLong.empty());
    }

    @Override
    public List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException {
        return s.inTransaction(() -> {
            if (lock == Lock.ADVISORY) {
                s.execute(QUEUE_LOCK);
            }
            return claimPicked(s, s.strings(pick, max, owner, now, until), owner, now, until);
        });
    }

    /** The picked jobs, locked, claimed in one statement where the rule still holds; in the order picked. */
    private List<Lease> claimPicked(Session s, List<String> picked, String owner, double now, double until) throws SQLException {
        if (picked.isEmpty()) {
            return List.of();
        }
        String[] ids = picked.toArray(String[]::new);
        if (lock == Lock.ADVISORY) {
            // In job-id order, as completeAll takes them (the store sorts its batch so), not in
            // queue order: a claimNext and a stale holder's completeAll that share two jobs would
            // otherwise take their locks in opposite orders and deadlock.
            s.strings(advisoryLocks, (Object) picked.stream().sorted().toArray(String[]::new));
        }
        Map<String, Long> fences = new HashMap<>();
        try (ResultSet rows = s.query(claimPicked, ids, owner, now, until)) {
            while (rows.next()) {
                fences.put(rows.getString(1), rows.getLong(2));
            }
        }
        List<Lease> leases = new ArrayList<>(fences.size());
        for (String id : picked) {
            Long fence = fences.get(id);
            if (fence != null) {
                leases.add(new Lease(id, owner, fence, until));
            }
        }
        return leases;
    }

    @Override
    public boolean renew(Session s, String id, String owner, long fence, double now, double until) throws SQLException {
        return inTransaction(s, id, () -> allowed(s, statements.renewCheck(), id, owner, fence, now, until)
                && s.update(statements.renewWrite(), id, owner, fence, now, until) == 1);
    }

    @Override
    public boolean complete(Session s, String id, String owner, long fence, double now, String result) throws SQLException {
        return inTransaction(s, id, () -> allowed(s, statements.completeCheck(), id, owner, fence, now, result)
                && s.update(statements.completeWrite(), id, owner, fence, now, result) == 1);
    }

    @Override
    public List<Boolean> completeAll(Session s, List<Completion> completions, double now) throws SQLException {
        return s.inTransaction(() -> {
            if (lock == Lock.ADVISORY) {
                s.strings(advisoryLocks, (Object) completions.stream().map(Completion::jobId).toArray(String[]::new));
            }
            return compareAndSet.completeEach(s, completions, now);
        });
    }

    @Override
    public boolean release(Session s, String id, String owner, long fence) throws SQLException {
        return inTransaction(s, id, () -> allowed(s, statements.releaseCheck(), id, owner, fence)
                && s.update(statements.releaseWrite(), id, owner, fence) == 1);
    }

    /** Runs the check: the row lock's check answers true or false, the plain one finds a row or not. */
    private boolean allowed(Session s, String check, Object... arguments) throws SQLException {
        return lock == Lock.ROW ? s.firstBoolean(check, arguments) : s.exists(check, arguments);
    }

    /** The work in a transaction that first takes the job's advisory lock, if that is the lock. */
    private <T> T inTransaction(Session s, String id, Session.Work<T> work) throws SQLException {
        return s.inTransaction(() -> {
            if (lock == Lock.ADVISORY) {
                s.execute(advisoryLock, id);
            }
            return work.run();
        });
    }
}
