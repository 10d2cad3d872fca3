package dev.leaselab.bench;

import dev.leaselab.lease.ForwardingLeaseStore;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * A deliberately broken store for {@link PeerDrainTest}'s negative control: every
 * {@value #EVERY}th {@code claimNext} hands out the lease it completed last once more, and accepts
 * its completion again, as a store that forgot a job was done would. A drain on it must report
 * duplicate runs and duplicate accepted completions.
 */
final class ForgetfulStore implements UnaryOperator<LeaseStore> {

    static final int EVERY = 25;

    @Override
    public LeaseStore apply(LeaseStore store) {
        return new Forgetful(store);
    }

    /** Only the two operations it breaks; everything else goes to the real store. */
    private static final class Forgetful extends ForwardingLeaseStore {
        private final AtomicLong claims = new AtomicLong();
        private final AtomicReference<Lease> lastCompleted = new AtomicReference<>();

        Forgetful(LeaseStore delegate) {
            super(delegate);
        }

        @Override
        public List<Lease> claimNext(String owner, double now, double ttl, int max) {
            Lease again = lastCompleted.get();
            if (again != null && claims.incrementAndGet() % EVERY == 0) {
                return List.of(new Lease(again.jobId(), owner, again.fence(), again.until()));
            }
            return delegate.claimNext(owner, now, ttl, max);
        }

        @Override
        public boolean complete(String jobId, String owner, long fence, double now, String result) {
            Lease again = lastCompleted.get();
            if (again != null && again.jobId().equals(jobId) && again.fence() == fence) {
                return true;
            }
            boolean accepted = delegate.complete(jobId, owner, fence, now, result);
            if (accepted) {
                lastCompleted.set(new Lease(jobId, owner, fence, now + 1));
            }
            return accepted;
        }
    }
}
