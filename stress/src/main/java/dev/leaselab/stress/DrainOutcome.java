package dev.leaselab.stress;

/**
 * What a drain race saw, as its verdict needs it: the race of its {@code claimNext} calls, why a
 * run of a correct store that passed may still prove nothing, and its figures in one line. The
 * thread drain ({@link DrainRaceDriver}) and the process drain ({@link ProcessDrainDriver}) are
 * judged alike through it ({@link Verdict#ofDrain}).
 */
interface DrainOutcome {

    RaceResult race();

    /** Why the run proves nothing although it may have passed, or null when it does prove something. */
    String unproven();

    /** The figures of the run, in one line. */
    String summary();
}
