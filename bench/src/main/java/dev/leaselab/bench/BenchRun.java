package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.StoreOptions;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.DoubleStream;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs the steps of a {@link Profile} through JMH's Runner API, one runner call per step, into a
 * {@link RunFolder}, then renders {@code report.md} and the charts.
 */
final class BenchRun {

    private BenchRun() {}

    static Outcome run(Profile profile, Path folder, PrintWriter console) throws RunnerException {
        return run(profile, folder, console, true, false);
    }

    /** As {@link #run(Profile, Path, PrintWriter)}; without the report and charts when {@code report} is false. */
    static Outcome run(Profile profile, Path folder, PrintWriter console, boolean report) throws RunnerException {
        return run(profile, folder, console, report, false);
    }

    /**
     * As {@link #run(Profile, Path, PrintWriter, boolean, boolean, PostgresTarget.Plan)} with the plan
     * for this JVM's PostgreSQL server: without one, the PostgreSQL steps are dropped with a banner
     * on stderr.
     */
    static Outcome run(Profile profile, Path folder, PrintWriter console, boolean report, boolean resume)
            throws RunnerException {
        PostgresTarget.Plan plan = PostgresTarget.plan(profile, PostgresTarget.configured(), true);
        if (plan.banner() != null) {
            System.err.print(plan.banner());
        }
        return run(plan.profile(), folder, console, report, resume, plan);
    }

    /**
     * Runs the profile into {@code folder}. With {@code resume}, the folder must hold an earlier run
     * of the same profile: only the forks without a result there run (those that failed, or that
     * an interrupted run never reached), their results join the earlier ones, and
     * {@code environment.json} records each resumption with its own commit and time.
     *
     * @param postgres what was decided about PostgreSQL (its {@code profile} is not used: {@code
     *     profile} is the one to run); its record goes into {@code environment.json}
     */
    static Outcome run(Profile profile, Path folder, PrintWriter console, boolean report, boolean resume,
                       PostgresTarget.Plan postgres) throws RunnerException {
        if (profile.steps().isEmpty() && profile.openLoops().isEmpty() && profile.multiProcess().isEmpty()) {
            throw new IllegalArgumentException("nothing to run: the filters left no benchmark of profile " + profile.name());
        }
        if (!Storage.longestBusySleep().equals(StoreOptions.defaults().longestBusySleep())) {
            // The run's settings do not record it, and the gate compares runs by their settings.
            throw new IllegalArgumentException("-D" + Storage.LONGEST_BUSY_SLEEP_PROPERTY + " is for MultiProcessMain "
                    + "(--longest-busy-sleep): the runner measures the store's default longest sleep, "
                    + StoreOptions.defaults().longestBusySleep().toMillis() + " ms");
        }
        RunFolder run = resume ? RunFolder.resume(folder, profile, postgres) : RunFolder.start(folder, profile, postgres);
        Profile todo = run.todo();
        console.printf(Locale.ROOT, "leaselab bench: profile %s, %d forks%s, estimated %d min (at most about %d min "
                        + "if SQLite's busy handler stalls); results in %s%n", profile.name(), todo.forkRuns(),
                resume ? " without a result yet" : "", Math.round(todo.estimatedSeconds() / 60),
                Math.round(todo.worstCaseSeconds() / 60), folder);
        long start = System.nanoTime();
        double[] planned = todo.steps().stream()
                .flatMapToDouble(s -> DoubleStream.generate(() -> todo.secondsPerCombination(s)).limit(s.combinations()))
                .toArray();
        int started = 0;
        try (PrintStream logStream = run.openLog()) {
            for (Profile.Step step : todo.steps()) {
                ProgressFormat progress = new ProgressFormat(
                        OutputFormatFactory.createFormatInstance(logStream, VerboseMode.NORMAL), console,
                        planned, todo.secondsAfterForks(), started, start);
                Collection<RunResult> stepResults = new Runner(options(todo, step, run.tally()), progress).run();
                started = progress.started();
                for (ForkKey missing : missingForks(step, stepResults)) {
                    console.printf(Locale.ROOT, "FAILED fork %s: no result, see %s%n", missing.describe(), run.log());
                }
                run.add(stepResults);
            }
        }
        // After the JMH forks, so that no fork shares the CPUs with an open-loop JVM.
        List<String> failedOpenLoops = new ArrayList<>(OpenLoopRuns.run(todo, folder, console, resume));
        // Last: each run starts several worker JVMs that must have the CPUs to themselves.
        failedOpenLoops.addAll(MultiProcessRuns.run(todo, folder, console, resume).stream()
                .map(f -> "processes " + f).toList());
        List<ForkKey> failedForks = run.failedForks(profile);
        long seconds = Math.round((System.nanoTime() - start) / 1e9);
        run.finish(failedForks, seconds);
        if (report) {
            Report.write(folder);
        }
        console.printf(Locale.ROOT, "done in %d s: %s%n", seconds, folder.resolve("report.md"));
        if (!failedForks.isEmpty()) {
            console.printf(Locale.ROOT, "%d of %d forks failed and have no results: %s%n", failedForks.size(),
                    profile.forkRuns(), failedForks.stream().map(ForkKey::describe).toList());
        }
        if (!failedOpenLoops.isEmpty()) {
            console.printf(Locale.ROOT, "%d open-loop or multi-process runs failed: %s%n", failedOpenLoops.size(), failedOpenLoops);
        }
        return new Outcome(folder, failedForks, failedOpenLoops);
    }

