package dev.leaselab.stress;

/**
 * What one race-driver run of one store saw.
 *
 * @param store the store's name ({@link StoreUnderTest#name()})
 * @param mode "threads", "processes" or "process-drain"
 * @param races claim races run (rounds of the thread driver; claims of jobs that others were
 *     claiming too, in the process driver; claimNext calls that handed out leases, in the
 *     process drain)
 * @param racesWithOverlap races in which the attempts really overlapped in time: the winner's
 *     claim was still running when a loser's began, or the reverse
 * @param operations lease operations run
 * @param unknownOutcomes operations without an answer (database errors, killed processes)
 * @param claimManyRounds rounds of the store's own {@code claimMany} (0 in the process driver)
 * @param claimManyFailures of those, the ones whose {@code claimMany} failed with a database
 *     error and so went unjudged
 * @param claimManyMeasured of the claimMany rounds that returned, those whose store stamped one
 *     claim per owner ({@code ClaimManyProbe}); 0 when the store stamps nothing: overlap not measured
 * @param claimManyOverlapped of the measured rounds, those in which two claims overlapped in time
 * @param opsUntilFirstViolation how many operations had run when the first violation showed,
 *     or -1 when none did
 * @param firstViolation the first violation with its witness, or null
 * @param check the history checker's verdict on the whole run
 * @param kills workers killed with SIGKILL
 * @param pauses workers paused with SIGSTOP past their lease and resumed
 * @param integrity the answer of {@code PRAGMA integrity_check} after the run ("ok"), or, after
 *     {@link WorkerFleet#CRASHED}, what went wrong with workers that crashed or hung on their own
 * @param millis how long the run took
 */
public record RaceResult(String store, String mode, long races, long racesWithOverlap, long operations,
        long unknownOutcomes, long claimManyRounds, long claimManyFailures, long claimManyMeasured,
        long claimManyOverlapped, long opsUntilFirstViolation,
        String firstViolation, CheckReport check, int kills, int pauses, String integrity, long millis) {

    /** Whether any violation showed: in the rounds themselves, in the history, or in the file. */
    public boolean violated() {
        return opsUntilFirstViolation >= 0 || !check.passed() || !"ok".equals(integrity);
    }

    /** Violations found: the first one seen during the rounds plus the checker's. */
    public int violations() {
        return (firstViolation != null ? 1 : 0) + check.violations().size() + ("ok".equals(integrity) ? 0 : 1);
    }
}
