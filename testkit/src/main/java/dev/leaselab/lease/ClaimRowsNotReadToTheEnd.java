package dev.leaselab.lease;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * A broken protocol for the kill matrix: every claim is the one-statement compare-and-set with
 * {@code RETURNING fence}, whose row is read and whose statement is then closed without running
 * to its end, as {@code Session.firstLong} once did. Every answer is right; only SQLite's WAL
 * checkpoint after the commit never happens, so the WAL grows by a page per claim.
 */
final class ClaimRowsNotReadToTheEnd extends ForwardingProtocol {

    private final String claim;

    ClaimRowsNotReadToTheEnd(WriteProtocol delegate, LeaseSql sql) {
        super(delegate);
        this.claim = ConditionalUpdateProtocol.claimStatement(sql);
    }

    @Override
    public OptionalLong claim(Session s, String id, String owner, double now, double until) throws SQLException {
        try (ResultSet rows = s.query(claim, id, owner, now, until)) {
            return rows.next() ? OptionalLong.of(rows.getLong(1)) : OptionalLong.empty();
        }
    }
}
