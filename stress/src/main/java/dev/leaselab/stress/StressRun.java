package dev.leaselab.stress;

import dev.leaselab.lease.BrokenStore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One run of the gate: every correct store and every negative control through the thread race
 * driver, the process race driver with faults, and (when the plan says so) jcstress.
 */
public final class StressRun {

    private final StressPlan plan;
    private final Path work;
    private final PrintStream progress;
    private final List<Verdict> verdicts = new ArrayList<>();

    /**
     * @param plan how long and how hard to race
     * @param work where the database files, histories and jcstress results go
     * @param progress where a line per check goes as the run proceeds
     */
    public StressRun(StressPlan plan, Path work, PrintStream progress) {
        // Build every driver's settings now, so a wrong number fails before minutes of racing.
        plan.threadSettings(false);
        plan.threadSettings(true);
        plan.processSettings();
        if (plan.jcstressIterations() > 0) {
            new JcstressRunner(work, plan.jcstressIterations(), plan.jcstressTime(), progress);
        }
        this.plan = plan;
        this.work = work;
        this.progress = progress;
    }

    /** Runs every check and returns a verdict per check and store. */
    public List<Verdict> run() {
        List<StoreUnderTest> stores = new ArrayList<>(StoreUnderTest.allCorrect());
        stores.addAll(StoreUnderTest.controls());
        for (StoreUnderTest store : stores) {
            record(store, ThreadRaceDriver.run(store, work, plan.threadSettings(store.isControl())),
                    plan.minThreadOverlap());
        }
        for (StoreUnderTest store : stores) {
            if (store.isControl() && store.broken() != BrokenStore.COMPLETE_WITHOUT_FENCE_CHECK) {
                // Across processes only the stale writer is a control: a paused worker's late
                // complete is the fault that process mode adds. Claim races are the threads' job.
                continue;
            }
            record(store, ProcessRaceDriver.run(store, work, plan.processSettings()), plan.minProcessOverlap());
        }
        if (plan.jcstressIterations() > 0) {
            verdicts.addAll(new JcstressRunner(work, plan.jcstressIterations(), plan.jcstressTime(), progress)
                    .runAll(plan.jcstressPerStrategy()));
        }
        return verdicts;
    }

    private void record(StoreUnderTest store, RaceResult result, long minOverlap) {
        Verdict verdict = Verdict.of(store, result, minOverlap);
        verdicts.add(verdict);
        progress.printf(Locale.ROOT, "%-40s %-10s %6d races, %6d overlapping, %3d kills, %3d pauses, %5.1f s: %s%n",
                store.name(), result.mode(), result.races(), result.racesWithOverlap(), result.kills(),
                result.pauses(), result.millis() / 1000.0, verdict.outcome());
        progress.flush();
    }
}
