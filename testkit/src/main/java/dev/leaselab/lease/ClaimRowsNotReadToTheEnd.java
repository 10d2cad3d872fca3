package dev.leaselab.lease;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * A broken protocol for the kill matrix: every claim is the one-statement compare-and-set with
 * {@code RETURNING fence}, whose row is read and whose statement is then closed without running
 * to its end, as {@code Session.firstLong} once did. Every answer is right; only SQLite's WAL
 * checkpoint after the commit never happens, so the WAL grows by a page per claim.
 */
final class ClaimRowsNotReadToTheEnd implements WriteProtocol {

    private final WriteProtocol delegate;
    private final String claim;

    ClaimRowsNotReadToTheEnd(WriteProtocol delegate, LeaseSql sql) {
        this.delegate = delegate;
        this.claim = ConditionalUpdateProtocol.claimStatement(sql);
    }

    @Override
    public boolean enqueue(Session s, String id) throws SQLException {
        return delegate.enqueue(s, id);
    }

    @Override
    public OptionalLong claim(Session s, String id, String owner, double now, double until) throws SQLException {
        try (ResultSet rows = s.query(claim, id, owner, now, until)) {
            return rows.next() ? OptionalLong.of(rows.getLong(1)) : OptionalLong.empty();
        }
    }

    @Override
    public List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException {
        return delegate.claimNext(s, owner, now, until, max);
    }

    @Override
    public boolean renew(Session s, String id, String owner, long fence, double now, double until) throws SQLException {
        return delegate.renew(s, id, owner, fence, now, until);
    }

    @Override
    public boolean complete(Session s, String id, String owner, long fence, double now, String result) throws SQLException {
        return delegate.complete(s, id, owner, fence, now, result);
    }

    @Override
    public boolean release(Session s, String id, String owner, long fence) throws SQLException {
        return delegate.release(s, id, owner, fence);
    }
}
