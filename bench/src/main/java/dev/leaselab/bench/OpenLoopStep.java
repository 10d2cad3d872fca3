package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * An open-loop step of a profile: the hot-job claim at fixed arrival rates ({@link OpenLoopMain}),
 * each load a fraction of the closed-loop maximum measured first in the same JVM, one JVM per
 * strategy and storage (as JMH forks one per benchmark), after the profile's JMH steps. Its
 * latencies are measured from each request's intended start, so they have no coordinated
 * omission; the report puts them next to the closed-loop {@code SampleTime} figures of the same
 * strategy, storage and threads. SQLite only: {@link OpenLoopMain} does not drive PostgreSQL yet.
 *
 * @param threads worker threads
 * @param storages SQLite storages
 * @param strategies SQLite strategies
 * @param loads fractions of the closed-loop maximum to run at
 * @param warmup the closed-loop warmup before the calibration, and the unrecorded start of each load
 * @param calibrate how long the closed-loop maximum is measured
 * @param duration the measured window of each load
 */
record OpenLoopStep(int threads, List<Storage> storages, List<LockingStrategy> strategies, List<Double> loads,
                    Duration warmup, Duration calibrate, Duration duration) {

    /** How long requests still queued after a window are waited for (OpenLoopMain's default). */
    static final Duration DRAIN = Duration.ofSeconds(2);
    /** An allowance for a JVM's start, the store's file and the drain beyond the timed windows (not measured apart). */
    static final double JVM_SECONDS = 1.5;
    /** The folder inside a run folder that holds one JSON and one log per strategy and storage. */
    static final String FOLDER = "openloop";

    OpenLoopStep {
        storages = List.copyOf(storages);
        strategies = List.copyOf(strategies);
        loads = List.copyOf(loads);
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        if (storages.isEmpty() || strategies.isEmpty() || loads.isEmpty()) {
            throw new IllegalArgumentException("an open-loop step needs storages, strategies and loads: " + storages
                    + " " + strategies + " " + loads);
        }
        for (double load : loads) {
            if (!(load > 0) || Double.isInfinite(load)) {
                throw new IllegalArgumentException("a load must be a fraction above 0: " + loads);
            }
        }
        java.util.Objects.requireNonNull(warmup, "warmup");
        java.util.Objects.requireNonNull(calibrate, "calibrate");
        java.util.Objects.requireNonNull(duration, "duration");
        if (warmup.isNegative() || calibrate.isNegative() || calibrate.isZero() || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("warmup must not be negative, calibrate and duration must be positive: "
                    + warmup + ", " + calibrate + ", " + duration);
        }
        for (Storage s : storages) {
            if (s.engine() != Engine.SQLITE) {
                throw new IllegalArgumentException("the open loop runs on SQLite only: storage " + s);
            }
        }
        for (LockingStrategy s : strategies) {
            if (s.engine() != Engine.SQLITE) {
                throw new IllegalArgumentException("the open loop runs on SQLite only: strategy " + s);
            }
        }
    }

    /** One JVM of this step. */
    record Run(Storage storage, LockingStrategy strategy) {
        /** The file name (without extension) of this run's JSON and log in {@link #FOLDER}. */
        String name() {
            return storage + "-" + strategy;
        }
    }

    List<Run> runs() {
        List<Run> out = new ArrayList<>();
        for (Storage storage : storages) {
            for (LockingStrategy strategy : strategies) {
                out.add(new Run(storage, strategy));
            }
        }
        return out;
    }

    /** OpenLoopMain's arguments for one run, writing its JSON to {@code json}. */
    List<String> arguments(Run run, Path json) {
        return List.of("--work", "CLAIM", "--strategy", run.strategy().name(), "--storage", run.storage().name(),
                "--threads", Integer.toString(threads),
                "--load", loads.stream().map(l -> Double.toString(l)).collect(Collectors.joining(",")),
                "--warmup", millis(warmup), "--calibrate", millis(calibrate), "--duration", millis(duration),
                "--drain", millis(DRAIN), "--json", json.toString());
    }

    /** Seconds one run takes if nothing stalls: warmup, calibration, each load's warmup and window, the JVM. */
    double secondsPerRun() {
        return (warmup.toMillis() + calibrate.toMillis() + loads.size() * (warmup.toMillis() + duration.toMillis())) / 1000.0
                + JVM_SECONDS;
    }

    double estimatedSeconds() {
        return runs().size() * secondsPerRun();
    }

    /** This step with only the storages and strategies that pass; null if none is left. */
    OpenLoopStep filter(java.util.function.Predicate<Storage> storage, java.util.function.Predicate<LockingStrategy> strategy) {
        List<Storage> st = storages.stream().filter(storage).toList();
        List<LockingStrategy> ls = strategies.stream().filter(strategy).toList();
        return st.isEmpty() || ls.isEmpty() ? null : new OpenLoopStep(threads, st, ls, loads, warmup, calibrate, duration);
    }

    String describe() {
        return String.format(Locale.ROOT, "%-26s %-6s threads=%d storage=%s strategy=%s loads=%s warmup=%s calibrate=%s "
                        + "duration=%s", "OpenLoopMain (hot claim)", "open", threads, storages, strategies, loads,
                millis(warmup), millis(calibrate), millis(duration));
    }

    private static String millis(Duration d) {
        return d.toMillis() + "ms";
    }
}
