package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.StoreOptions.BusyWait;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openjdk.jmh.annotations.Mode;

/**
 * What the profiles measure on each engine: no step ever combines a strategy of one engine with a
 * storage of the other (JMH would run that cross product), PostgreSQL is measured where the brief
 * of each profile says, and without a server its steps are dropped, loudly.
 */
class ProfileTest {

    private static final Engine PG = Engine.POSTGRESQL;
    /**
     * quick was held to about four minutes for the nine strategies it was sized for: 4.3 min with
     * the machine reference's 2 x 20 ms per iteration (4.1 min before it). Every strategy brings
     * its own six or seven forks of about 4 s, so the budget grows with the enum.
     */
    private static final double QUICK_SECONDS_PER_STRATEGY = 4.3 * 60 / 9;
    /** The slices of one of quick's (and the gate's) paired forks: 20 groups of warmup (6 s of 75 ms slices), 14 measured. */
    private static final int PAIRED_SLICES_PER_FORK = 80 + 56;
    /**
     * What the paired headline ratios added on top: three forks per strategy and storage, each of
     * 80 + 56 slices of 75 ms (6 s of warmup; no reference windows: the paired step does not
     * measure the reference), and the fork's own 3 s.
     */
    private static final double PAIRED_SECONDS_PER_FORK = PAIRED_SLICES_PER_FORK * 0.075 + Profile.FORK_OVERHEAD_SECONDS;

    @ParameterizedTest
    @ValueSource(strings = {"quick", "full", "smoke"})
    void everyStepOfEveryProfileRunsOneEngineAndBothEnginesAreMeasured(String name) {
        Profile profile = Profile.named(name);
        for (Profile.Step step : profile.steps()) {
            Engine engine = step.storages().get(0).engine();
            step.storages().forEach(st -> assertEquals(engine, st.engine(), step.describe()));
            step.strategies().forEach(ls -> assertEquals(engine, ls.engine(), step.describe()));
            assertTrue(!step.strategies().isEmpty(), "a step without strategies: " + step.describe());
        }
        assertTrue(profile.forkRuns(Engine.SQLITE) > 0, name);
        assertTrue(profile.forkRuns(PG) > 0, name);
        assertEquals(profile.forkRuns(), profile.forkRuns(Engine.SQLITE) + profile.forkRuns(PG));
    }

    @Test
    void aStepThatMixesEnginesIsRefusedNamingBoth() {
        IllegalArgumentException strategy = assertThrows(IllegalArgumentException.class, () -> new Profile.Step(
                BenchmarkId.CLAIM_HOT, Mode.Throughput, 1, List.of(Storage.WAL_NORMAL), List.of(LockingStrategy.PG_ROW_LOCK)));
        assertTrue(strategy.getMessage().contains("PG_ROW_LOCK") && strategy.getMessage().contains("WAL_NORMAL"),
                strategy.getMessage());
        IllegalArgumentException storages = assertThrows(IllegalArgumentException.class, () -> new Profile.Step(
                BenchmarkId.FLOOR, Mode.Throughput, 1, List.of(Storage.WAL_FULL, Storage.POSTGRESQL),
                List.of(LockingStrategy.IMMEDIATE)));
        assertTrue(storages.getMessage().contains("POSTGRESQL"), storages.getMessage());
    }

