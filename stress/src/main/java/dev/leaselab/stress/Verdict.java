package dev.leaselab.stress;

import java.util.Locale;

/**
 * The gate's judgement of one check of one store, a row of the verdict table.
 *
 * @param store the store's name
 * @param check which check ("threads", "processes", "process-drain", "jcstress ...")
 * @param control whether the store is a negative control
 * @param races races run
 * @param racesWithOverlap races whose attempts really overlapped (-1 where not measured: jcstress)
 * @param claimManyMeasured claimMany rounds whose claims were stamped ({@code ClaimManyProbe}): 0
 *     when the store stamps none (overlap not measured), -1 when the check runs no claimMany
 * @param claimManyOverlapped of those, the rounds in which two claims overlapped in time (-1 as above)
 * @param operations operations run
 * @param violations violations found
 * @param opsUntilFirstViolation operations run until the first violation, or -1
 * @param kills workers killed
 * @param pauses workers paused past their lease
 * @param millis how long the check took
 * @param outcome the verdict
 * @param detail the first violation's witness, or why the verdict is what it is
 */
public record Verdict(String store, String check, boolean control, long races, long racesWithOverlap,
        long claimManyMeasured, long claimManyOverlapped, long operations, long violations,
        long opsUntilFirstViolation, int kills, int pauses, long millis, Outcome outcome, String detail) {

    /** What a row says. */
    public enum Outcome {
        /** A correct store showed no violation in enough overlapping races. */
        PASS,
        /** A correct store showed no violation, but too few races overlapped to mean much. */
        INCONCLUSIVE,
        /** A correct store showed a violation. */
        FAIL,
        /** A negative control showed a violation, as it must. */
        CAUGHT,
        /** A negative control showed none: the gate cannot be trusted. */
        MISSED;

        /** Whether this row lets the gate pass. */
        public boolean good() {
            return this == PASS || this == CAUGHT;
        }
    }

    /** Judges a race-driver run: {@code minOverlap} overlapping races are needed for a pass. */
    public static Verdict of(StoreUnderTest store, RaceResult result, long minOverlap) {
        return of(store.name(), store.isControl(), result, minOverlap);
    }

    /**
     * Judges a race-driver run of a store named {@code name}, which must show a violation if it is
     * a {@code control} and none otherwise (e.g. a {@link Guest} raced next to a strategy).
     */
    public static Verdict of(String name, boolean control, RaceResult result, long minOverlap) {
        Outcome outcome;
        String detail;
        if (control) {
            outcome = result.violated() ? Outcome.CAUGHT : Outcome.MISSED;
            detail = result.violated() ? firstViolation(result) : "no violation in " + result.races() + " races";
        } else if (result.violated()) {
            outcome = Outcome.FAIL;
            detail = firstViolation(result);
        } else if (result.racesWithOverlap() < minOverlap) {
            outcome = Outcome.INCONCLUSIVE;
            detail = "only " + result.racesWithOverlap() + " overlapping races, " + minOverlap + " needed";
        } else if (result.claimManyMeasured() > 0 && result.claimManyOverlapped() == 0) {
            // Fewer rounds than the driver needs to call it a violation: too few to judge.
            outcome = Outcome.INCONCLUSIVE;
            detail = "the claims inside claimMany overlapped in none of only " + result.claimManyMeasured()
                    + " measured rounds, " + ThreadRaceDriver.OVERLAP_ROUNDS + " needed to judge";
        } else {
            outcome = Outcome.PASS;
            detail = result.check().staleWritesRejected() + " of " + result.check().staleWrites()
                    + " stale writes refused; " + result.unknownOutcomes() + " operations without answer"
                    + " (killed mid-call or database error)"
                    + (result.claimManyRounds() == 0 ? "" : "; " + result.claimManyFailures() + " of "
                            + result.claimManyRounds() + " claimMany rounds failed with a database error; "
                            + claimManyOverlap(result))
                    + "; integrity_check " + result.integrity();
        }
        boolean claimMany = result.claimManyRounds() > 0;
        return new Verdict(name, result.mode(), control, result.races(), result.racesWithOverlap(),
                claimMany ? result.claimManyMeasured() : -1, claimMany ? result.claimManyOverlapped() : -1,
                result.operations(), result.violations(), result.opsUntilFirstViolation(), result.kills(),
                result.pauses(), result.millis(), outcome, detail);
    }

    /** What the claimMany rounds of a run showed of their claims' overlap. */
    static String claimManyOverlap(RaceResult result) {
        if (result.claimManyMeasured() == 0) {
            return "claimMany overlap not measured (the store stamps no claims: ClaimManyProbe)";
        }
        return "the claims overlapped in " + result.claimManyOverlapped() + " of " + result.claimManyMeasured()
                + " measured claimMany rounds";
    }

    /**
     * Judges a drain run, of threads or of processes, as {@link #of} does, and more: a correct
     * store's run that proved nothing ({@link DrainOutcome#unproven()}: no claimNext calls of
     * different workers met, or no stall or pause led to a refused stale write) is inconclusive,
     * with why, so that the run races it again with a new seed and a run whose every attempt proved
     * nothing does not pass (a clean-clone CI run had one SIGSTOP pause of the smoke's PG_ROW_LOCK
     * process drain end with no write of the paused worker after its job was taken over: that is
     * a race that did not happen, not a violation). A pass names the run's figures.
     */
    static Verdict ofDrain(StoreUnderTest store, DrainOutcome result, long minOverlap) {
        return ofDrain(store.name(), store.isControl(), result, minOverlap);
    }

    /** As {@link #ofDrain(StoreUnderTest, DrainOutcome, long)}, for a drain named {@code name}, such as a guest's. */
    static Verdict ofDrain(String name, boolean control, DrainOutcome result, long minOverlap) {
        Verdict verdict = of(name, control, result.race(), minOverlap);
        if (control || verdict.outcome() == Outcome.FAIL) {
            return verdict;
        }
        String unproven = result.unproven();
        if (unproven != null) {
            return verdict.with(Outcome.INCONCLUSIVE, unproven + "; " + result.summary());
        }
        return verdict.with(verdict.outcome(), result.summary() + "; " + verdict.detail());
    }

    private Verdict with(Outcome outcome, String detail) {
        return new Verdict(store, check, control, races, racesWithOverlap, claimManyMeasured, claimManyOverlapped,
                operations, violations, opsUntilFirstViolation,
                kills, pauses, millis, outcome, detail);
    }

    private static String firstViolation(RaceResult result) {
        if (result.firstViolation() != null) {
            return result.firstViolation();
        }
        if (!result.check().passed()) {
            return result.check().describeViolations(1);
        }
        return (result.integrity().startsWith(WorkerFleet.CRASHED) ? "" : "integrity_check: ") + result.integrity();
    }

    /** One line of the table. */
    public String row() {
        return String.format(Locale.ROOT, "%-50s %-22s %8d %8s %12s %9d %5d %9s %5d %6d %7.1f  %s", store, check, races,
                racesWithOverlap < 0 ? "-" : racesWithOverlap, manyOverlap(), operations, violations,
                opsUntilFirstViolation < 0 ? "-" : opsUntilFirstViolation,
                kills, pauses, millis / 1000.0, outcome);
    }

    /**
     * The claimMany column: measured rounds whose claims overlapped, of the measured rounds
     * ({@code 57/60}), "not measured" for a store that stamps no claims, "-" without claimMany.
     */
    String manyOverlap() {
        if (claimManyMeasured < 0) {
            return "-";
        }
        return claimManyMeasured == 0 ? "not measured" : claimManyOverlapped + "/" + claimManyMeasured;
    }

    /** The header of the table. */
    public static String header() {
        return String.format(Locale.ROOT, "%-50s %-22s %8s %8s %12s %9s %5s %9s %5s %6s %7s  %s", "store", "check", "races",
                "overlap", "many-overlap", "ops", "viol", "ops->1st", "kills", "pauses", "seconds", "verdict");
    }
}
