package dev.leaselab.bench;

import static dev.leaselab.bench.BenchmarkId.CLAIM_HOT;
import static dev.leaselab.bench.BenchmarkId.COMPLETE;
import static dev.leaselab.bench.BenchmarkId.CYCLE;
import static dev.leaselab.bench.BenchmarkId.FLOOR;
import static dev.leaselab.bench.BenchmarkId.PAIRED;
import static dev.leaselab.bench.BenchmarkId.QUEUE_BATCH;
import static dev.leaselab.bench.BenchmarkId.QUEUE_BATCH_ALL;
import static dev.leaselab.bench.BenchmarkId.QUEUE_ONE;
import static dev.leaselab.bench.BenchmarkId.RENEW;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.StoreOptions;
import dev.leaselab.lease.StoreOptions.BusyWait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import org.openjdk.jmh.annotations.Mode;

/**
 * What a run measures: the benchmarks, at which thread counts and storage settings, in which mode,
 * with how many forks and iterations. One {@link Step} is one call of JMH's runner (one thread
 * count, one mode, one engine); JMH expands its parameter lists into one fork per combination, so
 * a step never mixes SQLite and PostgreSQL: a SQLite strategy on the PostgreSQL storage (or the
 * reverse) is not a benchmark, and {@link Step} refuses it.
 *
 * <ul>
 *   <li>{@code quick}: the matrix thinned to about 20 minutes on two cores with PostgreSQL (1,212 s on
 *       2026-12-08 with 6 s of paired warmup; 950-960 s in five runs at commit 40bf80a and 849 s from a
 *       clean clone at 6a8e7dd, on an earlier machine with 1.2 s; open loop and processes included): every SQLite strategy
 *       for claims on the hot job and the floor at 1 thread on WAL with {@code NORMAL} and with
 *       {@code FULL} (the rollback journal, {@code DELETE_FULL}, is left to {@code full}: it made
 *       room for PostgreSQL's 20 forks); the hot job, the floor, renew,
 *       complete, the worker cycle and the queue ({@code QueueBenchmark}, one job and 16 per call, the 16 completed one by one and in one {@code completeAll})
 *       for every SQLite strategy at 8 threads on WAL + NORMAL;
 *       latency percentiles of the hot job at 8 threads. PostgreSQL: the floor and the hot job at
 *       1 and 8 threads, renew, complete, the worker cycle and the queue at 8 threads, and the hot job's
 *       latency at 8 threads, for every PostgreSQL strategy. One fork, one warmup and three
 *       measurement iterations of 200 ms. The SQLite FULL storages at several threads are left to
 *       {@code full} (and the paired step): under SQLite's own busy handler they stall iterations,
 *       and quick has to stay near twenty minutes. The paired headline ratios of
 *       every strategy and storage: three forks of the gate's groups each
 *       ({@link #QUICK_PAIRED_FORKS}): SQLite's 12 paired steps took 463 s on 2026-12-08 (the console's
 *       elapsed times; PostgreSQL's 3 were not timed apart), against 349-355 s for all 15 with the 1.2 s
 *       warmup on an earlier machine.
 *   <li>{@code full}: every benchmark, strategy and storage at 1, 2, 4 and 8 threads, and latency
 *       percentiles of the hot job and the floor at 1 and 8 threads, for both engines; one fork,
 *       one warmup and five measurement iterations of one second (five, so that the gate's rank
 *       test can reach significance on one fork). {@code --dry-run} prints its estimate and its
 *       worst case (every contended SQLite FULL fork stalling every iteration).
 *   <li>{@code smoke}: two threads, one storage and one strategy per engine (WAL + NORMAL with
 *       {@code IMMEDIATE}, PostgreSQL with {@code PG_CONDITIONAL_UPDATE}), a few 100 ms
 *       iterations, with the jittered busy wait: the pipeline check that {@code mvn verify} runs.
 *   <li>{@code gate}: the paired hot-job claim of every SQLite strategy on WAL + NORMAL and WAL +
 *       FULL, one fork each of {@value #GATE_GROUPS} measured groups of {@value #GATE_SLICE_MILLIS} ms
 *       slices (after 6 s of warmup, {@link Step#WARMUP_MILLIS}), every connection with the jittered busy wait: what
 *       {@code compare} gates in CI, in about two and a half minutes (156 s here).
 * </ul>
 *
 * After its JMH steps a profile may run {@link OpenLoopStep}s (quick, full and smoke do): the hot
 * claim's open-loop tail latency, next to the closed-loop one in the report; and then
 * {@link MultiProcessStep}s (quick, full and smoke): the same threads split over worker JVMs. Without a PostgreSQL
 * server the runner drops the PostgreSQL steps ({@link PostgresTarget#plan}).
 */
