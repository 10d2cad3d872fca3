package dev.leaselab.stress;

import dev.leaselab.lease.BrokenStore;
import dev.leaselab.lease.Completion;
import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.Overlaps;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Workers drain a queue with {@code claimNext}, as the users of a job queue run them: threads of
 * one process take the next free job, renew it now and then, and complete it; now and then one
 * stalls on a job past its lease, so that the job comes round again to another worker, who must be
 * able to finish it, while the staller's late complete must be refused.
 *
 * <p>Each round enqueues {@link Settings#jobsPerRound()} jobs and runs two phases, every worker
 * starting each at a gate:
 * <ol>
 *   <li>at {@code now = t}: the workers drain the queue; each job they are handed is completed
 *       (after a renew every other time) or, one time in {@value #STALL_ONE_IN}, left held: its
 *       worker stalls;
 *   <li>at {@code now = t + TTL}, the instant every stalled lease has run out: the workers drain
 *       again and so take the stalled jobs over. The worker that takes one first sends the
 *       staller's complete with its old fence (a stale write after a takeover: it must be
 *       refused), then completes the job itself.
 * </ol>
 * After a round every job must be done. Reported besides the {@link RaceResult}: the jobs, the
 * duplicate executions (a job handed out more than once: the stalled ones, expected and counted),
 * the duplicate accepted completions (must be 0) and the stale completes refused. A
 * {@code claimNext} call is a race; the calls that overlapped another in time are counted, since
 * a drain whose calls never met proves nothing. The {@link HistoryChecker} judges the whole
 * history, in which each lease handed out is a claim of its job, and the final rows.
 */
public final class DrainRaceDriver {

    /** The lease time, in the driver's logical clock. */
    static final double TTL = 10;

    /** One job in this many is left to stall in the first phase of a round. */
    static final int STALL_ONE_IN = 5;

    /** The SQLite controls this driver must catch, on {@link LockingStrategy#IMMEDIATE}: each breaks a guard the drain exercises. */
    public static final List<BrokenStore> CONTROLS = List.of(
            BrokenStore.CLAIM_NEXT_READ_THEN_WRITE,
            BrokenStore.CLAIM_NEXT_HANDS_OUT_DONE_JOBS,
            BrokenStore.CLAIM_NEXT_SKIPS_EXPIRED_LEASES,
            BrokenStore.COMPLETE_WITHOUT_FENCE_CHECK,
            BrokenStore.CLAIM_READ_THEN_WRITE);

    /**
     * @param workers threads that drain the queue (at least 2)
     * @param jobsPerRound jobs enqueued per round (at least 1)
     * @param duration how long to run rounds
     * @param maxRounds stop after this many rounds even if time is left
     * @param seed for the workers' choices (batch sizes, which jobs stall, renews)
     */
    public record Settings(int workers, int jobsPerRound, Duration duration, long maxRounds, long seed) {
        public Settings {
            if (workers < 2) {
                throw new IllegalArgumentException("workers must be at least 2: " + workers);
            }
            if (jobsPerRound < 1) {
                throw new IllegalArgumentException("jobsPerRound must be at least 1: " + jobsPerRound);
            }
            Objects.requireNonNull(duration, "duration");
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("duration must be positive: " + duration);
            }
            if (maxRounds < 1) {
                throw new IllegalArgumentException("maxRounds must be at least 1: " + maxRounds);
            }
        }

        /** The same settings with another seed: a race again that is not the same race. */
        public Settings withSeed(long newSeed) {
            return new Settings(workers, jobsPerRound, duration, maxRounds, newSeed);
        }
    }

    /**
     * What a drain run saw.
     *
     * @param race the race result: races are claimNext calls, overlapping ones counted
     * @param rounds rounds run
     * @param jobs jobs enqueued
     * @param duplicateExecutions jobs handed out once more than once each: work that started twice
     * @param duplicateAcceptedCompletions completions accepted beyond the first of a job (0 on a correct store)
     * @param staleCompletesRefused stallers' completes after a takeover that the store refused
     * @param completeAllCalls batches of completes sent in one completeAll
     * @param staleRefusedInABatch of the stale completes refused, those that stood in a completeAll
     *     next to the taker's own complete
     */
    public record DrainResult(RaceResult race, long rounds, long jobs, long duplicateExecutions,
            long duplicateAcceptedCompletions, long staleCompletesRefused, long completeAllCalls,
            long staleRefusedInABatch) implements DrainOutcome {

        @Override
        public String unproven() {
            if (race.racesWithOverlap() == 0) {
                return "no claimNext call overlapped another worker's, in " + race.races() + " calls: the workers never raced";
            }
            if (staleCompletesRefused == 0) {
                return "no stalled job was taken over with its staller's late complete refused, in " + rounds
                        + " rounds: the stalls proved nothing";
            }
            return null;
        }

        @Override
        public String summary() {
            return String.format(Locale.ROOT, "%d jobs in %d rounds, %d duplicate executions, %d duplicate accepted "
                            + "completions, %d stale completes refused (%d of them inside a completeAll, of %d completeAll "
                            + "calls), %d of %d claimNext calls overlapping another thread's",
                    jobs, rounds, duplicateExecutions, duplicateAcceptedCompletions, staleCompletesRefused,
                    staleRefusedInABatch, completeAllCalls, race.racesWithOverlap(), race.races());
        }
    }

    /** The controls of {@code engine} this driver runs in the stress run: SQLite's {@link #CONTROLS}, PostgreSQL's controls. */
    public static List<StoreUnderTest> controls(Engine engine) {
        return switch (engine) {
            case SQLITE -> CONTROLS.stream().map(b -> new StoreUnderTest(LockingStrategy.IMMEDIATE, b)).toList();
            case POSTGRESQL -> StoreUnderTest.POSTGRES_CONTROLS;
        };
    }

    private final StoreUnderTest sut;
    private final Settings settings;
    private final Path file;
    private final MemoryHistory history = new MemoryHistory();
    private final List<long[]> calls = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong operations = new AtomicLong();
    private final AtomicLong staleRefused = new AtomicLong();
    private final AtomicLong completeAllCalls = new AtomicLong();
    private final AtomicLong staleRefusedInABatch = new AtomicLong();
    private volatile String firstViolation;
    private volatile long opsUntilFirstViolation = -1;

    private DrainRaceDriver(StoreUnderTest sut, Path dir, Settings settings) {
        this.sut = sut;
        this.settings = settings;
        this.file = dir.resolve("drain-" + sut.name().replace('/', '-') + ".db");
    }

    /** Drains queues on {@code sut} on a new database: a file in {@code dir}, or a new schema on the PostgreSQL server. */
    public static DrainResult run(StoreUnderTest sut, Path dir, Settings settings) {
        return new DrainRaceDriver(Objects.requireNonNull(sut, "sut"), Objects.requireNonNull(dir, "dir"),
                Objects.requireNonNull(settings, "settings")).run();
    }

    private DrainResult run() {
        try {
            Files.createDirectories(file.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + file.getParent(), e);
        }
        long started = System.nanoTime();
        long deadline = started + settings.duration().toNanos();
        ExecutorService threads = Executors.newFixedThreadPool(settings.workers(), task -> {
            Thread thread = new Thread(task, "drain-worker");
            thread.setDaemon(true);
            return thread;
        });
        long rounds = 0;
        long unknown;
        CheckReport check;
        String integrity;
        Database db = StressDatabase.create(sut, file);
        try {
            try (LeaseStore store = sut.open(db, Math.max(16, settings.workers() + 2))) {
                RecordedStore recorded = new RecordedStore(store, "drain", history);
                for (; rounds < settings.maxRounds() && System.nanoTime() < deadline && firstViolation == null; rounds++) {
                    round(recorded, threads, rounds);
                }
                unknown = recorded.failures();
            } finally {
                threads.shutdownNow();
            }
            check = HistoryChecker.check(history.ops(), db.rows());
            integrity = db.integrityCheck();
        } finally {
            db.drop();
        }
        DrainCounts counts = DrainCounts.of(history.ops());
        RaceResult race = new RaceResult(sut.name(), "thread-drain", calls.size(), overlaps(), operations.get(), unknown, 0, 0, 0, 0,
                opsUntilFirstViolation, firstViolation, check, 0, 0, integrity, (System.nanoTime() - started) / 1_000_000);
        return new DrainResult(race, rounds, rounds * settings.jobsPerRound(), counts.duplicateExecutions(),
                counts.duplicateAcceptedCompletions(), staleRefused.get(), completeAllCalls.get(), staleRefusedInABatch.get());
    }

    private void round(RecordedStore store, ExecutorService threads, long round) {
        double now = 1 + round * 3 * TTL;
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < settings.jobsPerRound(); i++) {
            String id = "drain-" + round + "-" + i;
            store.store().enqueue(id);
            operations.incrementAndGet();
            jobs.add(id);
        }
        Map<String, Op> stalled = new ConcurrentHashMap<>();
        phase(threads, w -> worker(store, "r" + round + "-w" + w, now, stalled, null, new Random(settings.seed() + 7919 * round + w)));
        phase(threads, w -> worker(store, "r" + round + "-late-w" + w, now + TTL, null, stalled,
                new Random(settings.seed() + 7919 * round + 104_729 + w)));
        for (String id : jobs) {
            Optional<JobState> row = store.store().state(id);
            operations.incrementAndGet();
            if (row.isEmpty() || !row.get().done()) {
                violation("job " + id + " was left undone after both phases of round " + round + ": " + row.orElse(null)
                        + (stalled.containsKey(id) ? " (it had stalled and was never taken over)" : ""));
                return;
            }
        }
    }

    private interface Worker {
        void drain() throws Exception;
    }

    /** Runs one phase: every worker waits at a gate until all are on their threads. */
    private void phase(ExecutorService threads, java.util.function.IntFunction<Worker> worker) {
        int n = settings.workers();
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<?>> running = new ArrayList<>(n);
        for (int w = 0; w < n; w++) {
            Worker body = worker.apply(w);
            running.add(threads.submit(() -> {
                ready.countDown();
                gate.await();
                body.drain();
                return null;
            }));
        }
        try {
            ready.await();
            gate.countDown();
            for (Future<?> f : running) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while draining", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a draining thread failed", e.getCause());
        }
    }

    /**
     * One worker of a phase: claimNext in batches of 1 or 3 until the queue is empty. With
     * {@code stallInto}, a job is left held one time in {@value #STALL_ONE_IN}; with
     * {@code takeOver}, a job that stalled gets its staller's late complete first.
     */
    private Worker worker(RecordedStore store, String owner, double now, Map<String, Op> stallInto, Map<String, Op> takeOver,
                          Random random) {
        return () -> {
            int failuresInARow = 0;
            while (firstViolation == null) {
                int batch = random.nextBoolean() ? 1 : 3;
                long start = System.nanoTime();
                List<Op> claims = store.claimNext(owner, now, TTL, batch);
                calls.add(new long[] {start, System.nanoTime()});
                operations.incrementAndGet();
                if (claims == null) {
                    // A database failure (busy past the timeout): nothing was handed out; try again, a few times.
                    if (++failuresInARow == 3) {
                        return;
                    }
                    continue;
                }
                failuresInARow = 0;
                if (claims.isEmpty()) {
                    return;
                }
                // Half the batches of more than one job are completed in one completeAll, the
                // staller's late completes of the jobs taken over standing in it next to the
                // taker's own.
                List<Completion> together = claims.size() > 1 && random.nextBoolean() ? new ArrayList<>() : null;
                for (Op claim : claims) {
                    work(store, owner, now, claim, stallInto, takeOver, random, together);
                }
                if (together != null && !together.isEmpty()) {
                    completeTogether(store, owner, now, together);
                }
            }
        };
    }

    /**
     * @param together where the completes go when the batch is completed in one completeAll;
     *     null to complete each job at once
     */
    private void work(RecordedStore store, String owner, double now, Op claim, Map<String, Op> stallInto, Map<String, Op> takeOver,
                      Random random, List<Completion> together) {
        String job = claim.job();
        if (takeOver != null) {
            Op stale = takeOver.remove(job);
            if (stale != null && together != null) {
                together.add(new Completion(job, stale.owner(), stale.fence(), "stale-" + stale.fence()));
            } else if (stale != null) {
                Op late = store.complete(job, stale.owner(), stale.fence(), now, "stale-" + stale.fence());
                operations.incrementAndGet();
                if (late.ok()) {
                    violation("the staller's complete was accepted after its job was taken over:\n    "
                            + stale.describe(stale.start()) + "\n    " + claim.describe(stale.start()) + "\n    "
                            + late.describe(stale.start()));
                    return;
                }
                if (late.outcome() == Op.Outcome.REJECTED) {
                    staleRefused.incrementAndGet();
                }
            }
        }
        if (stallInto != null && random.nextInt(STALL_ONE_IN) == 0) {
            stallInto.put(job, claim);
            return;
        }
        if (random.nextBoolean()) {
            Op renew = store.renew(job, owner, claim.fence(), now, TTL);
            operations.incrementAndGet();
            if (renew.outcome() == Op.Outcome.REJECTED) {
                violation("the holder's renew was refused: " + claim.describe(claim.start()) + " then " + renew.describe(claim.start()));
                return;
            }
        }
        if (together != null) {
            together.add(new Completion(job, owner, claim.fence(), owner + "-" + claim.fence()));
            return;
        }
        Op complete = store.complete(job, owner, claim.fence(), now, owner + "-" + claim.fence());
        operations.incrementAndGet();
        if (complete.outcome() == Op.Outcome.REJECTED) {
            violation("the holder's complete was refused: " + claim.describe(claim.start()) + " then " + complete.describe(claim.start()));
        }
    }

    /** One completeAll of a worker's batch: its own completes must be accepted, a staller's refused. */
    private void completeTogether(RecordedStore store, String owner, double now, List<Completion> together) {
        List<Op> completes = store.completeAll(together, now);
        operations.incrementAndGet();
        completeAllCalls.incrementAndGet();
        for (Op complete : completes) {
            boolean own = complete.owner().equals(owner);
            if (own && complete.outcome() == Op.Outcome.REJECTED) {
                violation("the holder's complete was refused inside a completeAll: " + complete.describe(complete.start()));
            } else if (!own && complete.ok()) {
                violation("the staller's complete was accepted inside a completeAll, after its job was taken over:\n    "
                        + complete.describe(complete.start()));
            } else if (!own && complete.outcome() == Op.Outcome.REJECTED) {
                staleRefused.incrementAndGet();
                staleRefusedInABatch.incrementAndGet();
            }
        }
    }

    private synchronized void violation(String text) {
        if (firstViolation == null) {
            opsUntilFirstViolation = operations.get();
            firstViolation = text;
        }
    }

    private long overlaps() {
        synchronized (calls) {
            return Overlaps.count(calls);
        }
    }
}
