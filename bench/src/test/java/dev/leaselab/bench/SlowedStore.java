package dev.leaselab.bench;

import dev.leaselab.lease.JobState;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.SqliteLeaseStore;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A deliberately slowed store for the gate's negative control: every third operation is followed
 * by one more claim, of a job of its own that nobody reads, so the store does four claims' work for
 * every three it is asked for and runs at 0.75x wherever a claim costs the same whichever job it
 * claims: at one thread and at eight, under every strategy and storage, with the same statements,
 * locks and fsyncs as the claims it imitates. (Spinning for a quarter of each operation's time,
 * the earlier version, slowed eight threads on two cores to 0.09-0.56x: a spinning thread takes the
 * CPU from the others.) Test code only; selected with
 * {@code -Dleaselab.bench.decorator=dev.leaselab.bench.SlowedStore}. With
 * {@code -Dleaselab.bench.decorator.only=STRATEGY} only the stores of that strategy are slowed,
 * so that a gate run can be given exactly one slower row per storage.
 */
public final class SlowedStore implements UnaryOperator<LeaseStore> {

    /** Every how many operations one more claim is made. */
    static final int EVERY = 3;
    /**
     * Overrides {@link #EVERY}: 1 makes the store do two claims' work for every one (0.5x), for a
     * test that must catch the slowdown in one short run, not in 19 of 20.
     */
    static final String EVERY_PROPERTY = "leaselab.bench.decorator.every";
    /**
     * How many more claims each time (default 1): with {@link #EVERY_PROPERTY} 1 and 3 here the store
     * runs at 0.25x, which one short run under a loaded machine still tells from noise.
     */
    static final String SHADOWS_PROPERTY = "leaselab.bench.decorator.shadows";
    static final String SHADOW_JOB = "slowed-store-shadow";
    /** The shadow's lease is this short and its clock steps by it, so that claims in turn all win. */
    private static final double SHADOW_TTL = 1;

    @Override
    public LeaseStore apply(LeaseStore store) {
        String only = System.getProperty(BenchDb.DECORATOR_ONLY_PROPERTY);
        if (only != null && !only.isBlank() && !(store instanceof SqliteLeaseStore s && s.strategy().name().equals(only))) {
            return store;
        }
        store.enqueue(SHADOW_JOB);
        int every = Integer.getInteger(EVERY_PROPERTY, EVERY);
        int shadows = Integer.getInteger(SHADOWS_PROPERTY, 1);
        if (every < 1 || shadows < 1) {
            throw new IllegalArgumentException(EVERY_PROPERTY + " and " + SHADOWS_PROPERTY + " must be at least 1: " + every + ", " + shadows);
        }
        return new Slowed(store, every, shadows, new AtomicLong(), new AtomicLong());
    }

    private record Slowed(LeaseStore delegate, int every, int shadows, AtomicLong operations, AtomicLong shadowClock)
            implements LeaseStore {

        private <T> T slow(Supplier<T> op) {
            T result = op.get();
            if (operations.incrementAndGet() % every == 0) {
                for (int i = 0; i < shadows; i++) {
                    delegate.claim(SHADOW_JOB, "slowed", shadowClock.getAndIncrement() * SHADOW_TTL, SHADOW_TTL);
                }
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
        public List<Lease> claimNext(String owner, double now, double ttl, int max) {
            return slow(() -> delegate.claimNext(owner, now, ttl, max));
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
