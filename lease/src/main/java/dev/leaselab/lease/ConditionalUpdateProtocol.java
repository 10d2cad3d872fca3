package dev.leaselab.lease;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * One autocommit statement per operation, with the rule in its {@code WHERE} clause: SQLite
 * evaluates the rule and writes the effect under its write lock, so nothing can come between the
 * check and the write. PostgreSQL (READ COMMITTED) locks the row before it writes, and a statement
 * that had to wait for another writer's lock evaluates the {@code WHERE} again on the row as that
 * writer committed it: the same compare-and-set. claimNext is one statement too
 * ({@link LeaseSql#claimNextInOneStatement}); on PostgreSQL its pick is {@code FOR UPDATE SKIP LOCKED}.
 */
final class ConditionalUpdateProtocol implements WriteProtocol {

    private final String enqueue;
    private final String claim;
    private final String renew;
    private final String complete;
    private final String release;
    private final String claimNext;
    private final LockingStrategy.Engine engine;

    ConditionalUpdateProtocol(LeaseSql sql, LockingStrategy.Engine engine) {
        this.engine = engine;
        this.enqueue = sql.enqueue();
        this.claimNext = sql.claimNextInOneStatement(engine);
        this.claim = claimStatement(sql);
        this.renew = LeaseSql.compareAndSet(sql.renewEffect(), sql.renewable());
        this.complete = LeaseSql.compareAndSet(sql.completeEffect(), sql.completable());
        this.release = LeaseSql.compareAndSet(sql.releaseEffect(), sql.releasable());
    }

    /** The one statement of a claim: the compare-and-set that hands out the next fence. */
    static String claimStatement(LeaseSql sql) {
        return LeaseSql.compareAndSet(sql.claimEffect(), sql.claimable()) + " RETURNING fence";
    }

    @Override
    public boolean enqueue(Session s, String id) throws SQLException {
        return s.update(enqueue, id) == 1;
    }

    @Override
    public OptionalLong claim(Session s, String id, String owner, double now, double until) throws SQLException {
        return s.firstLong(claim, id, owner, now, until);
    }

    @Override
    public List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException {
        record Claimed(Lease lease, double place) {}
        List<Claimed> claimed = new ArrayList<>();
        try (ResultSet rows = s.query(claimNext, max, owner, now, until)) {
            while (rows.next()) {
                claimed.add(new Claimed(new Lease(rows.getString(1), owner, rows.getLong(2), until), rows.getDouble(3)));
            }
        }
        // RETURNING rows come in no particular order: put them back in the queue's.
        claimed.sort(Comparator.comparingDouble(Claimed::place).thenComparing(c -> c.lease().jobId()));
        return claimed.stream().map(Claimed::lease).toList();
    }

    @Override
    public boolean renew(Session s, String id, String owner, long fence, double now, double until) throws SQLException {
        return s.update(renew, id, owner, fence, now, until) == 1;
    }

    @Override
    public boolean complete(Session s, String id, String owner, long fence, double now, String result) throws SQLException {
        return s.update(complete, id, owner, fence, now, result) == 1;
    }

    /**
     * The one place where this strategy opens a transaction: the compare-and-sets of the batch
     * share it and its commit. On SQLite it is {@code BEGIN IMMEDIATE}, which takes the write lock
     * before the first statement, so the batch cannot fail half-way on a lock that another writer
     * took in between.
     */
    @Override
    public List<Boolean> completeAll(Session s, List<Completion> completions, double now) throws SQLException {
        if (engine == LockingStrategy.Engine.SQLITE) {
            s.execute("BEGIN IMMEDIATE");
            try {
                List<Boolean> accepted = completeEach(s, completions, now);
                s.execute("COMMIT");
                return accepted;
            } catch (SQLException | RuntimeException e) {
                s.rollbackQuietly();
                throw e;
            }
        }
        return s.inTransaction(() -> completeEach(s, completions, now));
    }

    /**
     * The compare-and-set of each completion, in the caller's transaction, sent as one JDBC batch
     * (on PostgreSQL one round trip for the whole list).
     */
    List<Boolean> completeEach(Session s, List<Completion> completions, double now) throws SQLException {
        List<Object[]> arguments = new ArrayList<>(completions.size());
        for (Completion c : completions) {
            arguments.add(new Object[] {c.jobId(), c.owner(), c.fence(), now, c.result()});
        }
        int[] changed = s.updateEach(complete, arguments);
        List<Boolean> accepted = new ArrayList<>(changed.length);
        for (int rows : changed) {
            accepted.add(rows == 1);
        }
        return accepted;
    }

    @Override
    public boolean release(Session s, String id, String owner, long fence) throws SQLException {
        return s.update(release, id, owner, fence) == 1;
    }
}
