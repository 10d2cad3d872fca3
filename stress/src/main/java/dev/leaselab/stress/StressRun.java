package dev.leaselab.stress;

import dev.leaselab.lease.LockingStrategy.Engine;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.IntFunction;
import java.util.function.ObjIntConsumer;
import java.util.function.Predicate;

/**
 * One run of the gate: every correct store and every negative control of the chosen engines
 * through the thread race driver, the thread drain race ({@link DrainRaceDriver}), the process
 * race driver with faults, the process drain race ({@link ProcessDrainDriver}) and (when the plan
 * says so) jcstress, which races SQLite stores only (its actors share one JVM's stores; on
 * PostgreSQL the thread and process drivers race the same operations over real connections).
 */
public final class StressRun {

    private final StressPlan plan;
    private final List<Engine> engines;
    private final Path work;
    private final PrintStream progress;
    private final List<Verdict> verdicts = new ArrayList<>();
    private Guest guest;

    /**
     * @param plan how long and how hard to race
     * @param engines the engines whose strategies and controls race
     * @param work where the database files, histories and jcstress results go
     * @param progress where a line per check goes as the run proceeds
     */
    public StressRun(StressPlan plan, List<Engine> engines, Path work, PrintStream progress) {
        Objects.requireNonNull(engines, "engines");
        if (engines.isEmpty()) {
            throw new IllegalArgumentException("engines must name at least one engine");
        }
        // Check the server and build every driver's settings now, so that a missing server or a
        // wrong number fails before minutes of racing.
        if (engines.contains(Engine.POSTGRESQL)) {
            StressDatabase.requirePostgres();
        }
        plan.threadSettings(false);
        plan.threadSettings(true);
        plan.processSettings();
        plan.processDrainSettings();
        plan.threadDrainSettings(false);
        plan.threadDrainSettings(true);
        if (plan.jcstressIterations() > 0) {
            new JcstressRunner(work, plan.jcstressIterations(), plan.jcstressTime(), progress);
        }
        this.plan = plan;
        this.engines = List.copyOf(engines);
        this.work = work;
        this.progress = progress;
    }

    /**
     * Makes this run the guest's: instead of the project's own checks, the process race of the
     * guest's workers next to the workers of every SQLite strategy, on one file each, and one
     * race of the guest's workers alone; then, for a guest that is not a control, the process drain
     * the same way (next to every strategy, or the first, as the plan says, and alone), which
     * races its claimNext and completeAll. A guest that is a control must be caught in every
     * process race; the drains are left out for it, since most wrong changes never act in a queue.
     */
    public StressRun withGuest(Guest guest) {
        this.guest = java.util.Objects.requireNonNull(guest, "guest");
        if (!engines.contains(Engine.SQLITE)) {
            throw new IllegalArgumentException("a guest races on SQLite: --engine must include sqlite, not " + engines);
        }
        return this;
    }

    /** Runs every check and returns a verdict per check and store. */
    public List<Verdict> run() {
        if (guest != null) {
            return runGuest();
        }
        List<StoreUnderTest> stores = new ArrayList<>();
        for (Engine engine : engines) {
            stores.addAll(StoreUnderTest.allCorrect(engine));
            stores.addAll(StoreUnderTest.controls(engine));
        }
        for (StoreUnderTest store : stores) {
            record(store, ThreadRaceDriver.run(store, work, plan.threadSettings(store.isControl())),
                    plan.minThreadOverlap());
        }
        for (Engine engine : engines) {
            for (StoreUnderTest store : drained(engine, DrainRaceDriver.controls(engine))) {
                drain(store,
                        attempt -> DrainRaceDriver.run(store, attempt == 1 ? work : work.resolve("thread-drain-attempt-" + attempt),
                                plan.threadDrainSettings(store.isControl()).withSeed(plan.seed() + attempt - 1)),
                        plan.minThreadOverlap());
            }
        }
        for (StoreUnderTest store : stores) {
            if (store.isControl() && !store.isStaleWriterControl()) {
                // Across processes only the stale writer is a control: a paused worker's late
                // complete is the fault that process mode adds. Claim races are the threads' job.
                continue;
            }
            processRace(store);
        }
        ProcessDrainDriver.Settings processDrain = plan.processDrainSettings();
        for (Engine engine : engines) {
            for (StoreUnderTest store : drained(engine, ProcessDrainDriver.controls(engine))) {
                drain(store,
                        attempt -> ProcessDrainDriver.run(store, attempt == 1 ? work : work.resolve("drain-attempt-" + attempt),
                                processDrain.withSeed(processDrain.seed() + attempt - 1)),
                        plan.minProcessOverlap());
            }
        }
        if (plan.jcstressIterations() > 0 && engines.contains(Engine.SQLITE)) {
            verdicts.addAll(new JcstressRunner(work, plan.jcstressIterations(), plan.jcstressTime(), progress)
                    .runAll(plan.jcstressPerStrategy()));
        }
        return verdicts;
    }

