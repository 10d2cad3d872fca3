package dev.leaselab.bench;

import dev.leaselab.lease.Completion;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * The leaselab side of {@link PeerDrainMain}: {@code jobs} fresh jobs written in one transaction
 * ({@link BenchDb#insertJobs}, as the queue benchmark fills its queue), then {@code threads} workers
 * that each loop {@code claimNext(owner, now, ttl, batch)} and {@code complete} every job it handed
 * out, one at a time ({@link Completes#EACH}) or all in one {@code completeAll} ({@link Completes#ALL}),
 * until {@code claimNext} finds nothing. A batch of more than one is what
 * db-scheduler's polling does too: it fetches up to a multiple of its thread count per poll. The
 * database is {@link BenchDb}'s: a fresh SQLite file with the storage's PRAGMAs and the
 * benchmarks' 1 s busy timeout, or a fresh PostgreSQL schema.
 *
 * <p>The clock stands still at {@link #NOW} with a {@link #TTL} of a minute, as in
 * {@link QueueBenchmark}: no lease can expire during a drain, so a job is handed out twice only if
 * the store is wrong, and a lease whose complete failed stays held and shows up as {@code left}.
 */
final class LeaselabDrain {

    static final double NOW = QueueBenchmark.NOW;
    static final double TTL = QueueBenchmark.TTL;
    /** How long the workers read before the clock starts, to open the pool's connections. */
    static final long WARM_UP_NANOS = 300_000_000;

    /** A worker that failed this many times in a row gives up, so that a broken store ends the round. */
    private static final int CONSECUTIVE_ERRORS_TO_GIVE_UP = 1_000;

    private LeaselabDrain() {}

    /** How a worker completes the jobs one claimNext handed it. */
    enum Completes {
        /** One {@code complete} per job: a commit per job. */
        EACH,
        /** One {@code completeAll} for the whole batch: a commit per batch. */
        ALL
    }

    static String systemName(LockingStrategy strategy) {
        return systemName(strategy, 1, Completes.EACH);
    }

    /**
     * The system's name in the tables: the strategy, the batch when a claimNext asks for more than
     * one job, and "completeAll" when the batch is completed in one call.
     */
    static String systemName(LockingStrategy strategy, int batch, Completes completes) {
        return "leaselab " + strategy.name() + (batch == 1 ? "" : " batch " + batch)
                + (completes == Completes.ALL ? " completeAll" : "");
    }

    /**
     * Runs one round on a fresh database.
     *
     * @param batch the most jobs one {@code claimNext} asks for
     * @param decorator wraps the store; the identity except in tests that prove the counters count
     */
    static PeerRound run(LockingStrategy strategy, int batch, Storage storage, int jobs, int threads, int round,
                         Duration deadline, UnaryOperator<LeaseStore> decorator) throws InterruptedException {
        return run(strategy, batch, Completes.EACH, storage, jobs, threads, round, deadline, decorator);
    }

    /** @param completes whether a worker completes its batch job by job or in one completeAll */
    static PeerRound run(LockingStrategy strategy, int batch, Completes completes, Storage storage, int jobs, int threads,
                         int round, Duration deadline, UnaryOperator<LeaseStore> decorator) throws InterruptedException {
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be at least 1: " + batch);
        }
        try (BenchDb db = BenchDb.open(strategy, storage)) {
            long prefillStart = System.nanoTime();
            String[] ids = new String[jobs];
            for (int i = 0; i < jobs; i++) {
                ids[i] = "job-" + i;
            }
            db.insertJobs(ids, null, 0);
            if (storage == Storage.POSTGRESQL) {
                analyze(db);
            }
            double prefillSeconds = (System.nanoTime() - prefillStart) / 1e9;

            LeaseStore store = decorator.apply(db.store());
            ExecutionTally tally = new ExecutionTally();
            CountDownLatch warm = new CountDownLatch(threads);
            CountDownLatch go = new CountDownLatch(1);
            AtomicLong lastCompletion = new AtomicLong(Long.MIN_VALUE);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String owner = "worker-" + t;
                Thread worker = new Thread(() -> {
                    warmUp(store, warm);
                    work(store, owner, batch, completes, tally, go, lastCompletion);
                },
                        "leaselab-drain-" + t);
                worker.setDaemon(true);
                workers.add(worker);
                worker.start();
            }
            warm.await();
            long start = System.nanoTime();
            go.countDown();
            long deadlineNanos = start + deadline.toNanos();
            boolean timedOut = false;
            for (Thread worker : workers) {
                long wait = deadlineNanos - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.timedJoin(worker, wait);
                }
                if (worker.isAlive()) {
                    timedOut = true;
                }
            }
            if (timedOut) {
                workers.forEach(Thread::interrupt);
            }
            long end = lastCompletion.get() == Long.MIN_VALUE ? System.nanoTime() : lastCompletion.get();
            long left = notDone(db);
            return PeerRound.of(systemName(strategy, batch, completes), storage.name(), threads, round, jobs, start, end, tally, left,
                    timedOut, prefillSeconds);
        }
    }

    /**
     * Reads with every worker at once for {@link #WARM_UP_NANOS} before the clock starts. The
     * store's pool opens a connection when an operation first needs one (on PostgreSQL a new
     * backend), while db-scheduler's pool is filled before its start ({@link DbSchedulerDrain}):
     * so that both systems start with their connections open. (Suspected of making short
     * PostgreSQL drains slower per job than long ones, it was not the cause: the missing
     * statistics were, see {@link #analyze}.)
     */
    private static void warmUp(LeaseStore store, CountDownLatch warm) {
        try {
            long end = System.nanoTime() + WARM_UP_NANOS;
            while (System.nanoTime() - end < 0) {
                store.state("warm-up");
            }
        } finally {
            warm.countDown();
        }
    }

    private static void work(LeaseStore store, String owner, int batch, Completes completes, ExecutionTally tally,
                             CountDownLatch go, AtomicLong lastCompletion) {
        try {
            go.await();
        } catch (InterruptedException e) {
            return;
        }
        int consecutiveErrors = 0;
        while (!Thread.currentThread().isInterrupted() && consecutiveErrors < CONSECUTIVE_ERRORS_TO_GIVE_UP) {
            List<Lease> next;
            try {
                next = store.claimNext(owner, NOW, TTL, batch);
            } catch (RuntimeException e) {
                tally.error("claimNext threw", e);
                consecutiveErrors++;
                continue;
            }
            if (next.isEmpty()) {
                return;
            }
            if (completes == Completes.ALL) {
                consecutiveErrors = completeAll(store, next, tally, lastCompletion) ? 0 : consecutiveErrors + 1;
                continue;
            }
            for (Lease lease : next) {
                // The no-op job: its work is only to be counted.
                tally.ran(lease.jobId());
                try {
                    if (store.complete(lease.jobId(), lease.owner(), lease.fence(), NOW, "ok")) {
                        tally.accepted(lease.jobId());
                        lastCompletion.accumulateAndGet(System.nanoTime(), Math::max);
                    } else {
                        tally.refused();
                    }
                    consecutiveErrors = 0;
                } catch (RuntimeException e) {
                    tally.error("complete threw", e);
                    consecutiveErrors++;
                }
            }
        }
    }

    /** Runs the batch's no-op jobs and completes them in one call; false if the call threw. */
    private static boolean completeAll(LeaseStore store, List<Lease> leases, ExecutionTally tally, AtomicLong lastCompletion) {
        List<Completion> completions = new ArrayList<>(leases.size());
        for (Lease lease : leases) {
            tally.ran(lease.jobId());
            completions.add(Completion.of(lease, "ok"));
        }
        List<Boolean> accepted;
        try {
            accepted = store.completeAll(completions, NOW);
        } catch (RuntimeException e) {
            tally.error("completeAll threw", e);
            return false;
        }
        for (int i = 0; i < accepted.size(); i++) {
            if (accepted.get(i)) {
                tally.accepted(leases.get(i).jobId());
            } else {
                tally.refused();
            }
        }
        lastCompletion.accumulateAndGet(System.nanoTime(), Math::max);
        return true;
    }

    /**
     * Gives PostgreSQL's planner the statistics of the prefilled table, as autovacuum has them for
     * a queue that has been running; db-scheduler's table gets the same ({@link DbSchedulerDrain}).
     * Without them claimNext was planned for a table of unknown size, and a drain of 20,000 jobs at
     * 8 threads ran at 11-13k jobs/s instead of 19-22k (results/peer-complete-all-20261205).
     */
    private static void analyze(BenchDb db) {
        try (Connection c = db.borrowForSetup(); Statement s = c.createStatement()) {
            s.execute("ANALYZE jobs");
        } catch (SQLException e) {
            throw new IllegalStateException("could not analyze the jobs of " + db.where(), e);
        }
    }

    private static long notDone(BenchDb db) {
        try (Connection c = db.borrowForSetup(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM jobs WHERE done = 0")) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("could not count the jobs left in " + db.where(), e);
        }
    }
}
