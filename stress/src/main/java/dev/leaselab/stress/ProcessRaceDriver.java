package dev.leaselab.stress;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.testkit.Database;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Races worker JVMs ({@link StressWorker}) on one database, and injects faults while they
 * run: {@code kill -9} of a worker at a random moment (inside a transaction, now and then), and
 * {@code SIGSTOP} of a worker that holds a lease, for three times the lease, then {@code SIGCONT},
 * so that it renews and completes with a stale fence. On PostgreSQL a killed worker's connection
 * dies with it and a paused worker may hold a row lock or a transaction open while it sleeps.
 * Afterwards a SQLite file must pass {@code PRAGMA integrity_check}, and the
 * {@link HistoryChecker} judges the merged histories of all workers (killed ones included)
 * together with the final rows.
 *
 * <p>A {@link Guest}, a store of any language served over the worker protocol, races the same way
 * ({@link #runWithGuest}): next to Java workers on one file, or alone.
 *
 * <p>Between their attempts at the hot job, the workers run contract probes on jobs of their own
 * (see {@link StressWorker}): moments the race itself brings about rarely or never, judged by the
 * same checker. {@link #countRaces} leaves their jobs out.
 */
public final class ProcessRaceDriver {

    /**
     * @param workers how many worker processes run at once (at least 2)
     * @param duration how long they race
     * @param kills how many workers to kill with SIGKILL (each is replaced)
     * @param pauses how many workers to pause with SIGSTOP while they hold a lease
     * @param slots how many jobs are in play at once (fewer means more contention)
     * @param ttlMillis the lease time
     * @param seed for the workers' and the driver's choices
     */
    public record Settings(int workers, Duration duration, int kills, int pauses, int slots, long ttlMillis, long seed) {
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
            if (slots < 1) {
                throw new IllegalArgumentException("slots must be at least 1: " + slots);
            }
            if (ttlMillis < 10) {
                throw new IllegalArgumentException("ttlMillis must be at least 10: " + ttlMillis);
            }
            WorkerFleet.requireRoomForFaults(duration, ttlMillis);
        }

        /** The same settings with another seed: a race again that is not the same race. */
        public Settings withSeed(long newSeed) {
            return new Settings(workers, duration, kills, pauses, slots, ttlMillis, newSeed);
        }
    }

    private final StoreUnderTest sut;
    /** A store from outside served over the worker protocol, or null. */
    private final Guest guest;
    private final boolean guestOnly;
    private final String name;
    private int workersStarted;
    private final Settings settings;
    private final Path dir;
    private final Path sqliteFile;
    /** The race's database, created when the race starts. */
    private Database db;
    private final Path stop;
    private final Random random;

    private ProcessRaceDriver(StoreUnderTest sut, Guest guest, boolean guestOnly, Path dir, Settings settings) {
        this.sut = sut;
        this.guest = guest;
        this.guestOnly = guestOnly;
        this.name = guest == null ? sut.name() : guestOnly ? guest.name() : sut.name() + "+" + guest.name();
        this.settings = settings;
        this.dir = dir.resolve("processes-" + name.replace('/', '-'));
        this.sqliteFile = this.dir.resolve("jobs.db");
        this.stop = this.dir.resolve("stop");
        this.random = new Random(settings.seed());
    }

    /** Races {@code sut} across processes on a new database: a file under {@code dir}, or a schema on PostgreSQL. */
    public static RaceResult run(StoreUnderTest sut, Path dir, Settings settings) {
        return new ProcessRaceDriver(Objects.requireNonNull(sut, "sut"), null, false, Objects.requireNonNull(dir, "dir"),
                Objects.requireNonNull(settings, "settings")).run();
    }

    /**
     * Races a guest's workers on one SQLite file with the same faults and the same checker: with
     * {@code guestOnly} false, every second worker is the guest's and the others run {@code sut}
     * (Java and guest workers on one file); with it true, every worker is the guest's and
     * {@code sut} only prepares the file (its journal and sync mode) and the first jobs.
     */
    public static RaceResult runWithGuest(StoreUnderTest sut, Guest guest, boolean guestOnly, Path dir, Settings settings) {
        Objects.requireNonNull(sut, "sut");
        if (sut.engine() != dev.leaselab.lease.LockingStrategy.Engine.SQLITE) {
            throw new IllegalArgumentException("sut: a guest races on a SQLite file, not with " + sut.name());
        }
        return new ProcessRaceDriver(sut, Objects.requireNonNull(guest, "guest"), guestOnly, Objects.requireNonNull(dir, "dir"),
                Objects.requireNonNull(settings, "settings")).run();
    }

    private RaceResult run() {
        long begun = System.nanoTime();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        db = StressDatabase.create(sut, sqliteFile);
        try {
            return race(begun);
        } finally {
            db.drop();
        }
    }

    private RaceResult race(long begun) {
        try (LeaseStore store = sut.open(db, 2)) {
            for (int slot = 0; slot < settings.slots(); slot++) {
                store.enqueue(StressWorker.jobId(slot, 0));
            }
        }
        WorkerFleet.Faults faults;
        List<String> crashes;
        List<Path> histories;
        try (WorkerFleet fleet = new WorkerFleet(dir, random, this::workerCommand)) {
            fleet.startAndAwaitReady(settings.workers());
            faults = fleet.race(settings.duration().toMillis(), settings.kills(), settings.pauses(), settings.ttlMillis());
            crashes = fleet.stop(stop);
            histories = fleet.histories();
        }
        List<Op> ops = new ArrayList<>();
        histories.forEach(h -> ops.addAll(JsonLinesHistory.read(h)));
        // A worker that crashed on its own makes the run worthless: report it like a broken file.
        String integrity = crashes.isEmpty() ? db.integrityCheck() : WorkerFleet.CRASHED + String.join("; ", crashes);
        CheckReport check = HistoryChecker.check(ops, db.rows());
        long[] overlap = countRaces(ops);
        long unknown = ops.stream().filter(op -> op.outcome() == Op.Outcome.UNKNOWN).count();
        String first = check.passed() ? null : check.describeViolations(1);
        return new RaceResult(name, "processes", overlap[0], overlap[1], ops.size(), unknown, 0, 0, 0, 0,
                first == null ? -1 : opsBefore(ops, check.violations().get(0)), first, check, faults.kills(),
                faults.pauses().size(), integrity, (System.nanoTime() - begun) / 1_000_000);
    }

    private List<String> workerCommand(String worker, Path history) {
        boolean guestWorker = guest != null && (guestOnly || workersStarted++ % 2 == 1);
        return List.of(StressWorker.class.getName(),
                db.argument(), history.toString(), guestWorker ? guest.workerArgument() : sut.name(), worker,
                Long.toString(random.nextLong()),
                Integer.toString(settings.slots()), Long.toString(settings.ttlMillis()),
                Long.toString(settings.ttlMillis() / 2), stop.toString(),
                Long.toString(settings.duration().toMillis() + 120_000));
    }

    /**
     * Counts won claims, and won claims during which a claim of the same job by another worker
     * was running: races that really met. The jobs of the workers' contract probes, which each
     * worker claims alone, are not counted.
     */
    static long[] countRaces(List<Op> ops) {
        Map<String, List<Op>> claims = ops.stream().filter(op -> op.kind() == Op.Kind.CLAIM && !Op.isProbeJob(op.job()))
                .collect(Collectors.groupingBy(Op::job, TreeMap::new, Collectors.toList()));
        long won = 0;
        long overlapped = 0;
        for (List<Op> job : claims.values()) {
            job.sort(Comparator.comparingLong(Op::start));
            for (int i = 0; i < job.size(); i++) {
                Op winner = job.get(i);
                if (!winner.ok()) {
                    continue;
                }
                won++;
                for (Op other : job) {
                    if (other.start() >= winner.end()) {
                        break;
                    }
                    if (other != winner && !other.process().equals(winner.process()) && winner.start() < other.end()) {
                        overlapped++;
                        break;
                    }
                }
            }
        }
        return new long[] {won, overlapped};
    }

    /** How many operations had started before the last operation of the violation's witness ended. */
    static long opsBefore(List<Op> ops, Violation violation) {
        long at = violation.witness().stream().mapToLong(op -> op.end() == Long.MAX_VALUE ? op.start() : op.end())
                .max().orElse(Long.MAX_VALUE);
        return ops.stream().filter(op -> op.start() <= at).count();
    }
}