    /**
     * How often a process race or a process drain races a stale-writer control that it did not
     * catch before the control counts as missed: the stale writer shows only when a paused
     * worker's complete lands between another worker's claim of the job and that worker's own
     * complete, which one short race with one pause does not always bring about (clean-clone CI
     * runs missed the PostgreSQL stale writer in the smoke profile: in the process drain once with
     * one race, once with three of which the last had no pause; in the process race once with its
     * one race). Every attempt is a new race with its own seed and folder.
     */
    static final int CONTROL_ATTEMPTS = 5;

    /**
     * How often a process race or a process drain races a correct store whose race was
     * inconclusive (too few overlapping races to judge, as on a loaded machine: a clean-clone CI
     * run beside a PIT run saw 4 of 24 process races of DEFERRED_RETRY overlap, 5 needed) before
     * the inconclusive verdict stands. A violation is never raced again: it is final.
     */
    static final int INCONCLUSIVE_ATTEMPTS = 3;

    /**
     * Whether a verdict is final, or another race with a new seed could change it: a control that
     * was not caught, or a correct store whose race was too quiet to judge.
     */
    static boolean settled(boolean control, Verdict.Outcome outcome) {
        return control ? outcome != Verdict.Outcome.MISSED : outcome != Verdict.Outcome.INCONCLUSIVE;
    }

    /**
     * The race that ended a {@link #raceUntilCaught} loop.
     *
     * @param result what the race gave
     * @param attempt its number, from 1
     */
    record LastRace<R>(R result, int attempt) {
    }