    /**
     * The forks of a step that JMH returned no result for. JMH runs with fail-on-error off, so that
     * one broken fork of a multi-hour run costs that fork and not the run; its exception is in
     * {@code jmh.log} and the fork is reported here instead.
     */
    static List<ForkKey> missingForks(Profile.Step step, Collection<RunResult> results) {
        return step.missing(results.stream().map(r -> ForkKey.of(r.getParams())).toList());
    }

    /**
     * What a run left behind.
     *
     * @param folder the results folder
     * @param failedForks the forks that produced no result (empty when all ran)
     * @param failedOpenLoops the open-loop and multi-process runs that failed, as text (empty when all ran)
     */
    record Outcome(Path folder, List<ForkKey> failedForks, List<String> failedOpenLoops) {

        /** Whether every fork, every open-loop run and every multi-process run produced its result. */
        boolean complete() {
            return failedForks.isEmpty() && failedOpenLoops.isEmpty();
        }
    }

    static org.openjdk.jmh.runner.options.Options options(Profile profile, Profile.Step step, Path tally) {
        Profile.Timing timing = step.timingIn(profile);
        ChainedOptionsBuilder b = new OptionsBuilder()
                .include("^" + Pattern.quote(step.benchmark().jmhName()) + "$")
                .mode(step.mode())
                .timeUnit(step.mode() == Mode.Throughput ? TimeUnit.SECONDS : TimeUnit.MICROSECONDS)
                .threads(step.threads())
                .forks(timing.forks())
                .warmupIterations(timing.warmupIterations())
                .warmupTime(TimeValue.milliseconds(timing.warmupMillis()))
                .measurementIterations(timing.measurementIterations())
                .measurementTime(TimeValue.milliseconds(timing.measurementMillis()))
                .shouldFailOnError(false)
                .syncIterations(step.benchmark() != BenchmarkId.PAIRED || Profile.PAIRED_SYNC_ITERATIONS)
                .param(ForkKey.STORAGE, step.storages().stream().map(Enum::name).toArray(String[]::new));
        if (step.measuresReference()) {
            b.addProfiler(MachineReference.class, "millis=" + Profile.referenceMillis(timing));
        }
        if (step.hasStrategy()) {
            b.param(ForkKey.STRATEGY, step.strategies().stream().map(LockingStrategy::name).toArray(String[]::new));
        }
        List<String> jvmArgs = new ArrayList<>();
        jvmArgs.add("-D" + Outcomes.TALLY_PROPERTY + "=" + tally);
        jvmArgs.add("-D" + Storage.BUSY_WAIT_PROPERTY + "=" + step.busyWaitIn(profile).name());
        if (System.getProperty(BenchDb.DECORATOR_PROPERTY) != null) {
            // The decorator and its own settings (leaselab.bench.decorator.*).
            System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(BenchDb.DECORATOR_PROPERTY)).sorted()
                    .forEach(k -> jvmArgs.add("-D" + k + "=" + System.getProperty(k)));
        }
        // The forks inherit the environment (LEASELAB_POSTGRES_URL) and this JVM's command line, but
        // not a property that this JVM set itself (a test, a program that embeds the runner).
        String postgresUrl = System.getProperty(PostgresTarget.URL_PROPERTY);
        switch (step.engine()) {
            case SQLITE -> { }
            case POSTGRESQL -> {
                if (postgresUrl != null) {
                    jvmArgs.add("-D" + PostgresTarget.URL_PROPERTY + "=" + postgresUrl);
                }
            }
        }
        // HikariCP brings SLF4J's API without a provider, and sqlite-jdbc and HikariCP then print
        // three lines of warnings into the console for every fork.
        jvmArgs.add("-D" + BenchMain.SLF4J_VERBOSITY + "=ERROR");
        b.jvmArgsAppend(jvmArgs.toArray(String[]::new));
        if (timing.forks() == 0) {
            // In-process (tests only): the tally property must be visible to this JVM.
            System.setProperty(Outcomes.TALLY_PROPERTY, tally.toString());
            System.setProperty(Storage.BUSY_WAIT_PROPERTY, step.busyWaitIn(profile).name());
        }
        return b.build();
    }
}