record Profile(String name, int forks, int warmupIterations, int warmupMillis, int measurementIterations,
               int measurementMillis, List<Step> steps, BusyWait busyWait, List<OpenLoopStep> openLoops,
               List<MultiProcessStep> multiProcess) {

    /** JMH's per-fork cost beyond its iterations (JVM start, SQLite load, setup), as measured here. */
    static final double FORK_OVERHEAD_SECONDS = 3.0;

    /**
     * With {@code synchronous=FULL} and more than one thread, SQLite's sleeping busy handler lets
     * some writers wait up to the busy timeout ({@link Storage#BUSY_TIMEOUT}), and JMH ends an
     * iteration only when every thread has returned: measured here on a quiet machine as about
     * 0.8 s more per iteration (a DELETE_FULL, 8-thread IMMEDIATE fork of 1 + 5 one-second
     * iterations took 13.7 s; with a 5 s busy timeout it took 70 s). PostgreSQL queues waiting
     * writers on the row lock and wakes them in turn, so its forks are not counted as stalling.
     */
    static final double STALL_SECONDS_PER_ITERATION = 1;

    /** The multi-process splits of the full profile: the same 8 threads in 1, 2, 4 and 8 processes. */
    static final List<MultiProcessMain.Split> MULTI_PROCESS_SPLITS = List.of(new MultiProcessMain.Split(1, 8),
            new MultiProcessMain.Split(2, 4), new MultiProcessMain.Split(4, 2), new MultiProcessMain.Split(8, 1));

    /** The quick profile's: one process against four (issue 17's 4 x 2 targets). */
    static final List<MultiProcessMain.Split> MULTI_PROCESS_QUICK_SPLITS = List.of(new MultiProcessMain.Split(1, 8),
            new MultiProcessMain.Split(4, 2));

    /** The open loop's arrival rates, as fractions of the closed-loop maximum: half of it and most of it. */
    static final List<Double> OPEN_LOOP_LOADS = List.of(0.5, 0.8);

    /** What quick and full run with: the store's own default. */
    static final BusyWait STORE_DEFAULT_BUSY_WAIT = StoreOptions.defaults().busyWait();

    /**
     * The gate's measured groups a side and their slice length: many short groups rather than a
     * few long ones, because the U test under Holm over 24 rows can call a row only when its
     * groups are almost all ordered, and with 7 groups of 150 ms that caught a quarter's slowdown
     * in 13 of 20 tries (results/gate-proof.md).
     */
    static final int GATE_GROUPS = 14;
    static final int GATE_SLICE_MILLIS = 75;

    /**
     * The forks of quick's paired rows, each of the gate's groups. One fork gave 10 of the 36 SQLite
     * ratios within ±10% of their median over five quick runs: a fork's ratios shift as a whole
     * (its JIT, its files), and more groups do not average that out, more forks do; three forks
     * gave 31 of 36 (results/reproducibility.md).
     */
    static final int QUICK_PAIRED_FORKS = 3;

    /**
     * Whether JMH synchronises the paired benchmark's iterations. It does not: a paired slice is
     * timed by its threads' own stamps (first start to last end), and with JMH's synchronised
     * iterations the threads that are done keep calling the benchmark until every thread is, so
     * a writer starved at the end of an all-threads slice stays starved: on WAL_FULL, slices of
     * 75 ms took 267 ms on average (the floor's) and the gate 143 s instead of 102 s.
     */
    static final boolean PAIRED_SYNC_ITERATIONS = false;

    Profile {
        steps = List.copyOf(steps);
        Objects.requireNonNull(busyWait, "busyWait");
        openLoops = List.copyOf(openLoops);
        multiProcess = List.copyOf(multiProcess);
    }

    /**
     * The benchmarks whose strategy parameter is a {@link LockingStrategy} (the floor has none),
     * measured one fork per strategy; the paired benchmark has steps of its own ({@link Step#paired}).
     */
    static final List<BenchmarkId> STORE_BENCHMARKS = Arrays.stream(BenchmarkId.values())
            .filter(b -> b.hasStrategy() && b != PAIRED).toList();

    /**
     * One runner call, on one engine.
     *
     * @param benchmark the benchmark method
     * @param mode throughput or sample time
     * @param threads the thread count
     * @param storages the storage settings, all of one engine
     * @param strategies the strategies, of the storages' engine; for the floor, which has no
     *     strategy parameter, the strategies it is the reference of (the step is dropped when a
     *     filter leaves none of them)
     * @param timing its own forks and iterations, or null for the profile's
     * @param busyWait its own busy wait for every SQLite connection, or null for the profile's
     */
    record Step(BenchmarkId benchmark, Mode mode, int threads, List<Storage> storages, List<LockingStrategy> strategies,
                Timing timing, BusyWait busyWait) {

        /** A step with the profile's forks, iterations and busy wait. */
        Step(BenchmarkId benchmark, Mode mode, int threads, List<Storage> storages, List<LockingStrategy> strategies) {
            this(benchmark, mode, threads, storages, strategies, null, null);
        }

        /**
         * The paired hot-job claim ({@link PairedClaimBenchmark}) at {@code threads}, with its own
         * timing: {@code groups} groups of four {@code sliceMillis} slices in each of {@code forks}
         * forks, after at least {@link #WARMUP_MILLIS} of warmup in whole groups. Slices this short
         * are the point: a pair must share its CPU.
         */
        static Step paired(int threads, List<Storage> storages, List<LockingStrategy> strategies, int forks, int groups,
                           int sliceMillis) {
            return paired(threads, storages, strategies, forks, groups, sliceMillis, WARMUP_MILLIS);
        }

        /** As {@link #paired(int, List, List, int, int, int)}, after at least {@code warmupMillis} of warmup. */
        static Step paired(int threads, List<Storage> storages, List<LockingStrategy> strategies, int forks, int groups,
                           int sliceMillis, int warmupMillis) {
            int groupMillis = PairedClaimBenchmark.GROUP * sliceMillis;
            int warmupGroups = (warmupMillis + groupMillis - 1) / groupMillis;
            // PostgreSQL has no busy wait to set.
            BusyWait wait = storages.get(0).engine() == Engine.SQLITE ? PAIRED_BUSY_WAIT : null;
            return new Step(PAIRED, Mode.Throughput, threads, storages, strategies, new Timing(forks,
                    warmupGroups * PairedClaimBenchmark.GROUP, sliceMillis, groups * PairedClaimBenchmark.GROUP, sliceMillis), wait);
        }

        /** This step with other forks, iterations and lengths (null: the profile's). */
        Step withTiming(Timing other) {
            return new Step(benchmark, mode, threads, storages, strategies, other, busyWait);
        }

        /** This step with another busy wait (null: the profile's). */
        Step withBusyWait(BusyWait other) {
            return new Step(benchmark, mode, threads, storages, strategies, timing, other);
        }

        /** This step on other storages and strategies, with its own timing and busy wait. */
        Step withMatrix(List<Storage> otherStorages, List<LockingStrategy> otherStrategies) {
            return new Step(benchmark, mode, threads, otherStorages, otherStrategies, timing, busyWait);
        }

        /** As {@link #paired(int, List, List, int, int, int)} with slices of {@link #SLICE_MILLIS}. */
        static Step paired(int threads, List<Storage> storages, List<LockingStrategy> strategies, int forks, int groups) {
            return paired(threads, storages, strategies, forks, groups, SLICE_MILLIS);
        }

        /**
         * The busy wait of every paired step on SQLite, whatever the profile's: under SQLite's
         * sleeping handler the floor's eight writers on WAL_FULL collapsed to 717-1,521 updates/s in
         * five quick runs, so "x floor, 8 threads" measured how far that floor stalled (1.5 to 2.6 for
         * the same strategy), not the strategy; with the jittered wait it does not collapse
         * (results/reproducibility.md).
         */
        static final BusyWait PAIRED_BUSY_WAIT = BusyWait.JITTERED;

        /** The busy wait this step's SQLite connections run with: its own, or the profile's. */
        BusyWait busyWaitIn(Profile profile) {
            return busyWait != null ? busyWait : profile.busyWait();
        }

        /** The slice length of every paired step but the gate's. */
        static final int SLICE_MILLIS = 150;

        /**
         * Warmup of a paired fork. Until 2026-12-08 it was two groups of 150 ms slices (1.2 s),
         * because the first group after a fork's start was the slowest of its fork in most forks.
         * That was too short for {@code GROUP_COMMIT} at 8 threads on two cores, whose claim slices
         * climb for seconds while the floor's do not (most likely the JIT compiling its path while
         * eight yielding writers hold the CPUs; not established). In 32 forks on WAL_FULL a group's
         * x floor reached 90% of its fork's measured median 0.4-4.7 s after the fork began (23
         * forks on WAL_NORMAL: 1.3-6.2 s), and six gate runs of the same code alternated with six
         * of this warmup gave x floor 3.55-5.69 on WAL_FULL against 5.52-6.16 (results/paired-warmup-20261208).
         */
        static final int WARMUP_MILLIS = 6_000;

        /**
         * The smoke profile's paired warmup: two groups of 150 ms slices. Smoke checks the pipeline
         * and measures nothing, and {@code mvn verify} runs it.
         */
        static final int SMOKE_WARMUP_MILLIS = 2 * PairedClaimBenchmark.GROUP * SLICE_MILLIS;

        Step {
            storages = List.copyOf(storages);
            strategies = List.copyOf(strategies);
            if (storages.isEmpty()) {
                throw new IllegalArgumentException(benchmark + ": a step needs at least one storage");
            }
            Engine engine = storages.get(0).engine();
            for (Storage st : storages) {
                if (st.engine() != engine) {
                    throw new IllegalArgumentException(benchmark + ": storages " + storages
                            + " mix engines; one step runs one engine");
                }
            }
            for (LockingStrategy ls : strategies) {
                if (ls.engine() != engine) {
                    throw new IllegalArgumentException(benchmark + ": strategy " + ls + " (" + ls.engine()
                            + ") cannot run on storages " + storages + " (" + engine + ")");
                }
            }
            if (benchmark == PAIRED && (timing == null || timing.warmupIterations() % PairedClaimBenchmark.GROUP != 0
                    || timing.measurementIterations() % PairedClaimBenchmark.GROUP != 0)) {
                throw new IllegalArgumentException(benchmark + ": needs its own timing, with warmup and measurement "
                        + "iterations in whole groups of " + PairedClaimBenchmark.GROUP + ": " + timing);
            }
        }

        /** The forks and iterations this step runs with: its own, or the profile's. */
        /**
         * Whether {@link MachineReference} runs around this step's iterations: not for the paired
         * step, whose ratios need no reference (its windows only made the groups longer; the
         * reference's A/A spread was measured larger than the paired one, results/reproducibility.md).
         */
        boolean measuresReference() {
            return benchmark != PAIRED;
        }

        Timing timingIn(Profile profile) {
            return timing != null ? timing : profile.timing();
        }

        /** The engine all of this step's storages and strategies belong to. */
        Engine engine() {
            return storages.get(0).engine();
        }

        boolean hasStrategy() {
            return benchmark.hasStrategy();
        }

        /** The forks of this step, one per parameter combination: storages first, then strategies. */
        List<ForkKey> forkKeys() {
            List<ForkKey> keys = new ArrayList<>();
            for (Storage storage : storages) {
                if (hasStrategy()) {
                    strategies.forEach(strategy -> keys.add(new ForkKey(benchmark, mode, threads, storage, strategy)));
                } else {
                    keys.add(new ForkKey(benchmark, mode, threads, storage, null));
                }
            }
            return keys;
        }

        /** How many forks' worth of parameter combinations this step runs. */
        int combinations() {
            return storages.size() * (hasStrategy() ? strategies.size() : 1);
        }

        /** The forks of this step that are not among {@code measured}. */
        List<ForkKey> missing(Collection<ForkKey> measured) {
            Set<ForkKey> found = Set.copyOf(measured);
            return forkKeys().stream().filter(k -> !found.contains(k)).toList();
        }

        String describe() {
            return String.format(Locale.ROOT, "%-26s %-6s threads=%d storage=%s%s%s%s", benchmark, mode.shortLabel(), threads,
                    storages, hasStrategy() ? " strategy=" + strategies : "", timing == null ? "" : " " + timing.describe(),
                    busyWait == null ? "" : " busyWait=" + busyWait);
        }
    }

    /**
     * How a step's forks run: forks, then warmup and measurement iterations and their lengths.
     * The paired steps carry their own; every other step runs with its profile's.
     */
    record Timing(int forks, int warmupIterations, int warmupMillis, int measurementIterations, int measurementMillis) {

        /** Seconds one fork takes if nothing stalls, with the reference's windows around each iteration. */
        double secondsPerFork(int referenceMillis) {
            return (warmupIterations * warmupMillis + measurementIterations * measurementMillis
                    + (warmupIterations + measurementIterations) * 2 * referenceMillis) / 1000.0 + FORK_OVERHEAD_SECONDS;
        }

        int iterations() {
            return warmupIterations + measurementIterations;
        }

        String describe() {
            return String.format(Locale.ROOT, "forks=%d warmup=%dx%dms measurement=%dx%dms", forks, warmupIterations,
                    warmupMillis, measurementIterations, measurementMillis);
        }
    }

    /** The profile's own forks and iterations, which every step without its own timing runs with. */
    Timing timing() {
        return new Timing(forks, warmupIterations, warmupMillis, measurementIterations, measurementMillis);
    }

    static Profile named(String name) {
        List<Step> steps = new ArrayList<>();
        switch (name) {
            case "quick" -> {
                for (Engine engine : Engine.values()) {
                    steps.addAll(quick(engine));
                }
                // Open-loop tails where quick has closed-loop ones: the hot claim at 8 threads on WAL_NORMAL.
                List<OpenLoopStep> open = List.of(new OpenLoopStep(8, List.of(Storage.WAL_NORMAL), LockingStrategy.of(Engine.SQLITE),
                        OPEN_LOOP_LOADS, Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ofSeconds(2)));
                // The same 8 threads in 1 and in 4 processes (full adds 2 and 8), on each engine.
                List<MultiProcessStep> processes = List.of(new MultiProcessStep(List.of(Storage.WAL_NORMAL, Storage.WAL_FULL),
                        LockingStrategy.of(Engine.SQLITE), MULTI_PROCESS_QUICK_SPLITS, Duration.ofMillis(500), Duration.ofMillis(1500),
                        List.of(0.5)), new MultiProcessStep(Storage.of(Engine.POSTGRESQL), LockingStrategy.of(Engine.POSTGRESQL),
                        MULTI_PROCESS_QUICK_SPLITS, Duration.ofMillis(500), Duration.ofMillis(1500), List.of(0.5)));
                return new Profile(name, 1, 1, 200, 3, 200, steps, STORE_DEFAULT_BUSY_WAIT, open, processes);
            }
            case "full" -> {
                // The same matrix on each engine, each on its own storages.
                for (int threads : new int[] {1, 2, 4, 8}) {
                    for (Engine engine : Engine.values()) {
                        steps.add(new Step(FLOOR, Mode.Throughput, threads, Storage.of(engine), LockingStrategy.of(engine)));
                        for (BenchmarkId b : STORE_BENCHMARKS) {
                            steps.add(new Step(b, Mode.Throughput, threads, Storage.of(engine), LockingStrategy.of(engine)));
                        }
                    }
                }
                for (int threads : new int[] {1, 8}) {
                    for (Engine engine : Engine.values()) {
                        steps.add(new Step(FLOOR, Mode.SampleTime, threads, Storage.of(engine), LockingStrategy.of(engine)));
                        steps.add(new Step(CLAIM_HOT, Mode.SampleTime, threads, Storage.of(engine), LockingStrategy.of(engine)));
                    }
                }
                // The headline ratios, paired: three forks of twelve groups, so that the report can
                // show how far forks of one row disagree.
                for (Engine engine : Engine.values()) {
                    steps.add(Step.paired(8, Storage.of(engine), LockingStrategy.of(engine), 3, 12));
                }
                List<OpenLoopStep> open = List.of(new OpenLoopStep(8, Storage.of(Engine.SQLITE), LockingStrategy.of(Engine.SQLITE),
                        OPEN_LOOP_LOADS, Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5)));
                List<MultiProcessStep> processes = List.of(new MultiProcessStep(List.of(Storage.WAL_NORMAL, Storage.WAL_FULL),
                        LockingStrategy.of(Engine.SQLITE), MULTI_PROCESS_SPLITS, Duration.ofSeconds(1), Duration.ofSeconds(3),
                        OPEN_LOOP_LOADS), new MultiProcessStep(Storage.of(Engine.POSTGRESQL), LockingStrategy.of(Engine.POSTGRESQL),
                        MULTI_PROCESS_SPLITS, Duration.ofSeconds(1), Duration.ofSeconds(3), OPEN_LOOP_LOADS));
                return new Profile(name, 1, 1, 1000, 5, 1000, steps, STORE_DEFAULT_BUSY_WAIT, open, processes);
            }
            case "gate" -> {
                // What a CI job runs: the paired hot-job claim of every SQLite strategy at 1 and 8
                // threads on both WAL settings, with the jittered busy wait: under SQLite's own
                // busy handler the eight writers of a WAL_FULL slice stalled up to the busy
                // timeout, so that slice took 2 s instead of 150 ms and the profile 5 minutes.
                steps.add(Step.paired(8, List.of(Storage.WAL_NORMAL, Storage.WAL_FULL), LockingStrategy.of(Engine.SQLITE), 1, GATE_GROUPS,
                        GATE_SLICE_MILLIS));
                return new Profile(name, 1, 1, 150, 4, 150, steps, BusyWait.JITTERED, List.of(), List.of());
            }
            case "smoke" -> {
                for (Engine engine : Engine.values()) {
                    steps.addAll(smoke(engine));
                }
                List<OpenLoopStep> open = List.of(new OpenLoopStep(2, List.of(Storage.WAL_NORMAL),
                        List.of(LockingStrategy.of(Engine.SQLITE).get(0)), List.of(0.5), Duration.ofMillis(200),
                        Duration.ofMillis(300), Duration.ofMillis(500)));
                List<MultiProcessStep> processes = List.of(new MultiProcessStep(List.of(Storage.WAL_NORMAL),
                        List.of(LockingStrategy.of(Engine.SQLITE).get(0)),
                        List.of(new MultiProcessMain.Split(1, 2), new MultiProcessMain.Split(2, 1)), Duration.ofMillis(100),
                        Duration.ofMillis(300), List.of(0.5)));
                // The jittered wait, so that a failed operation in the pipeline check is a defect:
                // under SQLite's own handler one of two threads can wait out the 1 s busy timeout
                // (the store's measured unfairness, not a fault), and a CI run of d0401ae failed on
                // one such claim.
                return new Profile(name, 1, 1, 100, 3, 100, steps, BusyWait.JITTERED, open, processes);
            }
            default -> throw new IllegalArgumentException("unknown profile '" + name + "' (quick, full, gate or smoke)");
        }
    }

    /** What {@code quick} measures on one engine, for every strategy of it. */
    private static List<Step> quick(Engine engine) {
        List<LockingStrategy> strategies = LockingStrategy.of(engine);
        List<Step> steps = new ArrayList<>();
        switch (engine) {
            case SQLITE -> {
                // SQLite's FULL storages only at one thread: contended under SQLite's own busy handler
                // (--busy-wait SQLITE_SLEEPS) they stall up to the busy timeout per iteration (see
                // STALL_SECONDS_PER_ITERATION), which alone would take minutes.
                // DELETE_FULL only in full: quick has to stay near twenty minutes with PostgreSQL.
                List<Storage> wal = List.of(Storage.WAL_NORMAL, Storage.WAL_FULL);
                List<Storage> walNormal = List.of(Storage.WAL_NORMAL);
                steps.add(new Step(FLOOR, Mode.Throughput, 1, wal, strategies));
                steps.add(new Step(CLAIM_HOT, Mode.Throughput, 1, wal, strategies));
                steps.add(new Step(FLOOR, Mode.Throughput, 8, walNormal, strategies));
                steps.add(new Step(CLAIM_HOT, Mode.Throughput, 8, walNormal, strategies));
                for (BenchmarkId b : List.of(RENEW, COMPLETE, CYCLE, QUEUE_ONE, QUEUE_BATCH, QUEUE_BATCH_ALL)) {
                    steps.add(new Step(b, Mode.Throughput, 8, walNormal, strategies));
                }
                steps.add(new Step(CLAIM_HOT, Mode.SampleTime, 8, walNormal, strategies));
                steps.add(Step.paired(8, wal, strategies, QUICK_PAIRED_FORKS, GATE_GROUPS, GATE_SLICE_MILLIS));
            }
            case POSTGRESQL -> {
                List<Storage> pg = Storage.of(engine);
                for (int threads : new int[] {1, 8}) {
                    steps.add(new Step(FLOOR, Mode.Throughput, threads, pg, strategies));
                    steps.add(new Step(CLAIM_HOT, Mode.Throughput, threads, pg, strategies));
                }
                for (BenchmarkId b : List.of(RENEW, COMPLETE, CYCLE, QUEUE_ONE, QUEUE_BATCH, QUEUE_BATCH_ALL)) {
                    steps.add(new Step(b, Mode.Throughput, 8, pg, strategies));
                }
                steps.add(new Step(CLAIM_HOT, Mode.SampleTime, 8, pg, strategies));
                steps.add(Step.paired(8, pg, strategies, QUICK_PAIRED_FORKS, GATE_GROUPS, GATE_SLICE_MILLIS));
            }
        }
        return steps;
    }

    /** What {@code smoke} checks on one engine: one storage and one strategy, two threads. */
    private static List<Step> smoke(Engine engine) {
        List<Step> steps = new ArrayList<>();
        switch (engine) {
            case SQLITE -> {
                List<Storage> walNormal = List.of(Storage.WAL_NORMAL);
                List<LockingStrategy> first = List.of(LockingStrategy.of(engine).get(0));
                steps.add(new Step(FLOOR, Mode.Throughput, 2, walNormal, first));
                steps.add(new Step(CLAIM_HOT, Mode.Throughput, 2, walNormal, first));
                steps.add(new Step(CLAIM_HOT, Mode.SampleTime, 2, walNormal, first));
                steps.add(new Step(QUEUE_BATCH, Mode.Throughput, 2, walNormal, first));
                steps.add(Step.paired(2, walNormal, first, 1, 2, Step.SLICE_MILLIS, Step.SMOKE_WARMUP_MILLIS));
            }
            case POSTGRESQL -> {
                List<LockingStrategy> conditional = List.of(LockingStrategy.PG_CONDITIONAL_UPDATE);
                steps.add(new Step(FLOOR, Mode.Throughput, 2, Storage.of(engine), conditional));
                steps.add(new Step(CLAIM_HOT, Mode.Throughput, 2, Storage.of(engine), conditional));
            }
        }
        return steps;
    }

    /** This profile with other fork and iteration settings; a value below zero keeps the profile's. */
    Profile with(int forks, int warmupIterations, int warmupMillis, int measurementIterations, int measurementMillis) {
        // A paired step keeps its own iterations (whole groups of slices), but takes a fork count.
        List<Step> steps = forks < 0 ? this.steps : this.steps.stream().map(s -> s.timing() == null ? s
                : s.withTiming(new Timing(forks, s.timing().warmupIterations(), s.timing().warmupMillis(),
                        s.timing().measurementIterations(), s.timing().measurementMillis()))).toList();
        return new Profile(name, forks >= 0 ? forks : this.forks,
                warmupIterations >= 0 ? warmupIterations : this.warmupIterations,
                warmupMillis > 0 ? warmupMillis : this.warmupMillis,
                measurementIterations > 0 ? measurementIterations : this.measurementIterations,
                measurementMillis > 0 ? measurementMillis : this.measurementMillis, steps, busyWait, openLoops, multiProcess);
    }

    /** This profile's settings with other steps. */
    Profile withSteps(List<Step> steps) {
        return new Profile(name, forks, warmupIterations, warmupMillis, measurementIterations, measurementMillis, steps, busyWait,
                openLoops, multiProcess);
    }

    /** This profile with other open-loop steps (none: {@code List.of()}). */
    Profile withOpenLoops(List<OpenLoopStep> open) {
        return new Profile(name, forks, warmupIterations, warmupMillis, measurementIterations, measurementMillis, steps, busyWait,
                open, multiProcess);
    }

    /** This profile with other multi-process steps (none: {@code List.of()}). */
    Profile withMultiProcess(List<MultiProcessStep> processes) {
        return new Profile(name, forks, warmupIterations, warmupMillis, measurementIterations, measurementMillis, steps, busyWait,
                openLoops, processes);
    }

    /**
     * This profile with another busy wait for every SQLite connection of its benchmarks, the
     * paired steps' included: asked for by name, it applies to every step.
     */
    Profile withBusyWait(BusyWait wait) {
        Objects.requireNonNull(wait, "wait");
        // A step without a busy wait of its own takes the profile's, which is the one asked for.
        List<Step> all = steps.stream().map(s -> s.withBusyWait(null)).toList();
        return new Profile(name, forks, warmupIterations, warmupMillis, measurementIterations, measurementMillis, all, wait,
                openLoops, multiProcess);
    }

    /** Keeps only the steps, storages and strategies that pass the filters; drops steps left empty. */
    Profile filter(Predicate<Step> step, Predicate<Storage> storage, Predicate<LockingStrategy> strategy) {
        List<Step> kept = new ArrayList<>();
        for (Step s : steps) {
            if (!step.test(s)) {
                continue;
            }
            List<Storage> st = s.storages().stream().filter(storage).toList();
            List<LockingStrategy> ls = s.strategies().stream().filter(strategy).toList();
            // The floor is kept only while a strategy it is the reference of is kept: filtering to
            // PostgreSQL strategies must not leave SQLite floors behind.
            if (!st.isEmpty() && !ls.isEmpty()) {
                kept.add(s.withMatrix(st, ls));
            }
        }
        List<OpenLoopStep> open = openLoops.stream().map(o -> o.filter(storage, strategy)).filter(Objects::nonNull).toList();
        List<MultiProcessStep> processes = multiProcess.stream().map(m -> m.filter(storage, strategy)).filter(Objects::nonNull)
                .toList();
        return new Profile(name, forks, warmupIterations, warmupMillis, measurementIterations, measurementMillis, kept, busyWait,
                open, processes);
    }

    int forkRuns() {
        return steps.stream().mapToInt(s -> s.combinations() * Math.max(1, s.timingIn(this).forks())).sum();
    }

    /** The forks of one engine's steps. */
    int forkRuns(Engine engine) {
        return onlyEngine(engine).forkRuns();
    }

    /** This profile with only the steps of one engine. */
    Profile onlyEngine(Engine engine) {
        // The open loop is on SQLite only.
        return withSteps(steps.stream().filter(s -> s.engine() == engine).toList())
                .withOpenLoops(engine == Engine.SQLITE ? openLoops : List.of())
                .withMultiProcess(multiProcess.stream().filter(m -> m.engine() == engine).toList());
    }

    /**
     * Each of {@link MachineReference}'s two windows around an iteration: a tenth of an iteration,
     * between 10 and 50 ms, so that the reference adds at most a fifth to the measured time.
     */
    int referenceMillis() {
        return referenceMillis(timing());
    }

    static int referenceMillis(Timing timing) {
        return Math.max(10, Math.min(MachineReference.DEFAULT_MILLIS, timing.measurementMillis() / 10));
    }

    /** Seconds the run should take if nothing stalls: iterations, the reference's windows and the measured per-fork overhead. */
    double estimatedSeconds() {
        double seconds = secondsAfterForks();
        for (Step s : steps) {
            seconds += s.combinations() * secondsPerCombination(s);
        }
        return seconds;
    }

    /** Seconds one parameter combination of {@code step} (all its forks) takes if nothing stalls. */
    double secondsPerCombination(Step step) {
        Timing t = step.timingIn(this);
        return Math.max(1, t.forks()) * t.secondsPerFork(step.measuresReference() ? referenceMillis(t) : 0);
    }

    /** Seconds the open loops and the multi-process runs, which follow the JMH forks, take if nothing stalls. */
    double secondsAfterForks() {
        double seconds = 0;
        for (OpenLoopStep o : openLoops) {
            seconds += o.estimatedSeconds();
        }
        for (MultiProcessStep m : multiProcess) {
            seconds += m.estimatedSeconds(busyWait);
        }
        return seconds;
    }

    /**
     * Seconds the run may take if every contended fork on a SQLite FULL storage under SQLite's
     * sleeping handler stalls in every iteration.
     */
    double worstCaseSeconds() {
        return estimatedSeconds() + stallIterations() * STALL_SECONDS_PER_ITERATION;
    }

    /**
     * The iterations that may stall: every iteration of a contended fork on a SQLite FULL storage
     * under SQLite's sleeping handler.
     */
    private long stallIterations() {
        long iterations = 0;
        for (Step s : steps) {
            // The jittered wait never waited out the timeout (results/README.md, "Busy waits").
            if (s.threads() > 1 && s.busyWaitIn(this) == BusyWait.SQLITE_SLEEPS) {
                long full = s.storages().stream().filter(Storage::sqliteFsyncsEveryCommit).count();
                Timing t = s.timingIn(this);
                iterations += full * (s.hasStrategy() ? s.strategies().size() : 1) * Math.max(1, t.forks()) * t.iterations();
            }
        }
        return iterations;
    }

    /** The settings as written into environment.json. */
    Map<String, Object> settings() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("profile", name);
        m.put("forks", forks);
        m.put("warmupIterations", warmupIterations);
        m.put("warmupMillis", warmupMillis);
        m.put("measurementIterations", measurementIterations);
        m.put("measurementMillis", measurementMillis);
        // What the steps measure (without a PostgreSQL server, its strategies and storage are not listed).
        m.put("strategies", Arrays.stream(LockingStrategy.values())
                .filter(ls -> steps.stream().anyMatch(s -> s.hasStrategy() && s.strategies().contains(ls))).map(Enum::name).toList());
        m.put("storages", Arrays.stream(Storage.values())
                .filter(st -> steps.stream().anyMatch(s -> s.storages().contains(st))).map(Enum::name).toList());
        m.put("busyTimeoutMillis", Storage.busyTimeout().toMillis());
        m.put("busyWait", busyWait.name());
        steps.stream().filter(s -> s.benchmark() == PAIRED && s.engine() == Engine.SQLITE).findFirst()
                .ifPresent(s -> m.put("pairedBusyWait", s.busyWaitIn(this).name()));
        m.put("pairedSyncIterations", PAIRED_SYNC_ITERATIONS);
        m.put("referenceMillis", referenceMillis());
        m.put("steps", steps.stream().map(Step::describe).toList());
        m.put("openLoops", openLoops.stream().map(OpenLoopStep::describe).toList());
        m.put("multiProcess", multiProcess.stream().map(MultiProcessStep::describe).toList());
        m.put("forkRuns", forkRuns());
        m.put("estimatedSeconds", Math.round(estimatedSeconds()));
        m.put("worstCaseSeconds", Math.round(worstCaseSeconds()));
        return m;
    }
}