    /**
     * Races again, with the attempt's number (from 1) passed to {@code race}, until {@code caught}
     * holds of a result or {@code attempts} races have run; tells {@code missed} of every race
     * that is followed by another.
     */
    static <R> LastRace<R> raceUntilCaught(int attempts, IntFunction<R> race, Predicate<R> caught,
            ObjIntConsumer<R> missed) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1: " + attempts);
        }
        R result = race.apply(1);
        int attempt = 1;
        while (attempt < attempts && !caught.test(result)) {
            missed.accept(result, attempt);
            result = race.apply(++attempt);
        }
        return new LastRace<>(result, attempt);
    }

    private void processRace(StoreUnderTest store) {
        ProcessRaceDriver.Settings base = plan.processSettings();
        int attempts = store.isControl() ? CONTROL_ATTEMPTS : INCONCLUSIVE_ATTEMPTS;
        LastRace<RaceResult> last = raceUntilCaught(attempts,
                attempt -> ProcessRaceDriver.run(store,
                        attempt == 1 ? work : work.resolve("process-attempt-" + attempt),
                        base.withSeed(base.seed() + attempt - 1)),
                result -> settled(store.isControl(), Verdict.of(store, result, plan.minProcessOverlap()).outcome()),
                (result, attempt) -> progress.println(store.name() + " processes: "
                        + Verdict.of(store, result, plan.minProcessOverlap()).outcome() + " in attempt " + attempt
                        + " of " + attempts + ", racing again"));
        record(last.result(), Verdict.of(store, last.result(), plan.minProcessOverlap()));
    }

    /** The stores a drain race races on {@code engine}: every correct one (or the first, as the plan says), then its controls. */
    private List<StoreUnderTest> drained(Engine engine, List<StoreUnderTest> controls) {
        List<StoreUnderTest> correct = StoreUnderTest.allCorrect(engine);
        List<StoreUnderTest> drained = new ArrayList<>(plan.drainEveryStrategy() ? correct : correct.subList(0, 1));
        drained.addAll(controls);
        return drained;
    }

    /** Races a drain until its verdict is settled (as {@link #processRace} does), records it and prints its figures. */
    private void drain(StoreUnderTest store, IntFunction<DrainOutcome> race, long minOverlap) {
        int attempts = store.isControl() ? CONTROL_ATTEMPTS : INCONCLUSIVE_ATTEMPTS;
        LastRace<DrainOutcome> last = raceUntilCaught(attempts, race,
                result -> settled(store.isControl(), Verdict.ofDrain(store, result, minOverlap).outcome()),
                (result, attempt) -> progress.println(store.name() + " " + result.race().mode() + ": "
                        + Verdict.ofDrain(store, result, minOverlap).outcome() + " in attempt " + attempt
                        + " of " + attempts + ", racing again"));
        record(last.result().race(), Verdict.ofDrain(store, last.result(), minOverlap));
        progress.println("    " + last.result().summary() + (last.attempt() > 1 ? " (attempt " + last.attempt() + ")" : ""));
    }

    private List<Verdict> runGuest() {
        for (StoreUnderTest store : StoreUnderTest.allCorrect(Engine.SQLITE)) {
            raceGuest(store, false);
        }
        raceGuest(StoreUnderTest.correct(dev.leaselab.lease.LockingStrategy.IMMEDIATE), true);
        if (!guest.control()) {
            List<StoreUnderTest> correct = StoreUnderTest.allCorrect(Engine.SQLITE);
            for (StoreUnderTest store : plan.drainEveryStrategy() ? correct : correct.subList(0, 1)) {
                drainGuest(store, false);
            }
            drainGuest(StoreUnderTest.correct(dev.leaselab.lease.LockingStrategy.IMMEDIATE), true);
        }
        return verdicts;
    }

    /** One process drain of the guest, raced again while it is inconclusive, as the project's own are. */
    private void drainGuest(StoreUnderTest store, boolean alone) {
        String name = alone ? guest.name() : store.name() + "+" + guest.name();
        ProcessDrainDriver.Settings base = plan.processDrainSettings();
        long minOverlap = plan.minProcessOverlap();
        long started = System.nanoTime();
        LastRace<DrainOutcome> last;
        try {
            last = raceUntilCaught(INCONCLUSIVE_ATTEMPTS,
                    attempt -> ProcessDrainDriver.runWithGuest(store, guest, alone,
                            attempt == 1 ? work : work.resolve("guest-drain-attempt-" + attempt), base.withSeed(base.seed() + attempt - 1)),
                    result -> settled(false, Verdict.ofDrain(name, false, result, minOverlap).outcome()),
                    (result, attempt) -> progress.println(name + " process-drain: " + Verdict.ofDrain(name, false, result, minOverlap)
                            .outcome() + " in attempt " + attempt + " of " + INCONCLUSIVE_ATTEMPTS + ", racing again"));
        } catch (WorkerFleet.WorkerDidNotStart e) {
            workersDidNotStart(name, "process-drain", started, e);
            return;
        }
        record(last.result().race(), Verdict.ofDrain(name, false, last.result(), minOverlap));
        progress.println("    " + last.result().summary() + (last.attempt() > 1 ? " (attempt " + last.attempt() + ")" : ""));
    }

    /**
     * One race of the guest. A guest whose workers cannot even start (its store fails to open the
     * file another worker created, say) has shown a violation: the row says so instead of the run
     * stopping.
     */
    private void raceGuest(StoreUnderTest store, boolean alone) {
        String name = alone ? guest.name() : store.name() + "+" + guest.name();
        long started = System.nanoTime();
        RaceResult result;
        try {
            result = ProcessRaceDriver.runWithGuest(store, guest, alone, work, plan.processSettings());
        } catch (WorkerFleet.WorkerDidNotStart e) {
            workersDidNotStart(name, "processes", started, e);
            return;
        }
        record(result, Verdict.of(result.store(), guest.control(), result, plan.minProcessOverlap()));
    }

    /** Records a race of the guest whose workers could not start: one violation, caught if the guest is a control. */
    private void workersDidNotStart(String name, String mode, long started, WorkerFleet.WorkerDidNotStart e) {
        Verdict verdict = new Verdict(name, mode, guest.control(), 0, 0, -1, -1, 0, 1, -1, 0, 0,
                (System.nanoTime() - started) / 1_000_000,
                guest.control() ? Verdict.Outcome.CAUGHT : Verdict.Outcome.FAIL, e.getMessage());
        verdicts.add(verdict);
        progress.println(name + ": " + verdict.outcome() + ": " + e.getMessage());
    }

    private void record(StoreUnderTest store, RaceResult result, long minOverlap) {
        record(result, Verdict.of(store, result, minOverlap));
    }

    private void record(RaceResult result, Verdict verdict) {
        verdicts.add(verdict);
        progress.printf(Locale.ROOT, "%-50s %-13s %6d races, %6d overlapping,%s %3d kills, %3d pauses, %5.1f s: %s%n",
                verdict.store(), result.mode(), result.races(), result.racesWithOverlap(),
                verdict.claimManyMeasured() < 0 ? "" : " claimMany overlap " + verdict.manyOverlap() + ",",
                result.kills(), result.pauses(), result.millis() / 1000.0, verdict.outcome());
        progress.flush();
    }
}
