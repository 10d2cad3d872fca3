package dev.leaselab.lease;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Passes every call to another store. Broken variants, and test stores that change one behaviour,
 * override the one method they change.
 */
public class ForwardingLeaseStore implements LeaseStore {

    /** The store every call goes to. */
    protected final LeaseStore delegate;

    /** Forwards to {@code delegate}. */
    public ForwardingLeaseStore(LeaseStore delegate) {
        this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public boolean enqueue(String jobId) {
        return delegate.enqueue(jobId);
    }

    @Override
    public Optional<JobState> state(String jobId) {
        return delegate.state(jobId);
    }

    @Override
    public OptionalLong claim(String jobId, String owner, double now, double ttl) {
        return delegate.claim(jobId, owner, now, ttl);
    }

    @Override
    public List<Lease> claimNext(String owner, double now, double ttl, int max) {
        return delegate.claimNext(owner, now, ttl, max);
    }

    @Override
    public boolean renew(String jobId, String owner, long fence, double now, double ttl) {
        return delegate.renew(jobId, owner, fence, now, ttl);
    }

    @Override
    public boolean complete(String jobId, String owner, long fence, double now, String result) {
        return delegate.complete(jobId, owner, fence, now, result);
    }

    @Override
    public List<Boolean> completeAll(List<Completion> completions, double now) {
        return delegate.completeAll(completions, now);
    }

    @Override
    public boolean release(String jobId, String owner, long fence) {
        return delegate.release(jobId, owner, fence);
    }

    @Override
    public List<OptionalLong> claimMany(String jobId, List<String> owners, double now, double ttl) {
        return delegate.claimMany(jobId, owners, now, ttl);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }
}
