package dev.leaselab.stress;

import dev.leaselab.testkit.process.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The worker JVMs of a race across processes, and the faults a driver injects into them: each
 * worker is started with this JVM's class path and writes its history to {@code <name>.jsonl} and
 * its errors to {@code <name>.err} in the race's folder. A worker prints {@code READY} once its
 * store is open and {@code HOLD ...} / {@code FREE} as it takes and gives up leases, so that a
 * pause can hit one that holds a lease. While a worker is paused the file {@link #pauseMarker}
 * exists, for workers that want to know; it lists the jobs the paused worker said it held, one a
 * line (the words of its {@code HOLD} line after the first, by twos: job, fence).
 */
final class WorkerFleet implements AutoCloseable {

    /**
     * How a race result's {@code integrity} begins when workers failed on their own: the file's
     * {@code integrity_check} did not run, and the run is worthless.
     */
    static final String CRASHED = "workers failed, integrity_check not run: ";

    /** A worker's main class and arguments, given its name and its history file. */
    interface Command {
        List<String> of(String name, Path history);
    }

    /**
     * A {@code SIGSTOP} of a worker while it held a lease, in {@link HostClock} nanoseconds.
     *
     * @param worker the worker's name
     * @param stoppedAt just before the signal was sent
     * @param resumedAt just after {@code SIGCONT} had been sent
     */
    record Pause(String worker, long stoppedAt, long resumedAt) {}

    /**
     * The faults injected into one race.
     *
     * @param kills how many workers were killed
     * @param pauses each pause
     * @param log a line per fault, with its worker and {@link HostClock} time, for reading a run's histories
     */
    record Faults(int kills, List<Pause> pauses, List<String> log) {}

    /**
     * Leases of a race's end kept free of new faults: a pause stops its worker for three, and the
     * worker needs one more, awake, for the late writes the store must refuse.
     */
    static final int LEASES_AFTER_THE_FAULTS = 4;

    /**
     * Refuses a race too short for its faults: it must last {@link #LEASES_AFTER_THE_FAULTS} leases
     * and one more, in which the faults fall.
     */
    static void requireRoomForFaults(Duration duration, long ttlMillis) {
        long least = (LEASES_AFTER_THE_FAULTS + 1) * ttlMillis;
        if (duration.toMillis() < least) {
            throw new IllegalArgumentException("duration must be at least " + (LEASES_AFTER_THE_FAULTS + 1) + " leases of "
                    + ttlMillis + " ms (" + least + " ms), to leave room for a pause and the late writes after it: " + duration);
        }
    }

    /** A running worker and what it last said about its leases. */
    private static final class Worker {
        final Process process;
        final String name;
        volatile boolean ready;
        volatile boolean holding;
        volatile String lastHold = "";

        Worker(Process process, String name) {
            this.process = process;
            this.name = name;
        }
    }

    private final Path dir;
    private final Random random;
    private final Command command;
    private final List<Worker> live = new ArrayList<>();
    private final List<Path> histories = new ArrayList<>();
    private int started;
    /** The name of the worker paused last, or null. */
    private String lastPaused;
    /** The shell that sends the signals, started with the first one. */
    private Process signaller;
    private PrintStream signals;
    private BufferedReader answers;

    /** @param random the driver's choices: which worker a fault hits, and when */
    WorkerFleet(Path dir, Random random, Command command) {
        this.dir = Objects.requireNonNull(dir, "dir");
        this.random = Objects.requireNonNull(random, "random");
        this.command = Objects.requireNonNull(command, "command");
    }

    /** Starts {@code workers} workers and waits until each has opened its store, so no fault hits a JVM still starting. */
    void startAndAwaitReady(int workers) {
        for (int i = 0; i < workers; i++) {
            start();
        }
        long giveUp = System.currentTimeMillis() + 60_000;
        while (live.stream().anyMatch(w -> !w.ready)) {
            if (System.currentTimeMillis() > giveUp || live.stream().anyMatch(w -> !w.ready && !w.process.isAlive())) {
                throw new WorkerDidNotStart("a worker did not start; see the .err files in " + dir + lastError());
            }
            sleep(10);
        }
    }

    /** A worker died or hung before it said READY: its store could not open the database, most often. */
    static final class WorkerDidNotStart extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        WorkerDidNotStart(String message) {
            super(message);
        }
    }

    /** The last line a dead worker wrote to its .err file (an exception's message, mostly), or "". */
    private String lastError() {
        for (Worker worker : live) {
            Path err = dir.resolve(worker.name + ".err");
            if (!worker.process.isAlive() && Files.exists(err)) {
                try {
                    List<String> lines = Files.readAllLines(err).stream().filter(l -> !l.isBlank()
                            && !l.startsWith("\tat ")).toList();
                    if (!lines.isEmpty()) {
                        return " (" + worker.name + ": " + lines.get(0) + ")";
                    }
                } catch (IOException e) {
                    return "";
                }
            }
        }
        return "";
    }

    /** The file that exists while a worker of the fleet in {@code dir} is paused. */
    static Path pauseMarker(Path dir) {
        return dir.resolve("paused");
    }

    /** The history files of every worker started so far, killed ones included. */
    List<Path> histories() {
        return List.copyOf(histories);
    }

    /**
     * Lets the workers race for {@code raceMillis} and injects faults at random moments in the
     * middle 80% of its first part, which leaves {@link #LEASES_AFTER_THE_FAULTS} leases after it:
     * {@code kills} times a {@code kill -9} of a random worker (replaced by a new one while more
     * than a second is left), and {@code pauses} times a {@code SIGSTOP} of a worker that holds a
     * lease, for three times {@code ttlMillis}, then {@code SIGCONT}. The worker paused last is
     * not killed: its late writes after it wakes are what the pause is for. Returns when the race
     * time is over.
     */
    Faults race(long raceMillis, int kills, int pauses, long ttlMillis) {
        requireRoomForFaults(Duration.ofMillis(raceMillis), ttlMillis);
        long faultWindow = raceMillis - LEASES_AFTER_THE_FAULTS * ttlMillis;
        long start = System.currentTimeMillis();
        long end = start + raceMillis;
        List<Long> moments = new ArrayList<>();
        for (int i = 0; i < kills + pauses; i++) {
            // A moment drawn late in the whole race once lost the pause of every race with that
            // seed: the third attempt of a clean-clone CI run's guest drain, which failed the build.
            moments.add(faultWindow / 10 + (long) (random.nextDouble() * faultWindow * 0.8));
        }
        Collections.sort(moments);
        List<Boolean> isKill = new ArrayList<>();
        for (int i = 0; i < moments.size(); i++) {
            isKill.add(i < kills);
        }
        Collections.shuffle(isKill, random);
        int killed = 0;
        List<Pause> paused = new ArrayList<>();
        List<String> log = new ArrayList<>();
        for (int i = 0; i < moments.size(); i++) {
            sleepUntil(start + moments.get(i));
            // Faults that earlier ones pushed too late are dropped: the result counts only those made.
            long left = end - System.currentTimeMillis();
            if (isKill.get(i) ? left <= 0 : left < LEASES_AFTER_THE_FAULTS * ttlMillis) {
                continue;
            }
            if (isKill.get(i)) {
                String victim = killOne(end);
                if (victim != null) {
                    killed++;
                    log.add("kill -9 " + victim + " at " + HostClock.nanos());
                }
            } else {
                Pause pause = pauseOne(ttlMillis);
                if (pause != null) {
                    lastPaused = pause.worker();
                    paused.add(pause);
                    log.add("SIGSTOP " + pause.worker() + " at " + pause.stoppedAt() + ", SIGCONT at " + pause.resumedAt());
                }
            }
        }
        sleepUntil(end);
        return new Faults(killed, List.copyOf(paused), List.copyOf(log));
    }

    /**
     * Writes {@code stopFile}, which tells the workers to finish, and waits for each.
     *
     * @return a line for each worker that did not stop in time or exited with an error: a worker
     *     that crashed on its own makes the run worthless
     */
    List<String> stop(Path stopFile) {
        try {
            Files.writeString(stopFile, "stop");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the stop file " + stopFile, e);
        }
        List<String> crashes = new ArrayList<>();
        for (Worker worker : live) {
            try {
                if (!worker.process.waitFor(30, TimeUnit.SECONDS)) {
                    crashes.add(worker.name + " did not stop within 30 s of the stop file (" + historyLines(worker.name)
                            + " lines of history: none means its JVM never got to run, a starved machine rather than a store at fault)");
                } else if (worker.process.exitValue() != 0) {
                    crashes.add(worker.name + " exited with " + worker.process.exitValue() + " (see "
                            + dir.resolve(worker.name + ".err") + ")");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while stopping workers", e);
            }
        }
        return crashes;
    }

    private long historyLines(String worker) {
        try (var lines = Files.lines(dir.resolve(worker + ".jsonl"))) {
            return lines.count();
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    /** Kills what is left and waits until it is gone: a worker still writing its history would look like damage. */
    @Override
    public void close() {
        live.forEach(WorkerFleet::killWithChildren);
        live.forEach(w -> w.process.onExit().join());
        if (signaller != null) {
            signals.close();  // the shell exits at the end of its input
            signaller.onExit().join();
        }
    }

    private void start() {
        String name = "w" + started++;
        Path history = dir.resolve(name + ".jsonl");
        histories.add(history);
        List<String> line = new ArrayList<>();
        line.add(ChildJvm.java());
        line.addAll(List.of("-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-cp", ChildJvm.classPath()));
        line.addAll(command.of(name, history));
        try {
            Process process = new ProcessBuilder(line).redirectError(dir.resolve(name + ".err").toFile()).start();
            Worker worker = new Worker(process, name);
            Thread reader = new Thread(() -> follow(worker), "follow-" + name);
            reader.setDaemon(true);
            reader.start();
            live.add(worker);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start worker " + line, e);
        }
    }

    /** Tracks whether the worker holds a lease, from the lines it prints. */
    private static void follow(Worker worker) {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(worker.process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                worker.ready = true;
                worker.holding = line.startsWith("HOLD");
                if (worker.holding) {
                    worker.lastHold = line;
                }
            }
        } catch (IOException e) {
            // The worker died: nothing more to follow.
        }
    }

    /**
     * SIGKILL to a worker and to the processes it started (a guest store served over the worker
     * protocol runs in a child process): the whole worker dies at once, wherever it was, as a
     * worker without children does. The children are listed first: once their parent is gone
     * they are no longer its descendants.
     */
    private static void killWithChildren(Worker worker) {
        List<ProcessHandle> children = worker.process.descendants().toList();
        worker.process.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
    }

    /** The worker's pid and its children's, for a signal that must reach all of it. */
    private static String pids(Worker worker) {
        StringBuilder pids = new StringBuilder(Long.toString(worker.process.pid()));
        worker.process.descendants().forEach(child -> pids.append(' ').append(child.pid()));
        return pids.toString();
    }

    /** Kills a random worker but the one paused last; returns its name, or null if it had died already or none is left. */
    private String killOne(long end) {
        List<Worker> killable = live.stream().filter(w -> !w.name.equals(lastPaused)).toList();
        if (killable.isEmpty()) {
            return null;
        }
        Worker victim = killable.get(random.nextInt(killable.size()));
        if (!victim.process.isAlive()) {
            return null;
        }
        killWithChildren(victim);  // SIGKILL: no shutdown hooks, no rollback, no flush
        victim.process.onExit().join();
        live.remove(victim);
        if (end - System.currentTimeMillis() > 1000) {
            start();
        }
        return victim.name;
    }

    /**
     * Pauses the first worker seen holding a lease; null when none held one for twenty leases.
     * A worker that turns out to have left its lease's work when the signal landed (it said so
     * just before: a call to the store may be in flight, holding a lock) is resumed at once and
     * another moment is sought: a pause inside a write freezes the database instead of letting
     * the lease be taken over.
     */
    private Pause pauseOne(long ttlMillis) {
        long giveUp = System.currentTimeMillis() + 20 * ttlMillis;
        while (System.currentTimeMillis() < giveUp) {
            for (Worker worker : live) {
                if (worker.holding && worker.process.isAlive()) {
                    String pid = pids(worker);
                    mark(heldJobs(worker.lastHold));
                    long stoppedAt = HostClock.nanos();
                    signal("-STOP", pid);
                    sleep(10);  // time for the follower to read what the worker said before it stopped
                    boolean stillHolding = worker.holding;
                    if (stillHolding) {
                        sleep(3 * ttlMillis - 10);
                    }
                    signal("-CONT", pid);
                    long resumedAt = HostClock.nanos();
                    try {
                        Files.delete(pauseMarker(dir));
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot delete " + pauseMarker(dir), e);
                    }
                    if (stillHolding) {
                        return new Pause(worker.name, stoppedAt, resumedAt);
                    }
                }
            }
            sleep(1);
        }
        return null;
    }

    /**
     * Sends a signal through a shell kept for it: starting a {@code kill} process per signal took
     * tens of milliseconds on a busy machine, long enough for a worker to finish its batch, so
     * the pause hit a worker that no longer held a lease.
     */
    private void signal(String signal, String pid) {
        try {
            if (signaller == null) {
                signaller = new ProcessBuilder("sh").redirectErrorStream(true).start();
                signals = new PrintStream(signaller.getOutputStream(), true, StandardCharsets.UTF_8);
                answers = new BufferedReader(new InputStreamReader(signaller.getInputStream(), StandardCharsets.UTF_8));
            }
            signals.println("kill " + signal + " " + pid + " && echo sent || echo failed");
            String answer = answers.readLine();
            if (!"sent".equals(answer)) {
                throw new IllegalStateException("kill " + signal + " " + pid + " failed: " + answer);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot send " + signal + " to " + pid, e);
        }
    }

    /** The job ids of a {@code HOLD job fence job fence ...} line. */
    private static List<String> heldJobs(String holdLine) {
        String[] words = holdLine.trim().split("\\s+");
        List<String> jobs = new ArrayList<>();
        for (int i = 1; i + 1 < words.length; i += 2) {
            jobs.add(words[i]);
        }
        return jobs;
    }

    /** Writes the pause marker whole, so that no worker reads half of it. */
    private void mark(List<String> jobs) {
        Path marker = pauseMarker(dir);
        Path next = dir.resolve("paused.next");
        try {
            Files.write(next, jobs);
            Files.move(next, marker, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + marker, e);
        }
    }

    private static void sleepUntil(long millis) {
        sleep(millis - System.currentTimeMillis());
    }

    private static void sleep(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while racing processes", e);
        }
    }
}
