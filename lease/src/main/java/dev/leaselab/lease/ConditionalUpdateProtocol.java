package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * One autocommit statement per operation, with the rule in its {@code WHERE} clause: SQLite
 * evaluates the rule and writes the effect under its write lock, so nothing can come between the
 * check and the write. PostgreSQL (READ COMMITTED) locks the row before it writes, and a statement
 * that had to wait for another writer's lock evaluates the {@code WHERE} again on the row as that
 * writer committed it: the same compare-and-set.
 */
final class ConditionalUpdateProtocol implements WriteProtocol {

    private final String enqueue;
    private final String claim;
    private final String renew;
    private final String complete;
    private final String release;

    ConditionalUpdateProtocol(LeaseSql sql) {
        this.enqueue = sql.enqueue();
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
    public boolean renew(Session s, String id, String owner, long fence, double now, double until) throws SQLException {
        return s.update(renew, id, owner, fence, now, until) == 1;
    }

    @Override
    public boolean complete(Session s, String id, String owner, long fence, double now, String result) throws SQLException {
        return s.update(complete, id, owner, fence, now, result) == 1;
    }

    @Override
    public boolean release(Session s, String id, String owner, long fence) throws SQLException {
        return s.update(release, id, owner, fence) == 1;
    }
}
