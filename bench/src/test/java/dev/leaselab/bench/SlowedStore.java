package dev.leaselab.bench;

import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.SqliteLeaseStore;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A deliberately slowed store for the gate's negative control: after every operation it spins
 * for a quarter of the time that operation took, so each operation does 25% more work and a single
 * thread runs at 0.8x. Test code only; selected with {@code -Dleaselab.bench.decorator=dev.leaselab.bench.SlowedStore}.
 * With {@code -Dleaselab.bench.decorator.only=STRATEGY} only the stores of that strategy are slowed,
 * so that a gate run can be given exactly one slower row per storage.
 */
public final class SlowedStore implements UnaryOperator<LeaseStore> {

    static final double EXTRA = 0.25;

    @Override
    public LeaseStore apply(LeaseStore store) {
        String only = System.getProperty(BenchDb.DECORATOR_ONLY_PROPERTY);
        if (only != null && !only.isBlank() && !(store instanceof SqliteLeaseStore s && s.strategy().name().equals(only))) {
            return store;
        }
        return new Slowed(store);
    }

    private record Slowed(LeaseStore delegate) implements LeaseStore {

        private static <T> T slow(Supplier<T> op) {
            long start = System.nanoTime();
            T result = op.get();
            long until = System.nanoTime() + (long) ((System.nanoTime() - start) * EXTRA);
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            return result;
        }

        @Override
        public boolean enqueue(String jobId) {
            return slow(() -> delegate.enqueue(jobId));
        }

        @Override
        public Optional<JobState> state(String jobId) {
            return slow(() -> delegate.state(jobId));
        }

        @Override
        public OptionalLong claim(String jobId, String owner, double now, double ttl) {
            return slow(() -> delegate.claim(jobId, owner, now, ttl));
        }

        @Override
        public boolean renew(String jobId, String owner, long fence, double now, double ttl) {
            return slow(() -> delegate.renew(jobId, owner, fence, now, ttl));
        }

        @Override
        public boolean complete(String jobId, String owner, long fence, double now, String result) {
            return slow(() -> delegate.complete(jobId, owner, fence, now, result));
        }

        @Override
        public boolean release(String jobId, String owner, long fence) {
            return slow(() -> delegate.release(jobId, owner, fence));
        }

        @Override
        public List<OptionalLong> claimMany(String jobId, List<String> owners, double now, double ttl) {
            return slow(() -> delegate.claimMany(jobId, owners, now, ttl));
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
