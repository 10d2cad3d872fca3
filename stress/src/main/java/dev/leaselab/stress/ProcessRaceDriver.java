package dev.leaselab.stress;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.testkit.Database;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
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
        }
    }

    private final StoreUnderTest sut;
    private final Settings settings;
    private final Path dir;
    private final Path sqliteFile;
    /** The race's database, created when the race starts. */
    private Database db;
    private final Path stop;
    private final Random random;
    private final List<Worker> live = new ArrayList<>();
    private final List<Path> histories = new ArrayList<>();
    private int started;

    private ProcessRaceDriver(StoreUnderTest sut, Path dir, Settings settings) {
        this.sut = sut;
        this.settings = settings;
        this.dir = dir.resolve("processes-" + sut.name().replace('/', '-'));
        this.sqliteFile = this.dir.resolve("jobs.db");
        this.stop = this.dir.resolve("stop");
        this.random = new Random(settings.seed());
    }

    /** Races {@code sut} across processes on a new database: a file under {@code dir}, or a schema on PostgreSQL. */
    public static RaceResult run(StoreUnderTest sut, Path dir, Settings settings) {
        return new ProcessRaceDriver(Objects.requireNonNull(sut, "sut"), Objects.requireNonNull(dir, "dir"),
                Objects.requireNonNull(settings, "settings")).run();
    }

    /** A running worker and what it last said about its lease. */
    private static final class Worker {
        final Process process;
        final String name;
        volatile boolean ready;
        volatile boolean holding;

        Worker(Process process, String name) {
            this.process = process;
            this.name = name;
        }
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
        long raceMillis = settings.duration().toMillis();
        for (int i = 0; i < settings.workers(); i++) {
            startWorker();
        }
        int kills = 0;
        int pauses = 0;
        List<String> crashes = new ArrayList<>();
        try {
            // The race starts when every worker has opened its store, so no fault hits a JVM
            // that is still starting.
            awaitReady();
            long end = System.currentTimeMillis() + raceMillis;
            // Faults at random moments in the middle 80% of the run, so workers are up and racing.
            List<Long> faults = new ArrayList<>();
            for (int i = 0; i < settings.kills() + settings.pauses(); i++) {
                faults.add(raceMillis / 10 + (long) (random.nextDouble() * raceMillis * 0.8));
            }
            faults.sort(Comparator.naturalOrder());
            List<Boolean> isKill = new ArrayList<>();
            for (int i = 0; i < faults.size(); i++) {
                isKill.add(i < settings.kills());
            }
            Collections.shuffle(isKill, random);
            long start = end - raceMillis;
            for (int i = 0; i < faults.size(); i++) {
                sleepUntil(start + faults.get(i));
                if (System.currentTimeMillis() >= end - 2 * settings.ttlMillis()) {
                    break;
                }
                if (isKill.get(i)) {
                    kills += killOne(end) ? 1 : 0;
                } else {
                    pauses += pauseOne() ? 1 : 0;
                }
            }
            sleepUntil(end);
            Files.writeString(stop, "stop");
            for (Worker worker : live) {
                if (!worker.process.waitFor(30, TimeUnit.SECONDS)) {
                    crashes.add(worker.name + " did not stop");
                } else if (worker.process.exitValue() != 0) {
                    crashes.add(worker.name + " exited with " + worker.process.exitValue() + " (see "
                            + dir.resolve(worker.name + ".err") + ")");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while racing processes", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the stop file " + stop, e);
        } finally {
            live.forEach(w -> w.process.destroyForcibly());
            // Gone before their histories are read: a worker still writing would look like damage.
            live.forEach(w -> w.process.onExit().join());
        }
        List<Op> ops = new ArrayList<>();
        histories.forEach(h -> ops.addAll(JsonLinesHistory.read(h)));
        // A worker that crashed on its own makes the run worthless: report it like a broken file.
        String integrity = crashes.isEmpty() ? db.integrityCheck() : String.join("; ", crashes);
        CheckReport check = HistoryChecker.check(ops, db.rows());
        long[] overlap = countRaces(ops);
        long unknown = ops.stream().filter(op -> op.outcome() == Op.Outcome.UNKNOWN).count();
        String first = check.passed() ? null : check.describeViolations(1);
        return new RaceResult(sut.name(), "processes", overlap[0], overlap[1], ops.size(), unknown, 0, 0,
                first == null ? -1 : opsBefore(ops, check.violations().get(0)), first, check, kills, pauses,
                integrity, (System.nanoTime() - begun) / 1_000_000);
    }

    private void awaitReady() {
        long giveUp = System.currentTimeMillis() + 60_000;
        while (live.stream().anyMatch(w -> !w.ready)) {
            if (System.currentTimeMillis() > giveUp || live.stream().anyMatch(w -> !w.ready && !w.process.isAlive())) {
                throw new IllegalStateException("a worker did not start; see the .err files in " + dir);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting workers", e);
            }
        }
    }

    private void startWorker() {
        String name = "w" + started++;
        Path history = dir.resolve(name + ".jsonl");
        histories.add(history);
        List<String> command = new ArrayList<>();
        command.add(ChildJvm.java());
        command.addAll(List.of("-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-cp", ChildJvm.classPath(), StressWorker.class.getName(),
                db.argument(), history.toString(), sut.name(), name, Long.toString(random.nextLong()),
                Integer.toString(settings.slots()), Long.toString(settings.ttlMillis()),
                Long.toString(settings.ttlMillis() / 2), stop.toString(),
                Long.toString(settings.duration().toMillis() + 120_000)));
        try {
            Process process = new ProcessBuilder(command)
                    .redirectError(dir.resolve(name + ".err").toFile())
                    .start();
            Worker worker = new Worker(process, name);
            Thread reader = new Thread(() -> follow(worker), "follow-" + name);
            reader.setDaemon(true);
            reader.start();
            live.add(worker);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start worker " + command, e);
        }
    }

    /** Tracks whether the worker holds a lease, from the lines it prints. */
    private static void follow(Worker worker) {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(worker.process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                worker.ready = true;
                worker.holding = line.startsWith("HOLD");
            }
        } catch (IOException e) {
            // The worker died: nothing more to follow.
        }
    }

    private boolean killOne(long end) throws InterruptedException {
        Worker victim = live.get(random.nextInt(live.size()));
        if (!victim.process.isAlive()) {
            return false;
        }
        victim.process.destroyForcibly();  // SIGKILL: no shutdown hooks, no rollback, no flush
        victim.process.waitFor();
        live.remove(victim);
        if (end - System.currentTimeMillis() > 1000) {
            startWorker();
        }
        return true;
    }

    private boolean pauseOne() throws InterruptedException {
        long giveUp = System.currentTimeMillis() + 20 * settings.ttlMillis();
        while (System.currentTimeMillis() < giveUp) {
            for (Worker worker : live) {
                if (worker.holding && worker.process.isAlive()) {
                    long pid = worker.process.pid();
                    signal("-STOP", pid);
                    Thread.sleep(3 * settings.ttlMillis());
                    signal("-CONT", pid);
                    return true;
                }
            }
            Thread.sleep(1);
        }
        return false;
    }

    private static void signal(String signal, long pid) throws InterruptedException {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill " + signal + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill " + signal, e);
        }
    }

    private static void sleepUntil(long millis) throws InterruptedException {
        long wait = millis - System.currentTimeMillis();
        if (wait > 0) {
            Thread.sleep(wait);
        }
    }

    /**
     * Counts won claims, and won claims during which a claim of the same job by another worker
     * was running: races that really met.
     */
    static long[] countRaces(List<Op> ops) {
        Map<String, List<Op>> claims = ops.stream().filter(op -> op.kind() == Op.Kind.CLAIM)
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
    private static long opsBefore(List<Op> ops, Violation violation) {
        long at = violation.witness().stream().mapToLong(op -> op.end() == Long.MAX_VALUE ? op.start() : op.end())
                .max().orElse(Long.MAX_VALUE);
        return ops.stream().filter(op -> op.start() <= at).count();
    }
}