    @Test
    void quickMeasuresPostgresFloorAndHotJobAtOneAndEightThreadsAndTheRestAtEight() {
        Profile quick = Profile.named("quick");
        Set<String> pg = new TreeSet<>();
        for (Profile.Step s : quick.onlyEngine(PG).steps()) {
            assertEquals(List.of(Storage.POSTGRESQL), s.storages(), s.describe());
            assertEquals(LockingStrategy.of(PG), s.strategies(), s.describe());
            pg.add(s.benchmark() + " " + s.mode().shortLabel() + " " + s.threads());
        }
        assertEquals(new TreeSet<>(List.of(
                "FloorBenchmark.update thrpt 1", "FloorBenchmark.update thrpt 8",
                "ClaimBenchmark.hotJob thrpt 1", "ClaimBenchmark.hotJob thrpt 8",
                "RenewBenchmark.renew thrpt 8", "CompleteBenchmark.complete thrpt 8", "WorkerCycleBenchmark.cycle thrpt 8",
                "QueueBenchmark.one thrpt 8", "QueueBenchmark.batch thrpt 8", "QueueBenchmark.batchAll thrpt 8",
                "ClaimBenchmark.hotJob sample 8", "PairedClaimBenchmark.slice thrpt 8")), pg);
        int sqlite = LockingStrategy.of(Engine.SQLITE).size();
        int postgres = LockingStrategy.of(PG).size();
        // 2 floors + every strategy x (2 hot-job thread counts + renew, complete, cycle, the three queues + latency)
        // + every strategy paired, in three forks
        assertEquals(2 + postgres * 9 + postgres * 3, quick.forkRuns(PG));
        // 2 floors + every strategy x 2 storages at 1 thread, 1 floor + every strategy x 8 at 8 threads,
        // and every strategy paired on both WAL storages, in three forks
        assertEquals(2 + sqlite * 2 + 1 + sqlite * 8 + sqlite * 2 * 3, quick.forkRuns(Engine.SQLITE));
        int pairedForks = quick.steps().stream().filter(s -> s.benchmark() == BenchmarkId.PAIRED)
                .mapToInt(s -> s.combinations() * s.timingIn(quick).forks()).sum();
        // and the open loop: per SQLite strategy a JVM of 0.5 s warmup, 2 s calibration, and two loads of 0.5 + 2 s
        double openLoop = LockingStrategy.of(Engine.SQLITE).size() * (0.5 + 2 + 2 * (0.5 + 2) + OpenLoopStep.JVM_SECONDS);
        // and the queue (QueueBenchmark.one, .batch and .batchAll), three more forks per strategy at 8 threads
        double queueForkSeconds = (quick.warmupIterations() * (quick.warmupMillis() + 2 * quick.referenceMillis())
                + quick.measurementIterations() * (quick.measurementMillis() + 2 * quick.referenceMillis())) / 1000.0
                + Profile.FORK_OVERHEAD_SECONDS;
        double queue = LockingStrategy.values().length * 3 * queueForkSeconds;
        // and the processes: every SQLite strategy paired with the floor and open (at 0.5), in 1 and 4
        // processes on both WAL storages, 0.5 + 1.5 s each and 1 s for the worker JVMs; the same for
        // every PostgreSQL strategy
        double processes = 2 * (2 * 2 * LockingStrategy.of(Engine.SQLITE).size() + 2 * LockingStrategy.of(PG).size())
                * (0.5 + 1.5 + MultiProcessStep.JVM_SECONDS);
        double budget = LockingStrategy.values().length * QUICK_SECONDS_PER_STRATEGY + pairedForks * PAIRED_SECONDS_PER_FORK
                + openLoop + queue + processes;
        assertTrue(quick.estimatedSeconds() <= budget + 1e-6, "quick must stay at about four minutes (and its paired forks) for its "
                + LockingStrategy.values().length + " strategies (" + budget + " s): " + quick.estimatedSeconds());
    }

    @Test
    void fullMeasuresPostgresWhereverItMeasuresSqlite() {
        Profile full = Profile.named("full");
        assertEquals(shape(full.onlyEngine(Engine.SQLITE)), shape(full.onlyEngine(PG)));
        full.onlyEngine(PG).steps().forEach(s -> assertEquals(LockingStrategy.of(PG), s.strategies(), s.describe()));
    }

