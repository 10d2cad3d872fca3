package dev.leaselab.stress;

import dev.leaselab.lease.ClaimManyProbe;
import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LeaseStoreException;
import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.Overlaps;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * Repeats claim races between threads of one process, in three kinds of round:
 *
 * <ul>
 *   <li><b>fresh job</b>: 2..N owners claim a new job at once; exactly one wins, with fence 1,
 *       and the stored owner is the winner;
 *   <li><b>hot job</b>: 2..N owners claim the next generation of one job at the instant the last
 *       lease expires ({@code now == until}); exactly one wins, with the next fence. Then the
 *       previous holder, now stale, tries to complete with its old fence while the winner renews:
 *       the stale write must be refused. The winner then lets its lease run out, releases it (the
 *       fence must survive) or completes the job (and a new hot job starts);
 *   <li><b>claimMany</b>: the store's own {@code claimMany} on a new job; exactly one winner. The
 *       winner's position must vary: the first owner wins most often (its thread starts first),
 *       but if it wins every one of {@value #FIRST_OWNER_ROUNDS} rounds, the others never raced.
 *       The claims inside must meet: each is stamped ({@link ClaimManyProbe}), and if none of
 *       the first {@value #OVERLAP_ROUNDS} measured rounds had two claims that overlapped in time,
 *       {@code claimMany} never raced. A store that stamps nothing is not measured. A round whose
 *       {@code claimMany} throws is judged too (see {@link #CLAIM_MANY}).
 * </ul>
 *
 * Every attempt is timed, so the driver counts the races whose attempts really overlapped; a run
 * that saw few of those proves little. Every operation goes into a history that the
 * {@link HistoryChecker} judges at the end, together with the final rows of the database
 * ({@link Database}: a SQLite file, or a schema of its own on PostgreSQL).
 */
public final class ThreadRaceDriver {

    /** The lease time of hot jobs, in the driver's logical clock. */
    static final double TTL = 10;

    /**
     * claimMany rounds after which "the first owner won every time" counts as a violation. The
     * first owner won about 60% of the rounds here, so a correct store trips this with a
     * probability near 0.6^60, about 5e-14.
     */
    static final int FIRST_OWNER_ROUNDS = 60;

    /**
     * Measured claimMany rounds after which "the claims of no round overlapped" counts as a
     * violation: a claimMany that runs its claims one at a time gets every result right, and only
     * their stamps show it. A round overlapped when one of its claims began before another ended.
     * Measured on 2 cores (2..6 owners, every strategy of both engines, in 6 runs of
     * ThreadRaceSmokeTest and 2 of the smoke profile), a run's rounds without overlap were at most
     * 3.7% (PG_CONDITIONAL_UPDATE, 6 of 162; at most 2.9% for the others), so a correct store trips
     * this with a probability near 0.04^20, about 1e-28 if rounds are independent; a claimMany that
     * never races always does.
     */
    static final int OVERLAP_ROUNDS = 20;

    /**
     * How a violation seen in a claimMany round begins. Those rounds call the store directly, not
     * through the recorded history, so the checker never sees them: only the driver judges them.
     *
     * <p>When {@code claimMany} throws, the rule follows the contract's line between a database
     * failure and a bug. A {@link LeaseStoreException} (busy past the timeout under the heaviest
     * contention, a lost connection) can happen to a correct store, as a single claim can end
     * {@linkplain Op.Outcome#UNKNOWN unknown}: the round is counted as failed and not judged. But
     * if every round of a run failed so, not one claimMany race was judged, and a pass would vouch
     * for a method that never worked: that is a violation, as is any other exception (an
     * {@code IllegalStateException}, a {@code NullPointerException}, ...), which the contract
     * never lets out of a lease operation on valid arguments. Rounds that fail now and then are
     * counted in the result and the verdict's detail but fail nothing: a threshold between "now
     * and then" and "too often" would be a guess about the machine's load.
     */
    static final String CLAIM_MANY = "claimMany";

    /**
     * @param maxOwners the widest race (at least 2)
     * @param duration how long to race
     * @param maxRounds stop after this many rounds even if time is left
     * @param seed for the choices of the driver, so a run can be repeated
     */
    public record Settings(int maxOwners, Duration duration, long maxRounds, long seed) {
        public Settings {
            if (maxOwners < 2) {
                throw new IllegalArgumentException("maxOwners must be at least 2: " + maxOwners);
            }
            Objects.requireNonNull(duration, "duration");
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("duration must be positive: " + duration);
            }
            if (maxRounds < 1) {
                throw new IllegalArgumentException("maxRounds must be at least 1: " + maxRounds);
            }
        }
    }

    private final StoreUnderTest sut;
    private final UnaryOperator<LeaseStore> wrapper;
    private final Settings settings;
    private final Path file;
    private final Random random;
    private final MemoryHistory history = new MemoryHistory();
    private long operations;
    private long races;
    private long racesWithOverlap;
    private long claimManyRounds;
    private long claimManyFailures;
    private LeaseStoreException lastClaimManyFailure;
    private long claimManyJudged;
    private long claimManyMeasured;
    private long claimManyOverlapped;
    private long firstOwnerWins;
    private String firstViolation;
    private long opsUntilFirstViolation = -1;

    private String hotJob;
    private int hotJobs;
    private double hotNow;
    private long hotFence;
    private String hotOwner;

    private ThreadRaceDriver(StoreUnderTest sut, UnaryOperator<LeaseStore> wrapper, Path dir, Settings settings) {
        this.sut = sut;
        this.wrapper = wrapper;
        this.settings = settings;
        this.file = dir.resolve("threads-" + sut.name().replace('/', '-') + ".db");
        this.random = new Random(settings.seed());
    }

    /** Races {@code sut} on a new database: a file in {@code dir}, or a new schema on the PostgreSQL server. */
    public static RaceResult run(StoreUnderTest sut, Path dir, Settings settings) {
        return run(sut, dir, settings, UnaryOperator.identity());
    }

    /**
     * Races what {@code wrapper} makes of the store that {@code sut} opens: the seam through which
     * the tests race a store broken in a way no shipped variant is, under {@code sut}'s name.
     */
    static RaceResult run(StoreUnderTest sut, Path dir, Settings settings, UnaryOperator<LeaseStore> wrapper) {
        return new ThreadRaceDriver(Objects.requireNonNull(sut, "sut"), Objects.requireNonNull(wrapper, "wrapper"),
                Objects.requireNonNull(dir, "dir"), Objects.requireNonNull(settings, "settings")).run();
    }

    private RaceResult run() {
        long started = System.nanoTime();
        long deadline = started + settings.duration().toNanos();
        int poolSize = Math.max(16, settings.maxOwners() + 2);
        ExecutorService threads = Executors.newFixedThreadPool(settings.maxOwners(), task -> {
            Thread thread = new Thread(task, "race-owner");
            thread.setDaemon(true);
            return thread;
        });
        long unknown;
        CheckReport check;
        String integrity;
        Database db = StressDatabase.create(sut, file);
        try {
            try (LeaseStore store = wrapper.apply(sut.open(db, poolSize))) {
                RecordedStore recorded = new RecordedStore(store, "threads", history);
                newHotJob(store);
                for (long round = 0; round < settings.maxRounds() && System.nanoTime() < deadline
                        && firstViolation == null; round++) {
                    switch ((int) (round % 3)) {
                        case 0 -> freshJobRound(recorded, threads, round);
                        case 1 -> hotJobRound(recorded, threads, round);
                        default -> claimManyRound(store, round);
                    }
                }
                if (claimManyRounds > 0 && claimManyFailures == claimManyRounds) {
                    violation(CLAIM_MANY + " failed in all " + claimManyRounds + " rounds, so none was judged; the last"
                            + " failure: " + lastClaimManyFailure);
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
        return new RaceResult(sut.name(), "threads", races, racesWithOverlap, operations, unknown,
                claimManyRounds, claimManyFailures, claimManyMeasured, claimManyOverlapped, opsUntilFirstViolation,
                firstViolation, check, 0, 0, integrity, (System.nanoTime() - started) / 1_000_000);
    }

    private void freshJobRound(RecordedStore store, ExecutorService threads, long round) {
        String job = "fresh-" + round;
        store.store().enqueue(job);
        operations++;
        List<Op> attempts = race(threads, owners(), i -> () -> store.claim(job, "owner-" + i, 1, TTL));
        Op winner = judge(job, attempts, 1);
        if (winner != null) {
            Optional<JobState> row = store.store().state(job);
            operations++;
            if (row.isEmpty() || !winner.owner().equals(row.get().owner()) || row.get().fence() != 1) {
                violation("fresh job " + job + ": stored " + row.orElse(null) + " after " + winner.describe(0));
            }
        }
    }

    private void hotJobRound(RecordedStore store, ExecutorService threads, long round) {
        String job = hotJob;
        double now = hotNow;
        long expected = hotFence + 1;
        List<Op> attempts = race(threads, owners(), i -> () -> store.claim(job, "r" + round + "-owner-" + i, now, TTL));
        Op winner = judge(job, attempts, expected);
        if (winner == null) {
            newHotJob(store.store());
            return;
        }
        if (hotOwner != null) {
            // The previous holder's lease ran out (or was released): its fence is stale now.
            String staleOwner = hotOwner;
            long staleFence = hotFence;
            List<Op> writes = race(threads, 2, i -> i == 0
                    ? () -> store.complete(job, staleOwner, staleFence, now, "stale-" + staleFence)
                    : () -> store.renew(job, winner.owner(), winner.fence(), now, TTL));
            if (writes.get(0).ok()) {
                violation("stale complete accepted on " + job + ":\n    " + winner.describe(origin(attempts))
                        + "\n    " + writes.get(0).describe(origin(attempts)));
                return;
            }
            if (writes.get(1).outcome() == Op.Outcome.REJECTED) {
                violation("the winner's renew was refused on " + job + ":\n    " + winner.describe(origin(attempts))
                        + "\n    " + writes.get(1).describe(origin(attempts)));
                return;
            }
        }
        hotOwner = winner.owner();
        hotFence = winner.fence();
        int next = random.nextInt(10);
        if (next < 3) {
            Op release = store.release(job, winner.owner(), winner.fence());
            operations++;
            if (release.outcome() == Op.Outcome.REJECTED) {
                violation("the holder's release was refused: " + release.describe(release.start()));
            }
        } else if (next == 3) {
            Op complete = store.complete(job, winner.owner(), winner.fence(), now, "done-" + winner.fence());
            operations++;
            if (complete.outcome() == Op.Outcome.REJECTED) {
                violation("the holder's complete was refused: " + complete.describe(complete.start()));
            }
            newHotJob(store.store());
        } else {
            hotNow = now + TTL;
        }
    }

    private void claimManyRound(LeaseStore store, long round) {
        String job = "many-" + round;
        store.enqueue(job);
        int n = owners();
        List<String> owners = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            owners.add("many-owner-" + i);
        }
        claimManyRounds++;
        List<OptionalLong> results;
        List<ClaimManyProbe.Claim> claims;
        try {
            ClaimManyProbe.Recording<List<OptionalLong>> recorded =
                    ClaimManyProbe.record(() -> store.claimMany(job, owners, 1, TTL));
            results = recorded.result();
            claims = recorded.claims();
        } catch (LeaseStoreException e) {
            claimManyFailures++;
            lastClaimManyFailure = e;
            return;
        } catch (RuntimeException e) {
            StackTraceElement[] where = e.getStackTrace();
            violation(CLAIM_MANY + " on " + job + " with " + n + " owners threw " + e
                    + (where.length > 0 ? " at " + where[0] : "")
                    + "; on valid arguments a lease operation may fail only with a LeaseStoreException");
            return;
        } finally {
            operations += 1 + n;
        }
        // A round is measured when the store stamped one claim per owner, whatever its results; a
        // store that stamps nothing (a guest's, a wrapper that claims by itself) is not measured.
        boolean measured = claims.size() == n;
        if (measured) {
            claimManyMeasured++;
            List<long[]> spans = claims.stream().map(c -> new long[] {c.start(), c.end()}).toList();
            claimManyOverlapped += Overlaps.count(spans) > 0 ? 1 : 0;
        }
        long winners = results.stream().filter(OptionalLong::isPresent).count();
        if (results.size() != n || winners != 1) {
            violation(CLAIM_MANY + " on " + job + " with " + n + " owners: " + winners + " winners in "
                    + results.size() + " results " + results);
            return;
        }
        claimManyJudged++;
        firstOwnerWins += results.get(0).isPresent() ? 1 : 0;
        if (claimManyJudged == FIRST_OWNER_ROUNDS && firstOwnerWins == claimManyJudged) {
            violation(CLAIM_MANY + ": the first owner won all " + claimManyJudged + " rounds; the others never raced");
            return;
        }
        if (measured && claimManyMeasured == OVERLAP_ROUNDS && claimManyOverlapped == 0) {
            violation(CLAIM_MANY + ": the claims inside claimMany never overlapped in time, in " + claimManyMeasured
                    + " rounds of 2 to " + settings.maxOwners() + " owners; each claim ran alone, so claimMany never raced");
        }
    }

    /** Checks a race on a claimable job: exactly one winner with {@code expectedFence}. */
    private Op judge(String job, List<Op> attempts, long expectedFence) {
        if (attempts.stream().anyMatch(a -> a.outcome() == Op.Outcome.UNKNOWN)) {
            return null;
        }
        List<Op> winners = attempts.stream().filter(Op::ok).toList();
        races++;
        if (winners.size() == 1) {
            Op winner = winners.get(0);
            if (attempts.stream().anyMatch(a -> a != winner && a.start() < winner.end() && winner.start() < a.end())) {
                racesWithOverlap++;
            }
            if (winner.fence() == expectedFence) {
                return winner;
            }
        }
        StringBuilder text = new StringBuilder(winners.size() + " winner(s) of " + attempts.size()
                + " on " + job + ", fence " + expectedFence + " was due:");
        long origin = origin(attempts);
        attempts.forEach(a -> text.append("\n    ").append(a.describe(origin)));
        violation(text.toString());
        return null;
    }

    private void violation(String text) {
        if (firstViolation == null) {
            firstViolation = text;
            opsUntilFirstViolation = operations;
        }
    }

    private void newHotJob(LeaseStore store) {
        hotJob = "hot-" + hotJobs++;
        store.enqueue(hotJob);
        operations++;
        hotNow = 1;
        hotFence = 0;
        hotOwner = null;
    }

    private int owners() {
        return 2 + random.nextInt(settings.maxOwners() - 1);
    }

    private static long origin(List<Op> ops) {
        return ops.stream().mapToLong(Op::start).min().orElse(0);
    }

    /** Runs {@code n} attempts at once: all wait at a gate until every thread is there. */
    private List<Op> race(ExecutorService threads, int n, IntFunction<Callable<Op>> attempt) {
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<Op>> futures = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Callable<Op> call = attempt.apply(i);
            futures.add(threads.submit(() -> {
                ready.countDown();
                gate.await();
                return call.call();
            }));
        }
        List<Op> ops = new ArrayList<>(n);
        try {
            ready.await();
            gate.countDown();
            for (Future<Op> future : futures) {
                ops.add(future.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while racing", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a racing thread failed", e.getCause());
        }
        operations += n;
        return ops;
    }
}
