package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * Passes every write to the protocol of a real strategy. A broken protocol of the kill matrix
 * overrides the one write it breaks, as {@link ForwardingLeaseStore} does for stores.
 */
abstract class ForwardingProtocol implements WriteProtocol {

    final WriteProtocol delegate;

    ForwardingProtocol(WriteProtocol delegate) {
        this.delegate = delegate;
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
    public List<Boolean> completeAll(Session s, List<Completion> completions, double now) throws SQLException {
        return delegate.completeAll(s, completions, now);
    }

    @Override
    public boolean release(Session s, String id, String owner, long fence) throws SQLException {
        return delegate.release(s, id, owner, fence);
    }
}
