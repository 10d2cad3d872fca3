package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * A broken protocol for the kill matrix: claimNext picks its jobs in one autocommit statement and
 * claims each in another, with the unconditional write of the transactional strategies. Between
 * the pick and the write another worker picks the same job, and both are handed it. Every other
 * operation is the strategy's own.
 */
final class ClaimNextReadThenWrite implements WriteProtocol {

    private final WriteProtocol delegate;
    private final String pick;
    private final String write;

    ClaimNextReadThenWrite(WriteProtocol delegate, LeaseSql sql) {
        this.delegate = delegate;
        this.pick = sql.nextClaimableIds(LockingStrategy.Engine.SQLITE);
        this.write = LeaseSql.write(sql.claimEffect()) + " RETURNING fence";
    }

    @Override
    public List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException {
        List<Lease> leases = new ArrayList<>();
        for (String id : s.strings(pick, max, owner, now, until)) {
            OptionalLong fence = s.firstLong(write, id, owner, now, until);
            if (fence.isPresent()) {
                leases.add(new Lease(id, owner, fence.getAsLong(), until));
            }
        }
        return leases;
    }

    @Override
    public boolean enqueue(Session s, String id) throws SQLException {
        return delegate.enqueue(s, id);
    }

    @Override
    public OptionalLong claim(Session s, String id, String owner, double now, double until) throws SQLException {
        return delegate.claim(s, id, owner, now, until);
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