    @Test
    void smokeAddsConditionalUpdateOnPostgresForTheFloorAndTheHotJobAtTwoThreads() {
        List<Profile.Step> pg = Profile.named("smoke").onlyEngine(PG).steps();
        assertEquals(Set.of("FloorBenchmark.update thrpt 2", "ClaimBenchmark.hotJob thrpt 2"),
                pg.stream().map(s -> s.benchmark() + " " + s.mode().shortLabel() + " " + s.threads()).collect(Collectors.toSet()));
        pg.forEach(s -> assertEquals(List.of(LockingStrategy.PG_CONDITIONAL_UPDATE), s.strategies()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"quick", "full", "gate", "smoke"})
    void everyPairedSqliteStepWaitsJitteredWhateverTheProfileAndAskingByNameSetsEveryStep(String name) {
        Profile profile = Profile.named(name);
        List<Profile.Step> paired = profile.steps().stream().filter(s -> s.benchmark() == BenchmarkId.PAIRED).toList();
        assertTrue(!paired.isEmpty(), name);
        for (Profile.Step s : paired) {
            BusyWait expected = s.engine() == Engine.SQLITE ? BusyWait.JITTERED : profile.busyWait();
            assertEquals(expected, s.busyWaitIn(profile), s.describe());
            assertEquals(s.engine() == Engine.SQLITE, s.describe().contains("busyWait=JITTERED"), s.describe());
        }
        profile.steps().stream().filter(s -> s.benchmark() != BenchmarkId.PAIRED)
                .forEach(s -> assertEquals(profile.busyWait(), s.busyWaitIn(profile), s.describe()));
        Profile sleeping = profile.withBusyWait(BusyWait.SQLITE_SLEEPS);
        sleeping.steps().forEach(s -> assertEquals(BusyWait.SQLITE_SLEEPS, s.busyWaitIn(sleeping), s.describe()));
        // and each fork is started with its step's busy wait
        for (Profile.Step s : profile.steps()) {
            if (s.engine() == Engine.SQLITE) {
                String arg = "-D" + Storage.BUSY_WAIT_PROPERTY + "=" + s.busyWaitIn(profile);
                List<String> jvmArgs = BenchRun.options(profile, s, Path.of("tally.jsonl")).getJvmArgsAppend().get()
                        .stream().toList();
                assertTrue(jvmArgs.contains(arg), s.describe() + ": " + jvmArgs);
            }
        }
        // filters and a fork count keep a step's own busy wait
        Profile kept = profile.with(2, -1, -1, -1, -1).filter(s -> true, st -> true, ls -> true);
        kept.steps().stream().filter(s -> s.benchmark() == BenchmarkId.PAIRED && s.engine() == Engine.SQLITE)
                .forEach(s -> assertEquals(BusyWait.JITTERED, s.busyWaitIn(kept), s.describe()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"quick", "full", "gate"})
    void everyMeasuringPairedStepWarmsUpForSixSecondsInWholeGroups(String name) {
        // 1.2 s measured GROUP_COMMIT at 8 threads while its rate was still climbing
        // (results/paired-warmup-20261208); a fork count from the command line keeps the warmup.
        for (Profile profile : List.of(Profile.named(name), Profile.named(name).with(2, -1, -1, -1, -1))) {
            List<Profile.Step> paired = profile.steps().stream().filter(s -> s.benchmark() == BenchmarkId.PAIRED).toList();
            assertTrue(!paired.isEmpty(), name);
            for (Profile.Step s : paired) {
                Profile.Timing t = s.timingIn(profile);
                int groupMillis = PairedClaimBenchmark.GROUP * t.warmupMillis();
                assertEquals(0, t.warmupIterations() % PairedClaimBenchmark.GROUP, s.describe());
                assertTrue(t.warmupIterations() * t.warmupMillis() >= 6_000, s.describe());
                assertTrue(t.warmupIterations() * t.warmupMillis() < 6_000 + groupMillis, s.describe() + ": whole groups, no more");
            }
        }
    }

    @Test
    void smokeWarmsUpItsPairedStepForTwoGroupsOnly() {
        Profile smoke = Profile.named("smoke");
        List<Profile.Timing> paired = smoke.steps().stream().filter(s -> s.benchmark() == BenchmarkId.PAIRED)
                .map(s -> s.timingIn(smoke)).toList();
        assertEquals(1, paired.size());
        assertEquals(2 * PairedClaimBenchmark.GROUP, paired.get(0).warmupIterations());
        assertEquals(150, paired.get(0).warmupMillis());
    }

    @Test
    void filteringToPostgresStrategiesLeavesNoSqliteFloorBehind() {
        Profile p = Profile.named("quick").filter(s -> true, st -> true, ls -> ls == LockingStrategy.PG_ROW_LOCK);
        p.steps().forEach(s -> assertEquals(PG, s.engine(), s.describe()));
        // the 2 PostgreSQL floors + the 9 other PostgreSQL steps + the paired one's 3 forks, of the one strategy kept
        assertEquals(2 + 9 + 3, p.forkRuns());
    }

    @Test
    void theEstimateCountsEveryForkAndOnlySqliteFullStallsInTheWorstCase() {
        Profile quick = Profile.named("quick");
        // quick's 200 ms iterations get two 20 ms reference windows each
        assertEquals(20, quick.referenceMillis());
        double perFork = (quick.warmupIterations() * (quick.warmupMillis() + 40)
                + quick.measurementIterations() * (quick.measurementMillis() + 40)) / 1000.0 + Profile.FORK_OVERHEAD_SECONDS;
        // the paired forks: 80 + 56 slices of 75 ms, without reference windows, three per row
        double pairedPerFork = PAIRED_SLICES_PER_FORK * 75 / 1000.0 + Profile.FORK_OVERHEAD_SECONDS;
        int paired = quick.steps().stream().filter(s -> s.benchmark() == BenchmarkId.PAIRED)
                .mapToInt(s -> s.combinations() * s.timingIn(quick).forks()).sum();
        double openLoop = quick.openLoops().stream().mapToDouble(OpenLoopStep::estimatedSeconds).sum();
        assertEquals(LockingStrategy.of(Engine.SQLITE).size() * 9.0, openLoop, 1e-9, "six JVMs of 7.5 s of windows and 1.5 s of their own");
        double processes = quick.multiProcess().stream().mapToDouble(m -> m.estimatedSeconds(quick.busyWait())).sum();
        assertEquals(2 * 2 * 12 * 3.0 + 2 * 6 * 3.0, processes, 1e-9,
                "2 SQLite storages x 2 splits x (six strategies paired with the floor + six open) x (2 s + 1 s for the JVMs),"
                        + " and PostgreSQL's 2 splits x (three strategies paired + three open)");
        // Under SQLite's own handler the SQLite runs are unpaired: the floor runs once more per split.
        double unpaired = quick.withBusyWait(BusyWait.SQLITE_SLEEPS).multiProcess().stream()
                .mapToDouble(m -> m.estimatedSeconds(BusyWait.SQLITE_SLEEPS)).sum();
        assertEquals(2 * 2 * 13 * 3.0 + 2 * 6 * 3.0, unpaired, 1e-9);
        assertEquals((quick.forkRuns() - paired) * perFork + paired * pairedPerFork + openLoop + processes,
                quick.estimatedSeconds(), 1e-9);
        // quick runs the FULL storages at several threads only paired, with the jittered wait: nothing stalls ...
        assertEquals(quick.estimatedSeconds(), quick.worstCaseSeconds(), 1e-9);
        // ... but under SQLite's sleeping handler every one of those slices may
        Profile sleeping = quick.withBusyWait(BusyWait.SQLITE_SLEEPS);
        int pairedOnFull = LockingStrategy.of(Engine.SQLITE).size() * Profile.QUICK_PAIRED_FORKS;
        assertEquals(sleeping.estimatedSeconds() + pairedOnFull * PAIRED_SLICES_PER_FORK * Profile.STALL_SECONDS_PER_ITERATION,
                sleeping.worstCaseSeconds(), 1e-9);
        assertEquals(50, Profile.named("full").referenceMillis(), "1 s iterations: 50 ms windows, the most");
        assertEquals(10, Profile.named("smoke").referenceMillis(), "100 ms iterations: 10 ms windows, the least");
        Profile pgOnly = Profile.named("full").onlyEngine(PG);
        assertEquals(pgOnly.estimatedSeconds(), pgOnly.worstCaseSeconds(), 1e-9);
    }

    @Test
    void withoutAServerThePostgresStepsAreDroppedWithABanner() {
        Profile quick = Profile.named("quick");
        PostgresTarget.Plan plan = PostgresTarget.plan(quick, Optional.empty(), true);
        assertEquals(0, plan.profile().forkRuns(PG));
        assertEquals(quick.forkRuns(Engine.SQLITE), plan.profile().forkRuns());
        assertTrue(plan.banner().contains("PostgreSQL NOT measured"), plan.banner());
        assertTrue(plan.banner().contains("./with-postgres.sh") && plan.banner().contains("LEASELAB_POSTGRES_URL"), plan.banner());
        assertEquals(false, plan.record().get("measured"));
        assertEquals(quick.forkRuns(PG), plan.record().get("droppedForks"));
        // The multi-process runs on PostgreSQL go with its forks.
        assertEquals(1, plan.record().get("droppedProcessRuns"));
        assertTrue(plan.profile().multiProcess().stream().allMatch(m -> m.engine() == Engine.SQLITE), plan.profile().multiProcess().toString());
        assertTrue(plan.record().get("reason").toString().endsWith("PostgreSQL forks and its multi-process runs dropped"),
                plan.record().get("reason").toString());
    }

    @Test
    void aProfileFilteredToPostgresMultiProcessRunsAloneStillNeedsAServer() {
        Profile processesOnly = Profile.named("quick").onlyEngine(PG).withSteps(List.of());
        assertEquals(0, processesOnly.forkRuns());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PostgresTarget.plan(processesOnly, Optional.empty(), true));
        assertTrue(e.getMessage().contains("its multi-process runs dropped"), e.getMessage());
    }

    @Test
    void withoutAServerAProfileFilteredToPostgresIsAnError() {
        Profile onlyPg = Profile.named("smoke").onlyEngine(PG);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PostgresTarget.plan(onlyPg, Optional.empty(), true));
        assertTrue(e.getMessage().contains("with-postgres.sh"), e.getMessage());
    }

