package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.StoreOptions.BusyWait;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A multi-process step of a profile: the same threads split over several worker JVMs on one
 * SQLite file or one PostgreSQL schema ({@link MultiProcessMain}), hot-job claims of every strategy
 * next to the floor of the same split, one {@code MultiProcessMain} JVM per storage, after the
 * profile's JMH steps and open loops. The report puts the splits side by side ("the same 8
 * threads, in 1, 2, 4, 8 processes"). A step is of one engine ({@link #engine()}): without a
 * PostgreSQL server the runner's plan ({@link PostgresTarget#plan}) drops the PostgreSQL ones.
 *
 * <p>The runs are paired ({@code MultiProcessMain --paired}, {@link PairedSlices}): each strategy
 * and the floor in one run, in alternating slices of {@link #slice()}, since a floor measured in a
 * run of its own moved by half between runs minutes apart. On SQLite that needs the jittered busy
 * wait; under a profile asked to run SQLite's own handler the SQLite runs are unpaired, the floor
 * in a run of its own ({@link #pairedUnder}).
 *
 * @param storages storages of one engine, one {@code MultiProcessMain} run each
 * @param strategies strategies of the same engine, each measured in every split
 * @param splits processes x threads per process, as {@code MultiProcessMain --splits} takes them
 * @param warmup per measured run, not counted
 * @param duration the measured window of each run
 * @param loads after each strategy's closed loop, open loops at these fractions of its requests/s (may be empty)
 * @param timelines whether the open loops' processes also write every request they sent
 *     ({@code MultiProcessMain --timeline}) to a folder beside the storage's JSON ({@link #timelineFolder});
 *     only for a step with loads
 */
record MultiProcessStep(List<Storage> storages, List<LockingStrategy> strategies, List<MultiProcessMain.Split> splits,
                        Duration warmup, Duration duration, List<Double> loads, boolean timelines) {

    /** The folder inside a run folder that holds one JSON and one log per storage. */
    static final String FOLDER = "multiprocess";
    /**
     * An allowance per measured run beyond its windows: its worker JVMs start (in parallel) and
     * load SQLite before the gate opens (not measured apart).
     */
    static final double JVM_SECONDS = 1.0;

    MultiProcessStep {
        storages = List.copyOf(storages);
        strategies = List.copyOf(strategies);
        splits = List.copyOf(splits);
        loads = List.copyOf(loads);
        for (double load : loads) {
            if (!(load > 0) || Double.isInfinite(load)) {
                throw new IllegalArgumentException("a load must be a fraction above 0: " + loads);
            }
        }
        if (storages.isEmpty() || strategies.isEmpty() || splits.isEmpty()) {
            throw new IllegalArgumentException("a multi-process step needs storages, strategies and splits: " + storages
                    + " " + strategies + " " + splits);
        }
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(duration, "duration");
        if (warmup.isNegative() || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("warmup must not be negative and duration must be positive: " + warmup
                    + ", " + duration);
        }
        Engine engine = storages.get(0).engine();
        for (Storage s : storages) {
            if (s.engine() != engine) {
                throw new IllegalArgumentException("a multi-process step is of one engine: storages " + storages);
            }
        }
        for (LockingStrategy s : strategies) {
            if (s.engine() != engine) {
                throw new IllegalArgumentException("a multi-process step on " + engine + " takes its strategies only: strategy " + s);
            }
        }
        if (timelines && loads.isEmpty()) {
            throw new IllegalArgumentException("timelines record a step's open loops, and this one has no loads: " + storages);
        }
    }

    /** A step without timelines. */
    MultiProcessStep(List<Storage> storages, List<LockingStrategy> strategies, List<MultiProcessMain.Split> splits,
                     Duration warmup, Duration duration, List<Double> loads) {
        this(storages, strategies, splits, warmup, duration, loads, false);
    }

    /** This step, writing the timelines of its open loops. */
    MultiProcessStep withTimelines() {
        return new MultiProcessStep(storages, strategies, splits, warmup, duration, loads, true);
    }

    /**
     * Where one storage's timelines go, beside its JSON {@code json}: {@code <storage>-timelines},
     * or, when a run that failed left that folder behind (a resumed run runs the storage again),
     * the first of {@code <storage>-timelines-2}, {@code -3}, ... that does not exist: an earlier
     * timeline is never overwritten, and {@code MultiProcessMain} takes only a new or empty folder.
     */
    static Path timelineFolder(Path json, Storage storage) {
        Path folder = json.resolveSibling(name(storage) + "-timelines");
        for (int attempt = 2; Files.exists(folder); attempt++) {
            folder = json.resolveSibling(name(storage) + "-timelines-" + attempt);
        }
        return folder;
    }

    /** The engine of every storage and strategy of this step. */
    Engine engine() {
        return storages.get(0).engine();
    }

    /** The file name (without extension) of one storage's JSON and log in {@link #FOLDER}. */
    static String name(Storage storage) {
        return storage.name();
    }

    /** Whether this step's runs are paired under a profile with busy wait {@code wait}: always on PostgreSQL, with the jittered wait on SQLite. */
    boolean pairedUnder(BusyWait wait) {
        return engine() == Engine.POSTGRESQL || wait == BusyWait.JITTERED;
    }

    /** A paired run's slice: 100 ms, or a quarter of a shorter duration (a paired run needs two groups of two slices). */
    Duration slice() {
        return duration.toMillis() >= 400 ? Duration.ofMillis(100) : Duration.ofMillis(Math.max(10, duration.toMillis() / 4));
    }

    /** MultiProcessMain's arguments for one storage, writing its JSON to {@code json}. */
    List<String> arguments(Storage storage, Path json, boolean paired) {
        List<String> arguments = new ArrayList<>(List.of("--storage", storage.name(),
                "--strategies", strategies.stream().map(Enum::name).collect(Collectors.joining(",")),
                "--splits", splits.stream().map(MultiProcessMain.Split::toString).collect(Collectors.joining(",")),
                "--warmup", warmup.toMillis() + "ms", "--duration", duration.toMillis() + "ms", "--json", json.toString()));
        if (paired) {
            arguments.addAll(List.of("--paired", "--slice", slice().toMillis() + "ms"));
        }
        if (!loads.isEmpty()) {
            arguments.addAll(List.of("--load", loads.stream().map(l -> Double.toString(l)).collect(Collectors.joining(","))));
        }
        if (timelines) {
            arguments.addAll(List.of("--timeline", timelineFolder(json, storage).toString()));
        }
        return arguments;
    }

    /**
     * Seconds one storage's run takes if nothing stalls: every split measures each strategy (with
     * the floor, paired; unpaired the floor runs once more on its own), and each strategy again at
     * every load.
     */
    double secondsPerStorage(boolean paired) {
        int runs = strategies.size() * (1 + loads.size()) + (paired ? 0 : 1);
        return splits.size() * runs * ((warmup.toMillis() + duration.toMillis()) / 1000.0 + JVM_SECONDS);
    }

    double estimatedSeconds(BusyWait wait) {
        return storages.size() * secondsPerStorage(pairedUnder(wait));
    }

    /** This step with only the storages and strategies that pass; null if none is left. */
    MultiProcessStep filter(Predicate<Storage> storage, Predicate<LockingStrategy> strategy) {
        List<Storage> st = storages.stream().filter(storage).toList();
        List<LockingStrategy> ls = strategies.stream().filter(strategy).toList();
        return st.isEmpty() || ls.isEmpty() ? null : new MultiProcessStep(st, ls, splits, warmup, duration, loads, timelines);
    }

    String describe() {
        return String.format(Locale.ROOT, "%-26s %-6s splits=%s storage=%s strategy=%s warmup=%dms duration=%dms loads=%s%s",
                "MultiProcessMain (hot claim)", "procs", splits, storages, strategies, warmup.toMillis(), duration.toMillis(), loads,
                timelines ? " timelines" : "");
    }
}
