package dev.leaselab.stress;

import dev.leaselab.lease.BrokenStore;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.testkit.Database;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The drain race across worker processes: {@link DrainWorker} JVMs drain one queue on one database
 * (a SQLite file, or a schema on PostgreSQL) with {@code claimNext}, on the wall clock and a real,
 * short lease, while the driver refills the queue in rounds and injects faults: {@code kill -9} of
 * a random worker (replaced by a new one), and {@code SIGSTOP} of a worker that holds leases, for
 * three leases, then {@code SIGCONT}. The paused worker's jobs are taken over for real meanwhile,
 * and its renews and completes after it wakes carry a stale fence: they must be refused. When the
 * time is up the workers stop, and a fresh worker drains what is left, so every job enqueued must
 * end done.
 *
 * <p>The {@link HistoryChecker} judges the merged histories of every worker (killed ones
 * included) with the final rows ({@link HistoryChecker#checkDrained}): every job done exactly
 * once, with the result of its one accepted complete, no fence handed out twice, no stale write
 * accepted; and a SQLite file must pass {@code PRAGMA integrity_check}. A run proves nothing if no
 * two workers' claimNext calls met in time or no pause led to a stale write that was refused: it
 * says so ({@link DrainResult#unproven()}), and a correct store's verdict is then inconclusive.
 */
public final class ProcessDrainDriver {

    /**
     * The SQLite controls this driver must catch, on {@link LockingStrategy#IMMEDIATE}: two workers
     * handed one job, and a paused worker's late complete accepted.
     */
    public static final List<BrokenStore> CONTROLS = List.of(
            BrokenStore.CLAIM_NEXT_READ_THEN_WRITE,
            BrokenStore.COMPLETE_WITHOUT_FENCE_CHECK);

    /**
     * @param workers how many worker processes drain at once (at least 2)
     * @param duration how long they race before the rest is drained
     * @param kills how many workers to kill with SIGKILL (each is replaced)
     * @param pauses how many workers to pause with SIGSTOP, past their lease, while they hold one
     * @param jobsPerRound jobs enqueued each time the queue runs out of fresh ones (at least 1)
     * @param ttlMillis the lease time, in real milliseconds
     * @param seed for the workers' and the driver's choices
     */
    public record Settings(int workers, Duration duration, int kills, int pauses, int jobsPerRound, long ttlMillis,
            long seed) {
        public Settings {
            if (workers < 2) {
                throw new IllegalArgumentException("workers must be at least 2: " + workers);
            }
            Objects.requireNonNull(duration, "duration");
            if (duration.toMillis() < 1000) {
                throw new IllegalArgumentException("duration must be at least 1 s: " + duration);
            }
            if (kills < 0 || pauses < 0) {
                throw new IllegalArgumentException("kills and pauses must not be negative: " + kills + ", " + pauses);
            }
            if (jobsPerRound < 1) {
                throw new IllegalArgumentException("jobsPerRound must be at least 1: " + jobsPerRound);
            }
            if (ttlMillis < 50) {
                throw new IllegalArgumentException("ttlMillis must be at least 50: " + ttlMillis);
            }
            WorkerFleet.requireRoomForFaults(duration, ttlMillis);
        }

        /** The same settings with another seed: a race again that is not the same race. */
        public Settings withSeed(long newSeed) {
            return new Settings(workers, duration, kills, pauses, jobsPerRound, ttlMillis, newSeed);
        }
    }

    /**
     * What a process drain saw.
     *
     * @param race the race result: races are claimNext calls that handed out leases, overlapping
     *     ones those that overlapped in time a claimNext call of another process
     * @param rounds rounds of jobs enqueued
     * @param jobs jobs enqueued (every one must end done)
     * @param duplicateExecutions leases handed out beyond the first of each job: work started twice
     *     (after a kill or a pause), expected and counted
     * @param duplicateAcceptedCompletions completions accepted beyond the first of a job (0 on a correct store)
     * @param staleWritesRefused stale renews and completes the store refused, of every worker
     * @param pausedWrites writes of paused workers, after they woke, whose lease had been taken over
     * @param pausedWritesRefused of those, the ones refused (all of them, on a correct store)
     * @param effectivePauses pauses after which the worker made such a write and had it refused
     * @param completeAllCalls completeAll calls that answered, each a worker's batch of two or more jobs
     * @param refusedInABatch completions those calls refused: stale ones sent in a batch
     */
    public record DrainResult(RaceResult race, long rounds, long jobs, long duplicateExecutions,
            long duplicateAcceptedCompletions, long staleWritesRefused, long pausedWrites, long pausedWritesRefused,
            int effectivePauses, long completeAllCalls, long refusedInABatch) implements DrainOutcome {

        @Override
        public String unproven() {
            if (race.racesWithOverlap() == 0) {
                return "no claimNext call that handed out a lease overlapped a call of another worker process, in "
                        + race.races() + " calls: the workers never raced";
            }
            if (effectivePauses == 0) {
                return race.pauses() + " pauses, but none led to a write with a stale fence after a takeover that the "
                        + "store refused: the pauses proved nothing";
            }
            return null;
        }

        @Override
        public String summary() {
            return String.format(Locale.ROOT, "%d jobs in %d rounds, %d duplicate executions, %d duplicate accepted "
                            + "completions, %d kills, %d pauses (%d effective), %d stale writes refused (%d of %d after "
                            + "pauses), %d completeAll calls (%d completions refused in them), %d of %d claimNext calls "
                            + "overlapping another process's",
                    jobs, rounds, duplicateExecutions, duplicateAcceptedCompletions, race.kills(), race.pauses(),
                    effectivePauses, staleWritesRefused, pausedWritesRefused, pausedWrites, completeAllCalls, refusedInABatch,
                    race.racesWithOverlap(), race.races());
        }
    }

    private final StoreUnderTest sut;
    private final Guest guest;
    private final boolean guestOnly;
    /** The store's name, or the guest's with the store it races next to, as the verdict table shows it. */
    private final String name;
    private int workersStarted;
    private final Settings settings;
    private final Path dir;
    private final Path stop;
    private final Random random;
    private Database db;
    private Refill refill;

    private ProcessDrainDriver(StoreUnderTest sut, Guest guest, boolean guestOnly, Path dir, Settings settings) {
        this.sut = sut;
        this.guest = guest;
        this.guestOnly = guestOnly;
        this.name = guest == null ? sut.name() : guestOnly ? guest.name() : sut.name() + "+" + guest.name();
        this.settings = settings;
        this.dir = dir.resolve("process-drain-" + name.replace('/', '-').replace('+', '-'));
        this.stop = this.dir.resolve("stop");
        this.random = new Random(settings.seed());
    }

    /** The controls of {@code engine} this driver runs: SQLite's {@link #CONTROLS}, PostgreSQL's stale writer. */
    public static List<StoreUnderTest> controls(Engine engine) {
        return switch (engine) {
            case SQLITE -> CONTROLS.stream().map(b -> new StoreUnderTest(LockingStrategy.IMMEDIATE, b)).toList();
            case POSTGRESQL -> StoreUnderTest.POSTGRES_CONTROLS.stream().filter(StoreUnderTest::isStaleWriterControl).toList();
        };
    }

    /** Drains queues on {@code sut} across processes on a new database: a file under {@code dir}, or a schema on PostgreSQL. */
    public static DrainResult run(StoreUnderTest sut, Path dir, Settings settings) {
        return new ProcessDrainDriver(Objects.requireNonNull(sut, "sut"), null, false, Objects.requireNonNull(dir, "dir"),
                Objects.requireNonNull(settings, "settings")).run();
    }

    /**
     * Drains queues with a guest's workers on one SQLite file, through the same faults and the same
     * checks: with {@code guestOnly} false, every second worker is the guest's and the others run
     * {@code sut} (Java and guest workers draining one queue); with it true, every worker is the
     * guest's. The store creates the table, and a worker of {@code sut} drains what the workers
     * left, as in every drain.
     */
    public static DrainResult runWithGuest(StoreUnderTest sut, Guest guest, boolean guestOnly, Path dir, Settings settings) {
        Objects.requireNonNull(sut, "sut");
        if (sut.engine() != Engine.SQLITE) {
            throw new IllegalArgumentException("sut: a guest drains a SQLite file, not with " + sut.name());
        }
        return new ProcessDrainDriver(sut, Objects.requireNonNull(guest, "guest"), guestOnly, Objects.requireNonNull(dir, "dir"),
                Objects.requireNonNull(settings, "settings")).run();
    }

    private DrainResult run() {
        long begun = System.nanoTime();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        db = StressDatabase.create(sut, dir.resolve("jobs.db"));
        try {
            return race(begun);
        } finally {
            db.drop();
        }
    }

    private DrainResult race(long begun) {
        WorkerFleet.Faults faults;
        List<String> crashes;
        List<Path> histories = new ArrayList<>();
        // The store creates the table; the workers find it there.
        sut.open(db, 1).close();
        refill = new Refill();
        try {
            try (WorkerFleet fleet = new WorkerFleet(dir, random, this::workerCommand)) {
                // The workers warm up on an empty queue (see DrainWorker): the first jobs come after.
                fleet.startAndAwaitReady(settings.workers());
                refill.round();
                Thread refilling = new Thread(refill, "refill");
                refilling.setDaemon(true);
                refilling.start();
                try {
                    faults = fleet.race(settings.duration().toMillis(), settings.kills(), settings.pauses(),
                            settings.ttlMillis());
                } finally {
                    refill.stop(refilling);
                }
                crashes = fleet.stop(stop);
                histories.addAll(fleet.histories());
                Files.write(dir.resolve("faults.txt"), faults.log());
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot fill the queue of " + db + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the faults into " + dir, e);
        }
        Path last = dir.resolve("final.jsonl");
        histories.add(last);
        String leftOver = drainTheRest(last);
        List<Op> ops = new ArrayList<>();
        histories.forEach(h -> ops.addAll(JsonLinesHistory.read(h)));
        // A worker that crashed on its own makes the run worthless: report it like a broken file.
        String integrity = crashes.isEmpty() ? db.integrityCheck() : WorkerFleet.CRASHED + String.join("; ", crashes);
        CheckReport check = HistoryChecker.checkDrained(ops, db.rows(), DrainWorker::result);
        long unknown = ops.stream().filter(op -> op.outcome() == Op.Outcome.UNKNOWN).count();
        long[] calls = overlappingCalls(ops);
        String first = leftOver != null ? leftOver : check.passed() ? null : check.describeViolations(1);
        long opsUntilFirst = leftOver != null ? ops.size()
                : check.passed() ? -1 : ProcessRaceDriver.opsBefore(ops, check.violations().get(0));
        RaceResult race = new RaceResult(name, "process-drain", calls[0], calls[1], ops.size(), unknown, 0, 0, 0, 0,
                opsUntilFirst, first, check, faults.kills(), faults.pauses().size(), integrity,
                (System.nanoTime() - begun) / 1_000_000);
        DrainCounts counts = DrainCounts.of(ops);
        long[] paused = pausedWrites(ops, faults.pauses());
        long[] batches = completeAllCalls(ops);
        return new DrainResult(race, refill.rounds.get(), refill.enqueued.get(), counts.duplicateExecutions(),
                counts.duplicateAcceptedCompletions(), check.staleWritesRejected(), paused[0], paused[1], (int) paused[2],
                batches[0], batches[1]);
    }

    private List<String> workerCommand(String worker, Path history) {
        boolean guestWorker = guest != null && (guestOnly || workersStarted++ % 2 == 1);
        return List.of(DrainWorker.class.getName(), db.argument(), history.toString(),
                guestWorker ? guest.workerArgument() : sut.name(), worker,
                Long.toString(random.nextLong()), Long.toString(settings.ttlMillis()), stop.toString(),
                Long.toString(settings.duration().toMillis() + 120_000), Boolean.toString(refill.rounds.get() == 0),
                WorkerFleet.pauseMarker(dir).toString());
    }

    /**
     * Enqueues a round of jobs whenever the queue has no claimable job left, fresh or expired: on
     * PostgreSQL, whose queue hands out fresh jobs before expired ones, a queue that never ran dry
     * would leave a paused worker's jobs unclaimed.
     *
     * <p>A round is one {@code INSERT} with plain JDBC, as a producer outside the store would
     * enqueue: one job per transaction kept the write lock so busy that a claimNext waiting
     * behind a round got its lease back with most of it spent.
     */
    private final class Refill implements Runnable {
        final AtomicLong rounds = new AtomicLong();
        final AtomicLong enqueued = new AtomicLong();
        private volatile boolean stopped;
        private volatile Exception failure;

        void round() throws SQLException {
            long round = rounds.get();
            String values = IntStream.range(0, settings.jobsPerRound())
                    .mapToObj(i -> "('drain-" + round + "-" + i + "')").collect(Collectors.joining(", "));
            db.execute("INSERT INTO jobs (id) VALUES " + values);
            rounds.incrementAndGet();
            enqueued.addAndGet(settings.jobsPerRound());
        }

        @Override
        public void run() {
            try {
                while (!stopped) {
                    if (count("done = 0 AND until <= ?", HostClock.seconds()) == 0) {
                        round();
                    }
                    Thread.sleep(5);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (SQLException | RuntimeException e) {
                failure = e;
            }
        }

        void stop(Thread thread) {
            stopped = true;
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while stopping the refill", e);
            }
            if (failure != null) {
                throw new IllegalStateException("the queue could not be refilled", failure);
            }
        }
    }

    /**
     * A fresh worker, in this JVM, drains what the workers left: leases of killed workers run out
     * within a lease. Returns null when every job is done, or else why not.
     */
    private String drainTheRest(Path history) {
        long giveUp = System.currentTimeMillis() + 10 * settings.ttlMillis() + 30_000;
        try (LeaseStore store = sut.open(db, 2); JsonLinesHistory sink = JsonLinesHistory.create(history)) {
            // Nobody competes now: a long lease, so that this JVM's first (slow) calls do not outlive it.
            DrainWorker last = new DrainWorker(new RecordedStore(store, "final", sink, HostClock::nanos), "final",
                    settings.seed(), Math.max(settings.ttlMillis(), 10_000), DrainWorker.workMillis(settings.ttlMillis()), null,
                    null);
            long undone;
            while ((undone = count("done = 0")) > 0) {
                if (System.currentTimeMillis() > giveUp) {
                    return undone + " jobs were still undone when the final drain gave up";
                }
                last.step();
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while draining the rest", e);
        }
    }

    /** How many jobs match {@code where} with its {@code ?} bound to {@code args}, read with plain JDBC. */
    private long count(String where, Object... args) {
        try {
            return db.withConnection(c -> {
                try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM jobs WHERE " + where)) {
                    for (int i = 0; i < args.length; i++) {
                        s.setObject(i + 1, args[i]);
                    }
                    try (ResultSet row = s.executeQuery()) {
                        row.next();
                        return row.getLong(1);
                    }
                }
            });
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count the jobs of " + db + " where " + where + ": " + e.getMessage(), e);
        }
    }

    /**
     * The completeAll calls that answered, and the completions they refused. {@link RecordedStore}
     * records each completion of a completeAll as a complete with the span of the whole call, and a
     * worker sends only batches of two or more jobs that way, so two or more completes of one
     * process that began at the same instant are one call; completes alone each have a span of
     * their own.
     */
    static long[] completeAllCalls(List<Op> ops) {
        Map<List<Object>, long[]> calls = new HashMap<>();
        for (Op op : ops) {
            if (op.kind() == Op.Kind.COMPLETE && op.outcome() != Op.Outcome.UNKNOWN) {
                long[] call = calls.computeIfAbsent(List.of(op.process(), op.start()), key -> new long[2]);
                call[0]++;
                call[1] += op.outcome() == Op.Outcome.REJECTED ? 1 : 0;
            }
        }
        long batches = 0;
        long refused = 0;
        for (long[] call : calls.values()) {
            if (call[0] >= 2) {
                batches++;
                refused += call[1];
            }
        }
        return new long[] {batches, refused};
    }

    /**
     * The claimNext calls that handed out leases, and those of them whose span overlapped the
     * span of a call of another process (one that answered, leases or none): races that really met.
     */
    static long[] overlappingCalls(List<Op> ops) {
        // The leases of one call share its process and span; an empty call is one answered claim of any job.
        List<Op> calls = ops.stream()
                .filter(op -> op.kind() == Op.Kind.CLAIM && op.outcome() != Op.Outcome.UNKNOWN)
                .collect(Collectors.toMap(op -> op.process() + "@" + op.start(), op -> op, (a, b) -> a))
                .values().stream().sorted(Comparator.comparingLong(Op::start)).toList();
        Map<String, Long> latestEnd = new HashMap<>();
        long won = 0;
        long overlapped = 0;
        for (int i = 0; i < calls.size(); i++) {
            Op call = calls.get(i);
            if (call.ok()) {
                won++;
                // Still running when this one began, or begun while this one ran.
                boolean met = latestEnd.entrySet().stream()
                        .anyMatch(e -> !e.getKey().equals(call.process()) && e.getValue() > call.start());
                for (int j = i + 1; !met && j < calls.size() && calls.get(j).start() < call.end(); j++) {
                    met = !calls.get(j).process().equals(call.process());
                }
                overlapped += met ? 1 : 0;
            }
            latestEnd.merge(call.process(), call.end(), Math::max);
        }
        return new long[] {won, overlapped};
    }

    /**
     * For the pauses: the writes of each paused worker, from its pause until its next claimNext,
     * that were stale (a claim by someone else with a newer fence had finished before they began),
     * how many of those were refused, and how many pauses led to at least one refused.
     */
    static long[] pausedWrites(List<Op> ops, List<WorkerFleet.Pause> pauses) {
        List<Op> stale = HistoryChecker.staleWrites(ops).stream().map(pair -> pair[1]).toList();
        // A worker paused twice before its next claimNext has one window of late writes: count each write once.
        Set<Op> late = new HashSet<>();
        long effective = 0;
        for (WorkerFleet.Pause pause : pauses) {
            long nextClaim = ops.stream()
                    .filter(op -> op.process().equals(pause.worker()) && op.kind() == Op.Kind.CLAIM
                            && op.start() > pause.resumedAt())
                    .mapToLong(Op::start).min().orElse(Long.MAX_VALUE);
            List<Op> afterThis = stale.stream()
                    .filter(w -> w.process().equals(pause.worker()) && w.start() >= pause.stoppedAt() && w.start() < nextClaim)
                    .toList();
            late.addAll(afterThis);
            effective += afterThis.stream().anyMatch(w -> w.outcome() == Op.Outcome.REJECTED) ? 1 : 0;
        }
        long refused = late.stream().filter(w -> w.outcome() == Op.Outcome.REJECTED).count();
        return new long[] {late.size(), refused, effective};
    }
}
