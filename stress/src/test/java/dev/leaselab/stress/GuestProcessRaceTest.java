package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.testkit.PythonGuest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Another language's lease store in the process race: the contract's design in Python
 * ({@code examples/python}, served over the worker protocol) races next to Java workers of every
 * SQLite strategy on one file, and alone, through the smoke profile's {@code kill -9} and
 * {@code SIGSTOP} faults, judged by the same checker. Its wrong changes that a race can show
 * (a claim that reads and writes in two transactions, a release that resets the fence) are the
 * negative controls: each must be caught next to correct Java workers. So are two that only the
 * workers' contract probes bring about: a claim refused at the exact expiry (rule 9) and the
 * state of a missing job read as a row of defaults (rule 10).
 */
class GuestProcessRaceTest {

    private static final StressPlan PLAN = StressPlan.Profile.SMOKE.plan();

    @TempDir
    Path dir;

    private static Guest python(String mutation) {
        return new Guest(mutation == null ? "python" : "python-" + mutation, PythonGuest.command(mutation), mutation != null);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = LockingStrategy.class, names = "PG_.*", mode = EnumSource.Mode.MATCH_NONE)
    void pythonAndJavaWorkersShareOneFileThroughKillsAndPauses(LockingStrategy strategy) {
        RaceResult result = ProcessRaceDriver.runWithGuest(StoreUnderTest.correct(strategy), python(null), false, dir,
                PLAN.processSettings());
        Verdict verdict = Verdict.of(result.store(), false, result, PLAN.minProcessOverlap());
        assertEquals(strategy.name() + "+python", result.store());
        assertEquals(Verdict.Outcome.PASS, verdict.outcome(), verdict.row() + "\n" + verdict.detail());
        assertTrue(result.kills() >= 1 && result.pauses() >= 1, verdict.row());
        assertNoWorkerOrGuestLeft();
    }

