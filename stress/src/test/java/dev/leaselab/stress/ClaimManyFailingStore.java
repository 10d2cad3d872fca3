package dev.leaselab.stress;

import dev.leaselab.lease.ForwardingLeaseStore;
import dev.leaselab.lease.LeaseStore;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * A store whose {@code claimMany} breaks in a way no shipped broken variant does: it throws. Every
 * other call goes to the store underneath, so the rest of a race stays correct and only the
 * driver's judgement of claimMany rounds can tell this store apart from a good one.
 */
final class ClaimManyFailingStore extends ForwardingLeaseStore {

    private final IntFunction<RuntimeException> failure;
    private final AtomicInteger calls = new AtomicInteger();

    /**
     * @param failure what the n-th call of {@code claimMany} (from 1) throws, or null to let that
     *     call through
     */
    ClaimManyFailingStore(LeaseStore delegate, IntFunction<RuntimeException> failure) {
        super(delegate);
        this.failure = failure;
    }

    @Override
    public List<OptionalLong> claimMany(String jobId, List<String> owners, double now, double ttl) {
        RuntimeException thrown = failure.apply(calls.incrementAndGet());
        if (thrown != null) {
            throw thrown;
        }
        return delegate.claimMany(jobId, owners, now, ttl);
    }
}
