package dev.leaselab.stress;

import java.time.Duration;
import java.util.Objects;

/**
 * How long and how hard a stress run races: one of the profiles, with any option changed.
 *
 * @param threads how long the thread race driver races each store
 * @param processes how long the process race driver races each store
 * @param drainProcesses how long the process drain race ({@link ProcessDrainDriver}) races each store
 * @param drainThreads how long the thread drain race ({@link DrainRaceDriver}) races each store
 * @param drainEveryStrategy whether the drain races race every strategy, or only the first of
 *     each engine (the smoke profile: {@code ProcessDrainRaceTest} and {@code DrainRaceTest} race
 *     every strategy in {@code mvn verify} already); their controls race either way
 * @param controlBudget how long a negative control may race before it counts as missed
 * @param owners the widest thread race
 * @param workers worker processes at once
 * @param kills SIGKILLs per process run
 * @param pauses SIGSTOP pauses per process run
 * @param minThreadOverlap overlapping thread races needed for a pass
 * @param minProcessOverlap overlapping process races needed for a pass
 * @param jcstressIterations jcstress's {@code -iters} per test; 0 skips jcstress
 * @param jcstressTime jcstress's {@code -time} per test, in milliseconds
 * @param jcstressPerStrategy one jcstress run per strategy (a failure names its strategy) instead
 *     of one run in which the states take turns over the strategies
 * @param seed the seed of every random choice
 */
public record StressPlan(Duration threads, Duration processes, Duration drainProcesses, Duration drainThreads,
        boolean drainEveryStrategy,
        Duration controlBudget, int owners, int workers,
        int kills, int pauses, long minThreadOverlap, long minProcessOverlap, int jcstressIterations, int jcstressTime,
        boolean jcstressPerStrategy, long seed) {

    public StressPlan {
        Objects.requireNonNull(threads, "threads");
        Objects.requireNonNull(processes, "processes");
        Objects.requireNonNull(drainProcesses, "drainProcesses");
        Objects.requireNonNull(drainThreads, "drainThreads");
        Objects.requireNonNull(controlBudget, "controlBudget");
    }

    /** The profiles: {@code smoke} runs in {@code mvn verify}, {@code quick} is the default, {@code long} is nightly. */
    public enum Profile {
        SMOKE(new StressPlan(Duration.ofMillis(1500), Duration.ofSeconds(4), Duration.ofMillis(2500), Duration.ofSeconds(1), false,
                Duration.ofSeconds(20), 6, 3, 1, 1,
                20, 5, 0, 200, false, 42)),
        QUICK(new StressPlan(Duration.ofSeconds(4), Duration.ofSeconds(6), Duration.ofSeconds(6), Duration.ofSeconds(3), true,
                Duration.ofSeconds(30), 8, 3, 2, 2,
                50, 10, 1, 300, false, 42)),
        LONG(new StressPlan(Duration.ofMinutes(2), Duration.ofMinutes(5), Duration.ofMinutes(5), Duration.ofMinutes(1), true,
                Duration.ofMinutes(2), 16, 4, 30, 30,
                500, 100, 5, 2000, true, 42));

        private final StressPlan plan;

        Profile(StressPlan plan) {
            this.plan = plan;
        }

        public StressPlan plan() {
            return plan;
        }
    }

    /** The thread driver's settings for a store. */
    ThreadRaceDriver.Settings threadSettings(boolean control) {
        return new ThreadRaceDriver.Settings(owners, control ? controlBudget : threads, Long.MAX_VALUE, seed);
    }

    /** The process driver's settings. */
    ProcessRaceDriver.Settings processSettings() {
        // One job in play: every worker that is not holding it is trying to claim it, so the claims
        // at each release or expiry really meet.
        return new ProcessRaceDriver.Settings(workers, processes, kills, pauses, 1, 200, seed);
    }

    /**
     * The thread drain driver's settings for a store: {@link #owners} threads draining rounds of
     * 40 jobs, for {@link #drainThreads} (a control: until caught, at most {@link #controlBudget}).
     */
    DrainRaceDriver.Settings threadDrainSettings(boolean control) {
        return new DrainRaceDriver.Settings(owners, 40, control ? controlBudget : drainThreads, Long.MAX_VALUE, seed);
    }

    /** The process drain driver's settings. */
    ProcessDrainDriver.Settings processDrainSettings() {
        // A round of a dozen jobs at a time and a lease of 200 ms: a pause of three leases lets
        // the paused worker's jobs be taken over while the others go on draining.
        return new ProcessDrainDriver.Settings(workers, drainProcesses, kills, pauses, 12, 200, seed);
    }
}