    @Test
    void pythonWorkersAloneRaceThroughKillsAndPauses() {
        RaceResult result = ProcessRaceDriver.runWithGuest(StoreUnderTest.correct(LockingStrategy.IMMEDIATE), python(null),
                true, dir, PLAN.processSettings());
        Verdict verdict = Verdict.of(result.store(), false, result, PLAN.minProcessOverlap());
        assertEquals("python", result.store());
        assertEquals(Verdict.Outcome.PASS, verdict.outcome(), verdict.row() + "\n" + verdict.detail());
        assertNoWorkerOrGuestLeft();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"CLAIM_READ_THEN_WRITE", "RELEASE_RESETS_FENCE", "CLAIM_AT_EXPIRY_IS_HELD",
            "STATE_OF_MISSING_IS_EMPTY_ROW"})
    void aWrongChangeOfThePythonDesignIsCaughtNextToJavaWorkers(String mutation) {
        RaceResult result = ProcessRaceDriver.runWithGuest(StoreUnderTest.correct(LockingStrategy.IMMEDIATE),
                python(mutation), false, dir, PLAN.processSettings());
        Verdict verdict = Verdict.of(result.store(), true, result, PLAN.minProcessOverlap());
        assertEquals(Verdict.Outcome.CAUGHT, verdict.outcome(), verdict.row() + "\n" + verdict.detail());
        assertTrue(result.opsUntilFirstViolation() > 0, verdict.row());
    }

    /**
     * A Java store of the user's, given by its provider class ({@code --store-class}), is served by
     * {@code ProtocolServer} in a JVM of its own and raced like any guest: the correct one passes,
     * a read-then-write claim is caught.
     */
    @Test
    void aJavaStoreGivenByItsProviderClassIsRacedAsAGuest() {
        Guest correct = Guest.javaStore(ImmediateStoreProvider.class.getName(), false);
        assertEquals("ImmediateStoreProvider", correct.name());
        RaceResult passed = ProcessRaceDriver.runWithGuest(StoreUnderTest.correct(LockingStrategy.CONDITIONAL_UPDATE), correct,
                false, dir, PLAN.processSettings());
        Verdict pass = Verdict.of(passed.store(), false, passed, PLAN.minProcessOverlap());
        assertEquals(Verdict.Outcome.PASS, pass.outcome(), pass.row() + "\n" + pass.detail());

        RaceResult broken = ProcessRaceDriver.runWithGuest(StoreUnderTest.correct(LockingStrategy.IMMEDIATE),
                Guest.javaStore(ReadThenWriteStoreProvider.class.getName(), true), false, dir, PLAN.processSettings());
        Verdict caught = Verdict.of(broken.store(), true, broken, PLAN.minProcessOverlap());
        assertEquals(Verdict.Outcome.CAUGHT, caught.outcome(), caught.row() + "\n" + caught.detail());
        assertNoWorkerOrGuestLeft();
    }

    /**
     * The process drain with the Python design's workers, next to Java workers and alone, through
     * {@code kill -9} and {@code SIGSTOP}: every job done, none completed twice, claimNext calls of
     * different processes met, and batches were completed by the guest's completeAll. A race that
     * proved nothing is raced again, as the stress run does.
     */
    @ParameterizedTest(name = "alone: {0}")
    @ValueSource(booleans = {false, true})
    void pythonWorkersDrainOneQueueNextToJavaWorkersAndAlone(boolean alone) {
        ProcessDrainDriver.DrainResult result = drainWithGuest(python(null), alone, false);
        Verdict verdict = Verdict.ofDrain(result.race().store(), false, result, PLAN.minProcessOverlap());
        assertEquals(alone ? "python" : "IMMEDIATE+python", result.race().store());
        assertEquals(Verdict.Outcome.PASS, verdict.outcome(), verdict.row() + "\n" + verdict.detail());
        assertTrue(result.completeAllCalls() > 0 && result.race().kills() >= 1 && result.race().pauses() >= 1, result.summary());
        assertEquals(0, result.duplicateAcceptedCompletions(), result.summary());
        assertNoWorkerOrGuestLeft();
    }

    /**
     * The negative control of the guest's drain: a guest whose claimNext picks in one statement and
     * writes in another (a Java store served over the protocol) hands jobs out twice, and the drain
     * must catch it, so the guest's own calls are in the history that is judged.
     */
    @Test
    void aGuestWhoseClaimNextReadsThenWritesIsCaughtInTheDrain() {
        ProcessDrainDriver.DrainResult result = drainWithGuest(
                Guest.javaStore(ClaimNextReadThenWriteStoreProvider.class.getName(), true), true, true);
        Verdict verdict = Verdict.ofDrain(result.race().store(), true, result, PLAN.minProcessOverlap());
        assertEquals(Verdict.Outcome.CAUGHT, verdict.outcome(), verdict.row() + "\n" + verdict.detail());
        assertNoWorkerOrGuestLeft();
    }

    private ProcessDrainDriver.DrainResult drainWithGuest(Guest guest, boolean alone, boolean control) {
        ProcessDrainDriver.Settings settings = PLAN.processDrainSettings();
        return StressRun.raceUntilCaught(control ? StressRun.CONTROL_ATTEMPTS : StressRun.INCONCLUSIVE_ATTEMPTS,
                attempt -> ProcessDrainDriver.runWithGuest(StoreUnderTest.correct(LockingStrategy.IMMEDIATE), guest, alone,
                        attempt == 1 ? dir : dir.resolve("attempt-" + attempt), settings.withSeed(settings.seed() + attempt - 1)),
                r -> r.race().violated() || !control && r.unproven() == null,
                (r, attempt) -> System.out.println("guest drain " + guest.name() + ": attempt " + attempt + ": " + r.summary()))
                .result();
    }

    /**
     * A guest whose workers cannot open the file another worker created (the table created without
     * IF NOT EXISTS) is caught in every race of the run, with the worker's own error, instead of
     * stopping the run.
     */
    @Test
    void aGuestWhoseWorkersCannotOpenTheFileIsCaughtInEveryRace() {
        List<Verdict> verdicts = new StressRun(PLAN, List.of(dev.leaselab.lease.LockingStrategy.Engine.SQLITE), dir,
                new java.io.PrintStream(java.io.OutputStream.nullOutputStream())).withGuest(python("TABLE_WITHOUT_IF_NOT_EXISTS"))
                .run();
        assertEquals(LockingStrategy.of(dev.leaselab.lease.LockingStrategy.Engine.SQLITE).size() + 1, verdicts.size());
        for (Verdict verdict : verdicts) {
            assertEquals(Verdict.Outcome.CAUGHT, verdict.outcome(), verdict.row());
            assertTrue(verdict.detail().contains("already exists"), verdict.detail());
        }
        assertNoWorkerOrGuestLeft();
    }

    /** A kill reaches the guest's process too, and a stopped race leaves none behind. */
    private void assertNoWorkerOrGuestLeft() {
        String folder = dir.toString();
        List<String> left = ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .map(p -> p.info().commandLine().orElse(""))
                .filter(line -> line.contains(folder)).toList();
        assertEquals(List.of(), left, "processes of the race still running");
    }
}