    @Test
    void aProfileWithoutPostgresStepsNeedsNoServerAndPrintsNoBanner() {
        Profile sqlite = Profile.named("smoke").onlyEngine(Engine.SQLITE);
        PostgresTarget.Plan plan = PostgresTarget.plan(sqlite, Optional.empty(), true);
        assertNull(plan.banner());
        assertEquals(sqlite, plan.profile());
    }

    @Test
    void thePropertyNamesTheServerBeforeTheEnvironmentAndABlankValueNamesNone() {
        assertEquals("-D" + PostgresTarget.URL_PROPERTY,
                PostgresTarget.configured("jdbc:postgresql://a/b", "jdbc:postgresql://c/d").orElseThrow().source());
        assertEquals(PostgresTarget.URL_ENVIRONMENT,
                PostgresTarget.configured(" ", "jdbc:postgresql://c/d").orElseThrow().source());
        assertTrue(PostgresTarget.configured(null, "").isEmpty());
        assertEquals("jdbc:postgresql://h/db?user=u&password=***&ssl=true",
                PostgresTarget.configured("jdbc:postgresql://h/db?user=u&password=secret&ssl=true", null).orElseThrow().redactedUrl());
    }

    private static Set<String> shape(Profile p) {
        return p.steps().stream().map(s -> s.benchmark() + " " + s.mode().shortLabel() + " " + s.threads())
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
