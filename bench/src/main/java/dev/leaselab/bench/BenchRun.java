package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs a {@link Profile} through JMH's Runner API and writes the results folder: {@code jmh-result.json}
 * (JMH's own JSON of all steps), {@code tally.jsonl}, {@code jmh.log}, {@code environment.json},
 * then {@code report.md} and the charts.
 */
final class BenchRun {

    private BenchRun() {}

    static Outcome run(Profile profile, Path folder, PrintWriter console) throws RunnerException {
        return run(profile, folder, console, true);
    }

    /** As {@link #run(Profile, Path, PrintWriter)}; without the report and charts when {@code report} is false. */
    static Outcome run(Profile profile, Path folder, PrintWriter console, boolean report) throws RunnerException {
        if (profile.steps().isEmpty()) {
            throw new IllegalArgumentException("nothing to run: the filters left no benchmark of profile " + profile.name());
        }
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create the results folder " + folder, e);
        }
        Path tally = folder.resolve(BenchResults.TALLY).toAbsolutePath();
        Path log = folder.resolve("jmh.log");
        Map<String, Object> environment = new LinkedHashMap<>();
        environment.put("runId", folder.getFileName().toString());
        environment.put("started", Instant.now().toString());
        environment.putAll(Environment.describe());
        environment.put("settings", profile.settings());
        Json.writeFile(folder.resolve("environment.json"), environment);

        console.printf(Locale.ROOT, "leaselab bench: profile %s, %d forks, estimated %d min (at most about %d min "
                        + "if SQLite's busy handler stalls); results in %s%n", profile.name(), profile.forkRuns(),
                Math.round(profile.estimatedSeconds() / 60), Math.round(profile.worstCaseSeconds() / 60), folder);
        long start = System.nanoTime();
        List<RunResult> results = new ArrayList<>();
        List<String> failedForks = new ArrayList<>();
        double perFork = profile.estimatedSeconds() / Math.max(1, profile.forkRuns());
        int started = 0;
        try (PrintStream logStream = new PrintStream(new FileOutputStream(log.toFile(), true), true, StandardCharsets.UTF_8)) {
            for (Profile.Step step : profile.steps()) {
                ProgressFormat progress = new ProgressFormat(
                        OutputFormatFactory.createFormatInstance(logStream, VerboseMode.NORMAL), console,
                        profile.steps().stream().mapToInt(Profile.Step::combinations).sum(), perFork, started, start);
                Collection<RunResult> stepResults = new Runner(options(profile, step, tally), progress).run();
                started = progress.started();
                results.addAll(stepResults);
                for (String missing : missingForks(step, stepResults)) {
                    failedForks.add(missing);
                    console.printf(Locale.ROOT, "FAILED fork %s: no result, see %s%n", missing, log);
                }
                // Written after every step, so that an interrupted long run keeps what it measured.
                writeJson(folder, results);
                environment.put("failedForks", failedForks);
                Json.writeFile(folder.resolve("environment.json"), environment);
            }
        } catch (FileNotFoundException e) {
            throw new UncheckedIOException("could not write " + log, e);
        }
        environment.put("finished", Instant.now().toString());
        environment.put("durationSeconds", Math.round((System.nanoTime() - start) / 1e9));
        Json.writeFile(folder.resolve("environment.json"), environment);
        if (report) {
            Report.write(folder);
        }
        console.printf(Locale.ROOT, "done in %d s: %s%n", Math.round((System.nanoTime() - start) / 1e9),
                folder.resolve("report.md"));
        if (!failedForks.isEmpty()) {
            console.printf(Locale.ROOT, "%d of %d forks failed and have no results: %s%n", failedForks.size(),
                    profile.forkRuns(), failedForks);
        }
        return new Outcome(folder, failedForks);
    }

    /**
     * The parameter combinations of a step that JMH returned no result for. JMH runs with
     * fail-on-error off, so that one broken fork of a multi-hour run costs that fork and not the
     * run; its exception is in {@code jmh.log} and the fork is reported here instead.
     */
    static List<String> missingForks(Profile.Step step, Collection<RunResult> results) {
        List<String> missing = new ArrayList<>();
        for (Storage storage : step.storages()) {
            List<String> strategies = step.hasStrategy()
                    ? step.strategies().stream().map(LockingStrategy::name).toList() : List.of("-");
            for (String strategy : strategies) {
                boolean found = results.stream().anyMatch(r -> storage.name().equals(r.getParams().getParam("storage"))
                        && (!step.hasStrategy() || strategy.equals(r.getParams().getParam("strategy"))));
                if (!found) {
                    missing.add(String.format(Locale.ROOT, "%s %s threads=%d storage=%s%s", step.benchmark(),
                            step.mode().shortLabel(), step.threads(), storage, step.hasStrategy() ? " strategy=" + strategy : ""));
                }
            }
        }
        return missing;
    }

    private static void writeJson(Path folder, List<RunResult> results) {
        Path file = folder.resolve(BenchResults.JMH_JSON);
        try (PrintStream json = new PrintStream(file.toFile(), StandardCharsets.UTF_8)) {
            ResultFormatFactory.getInstance(ResultFormatType.JSON, json).writeOut(results);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }

    /**
     * What a run left behind.
     *
     * @param folder the results folder
     * @param failedForks the forks that produced no result (empty when all ran)
     */
    record Outcome(Path folder, List<String> failedForks) {}

    static org.openjdk.jmh.runner.options.Options options(Profile profile, Profile.Step step, Path tally) {
        String[] parts = step.benchmark().split("\\.");
        ChainedOptionsBuilder b = new OptionsBuilder()
                .include("\\." + parts[0] + "\\." + parts[1] + "$")
                .mode(step.mode())
                .timeUnit(step.mode() == Mode.Throughput ? TimeUnit.SECONDS : TimeUnit.MICROSECONDS)
                .threads(step.threads())
                .forks(profile.forks())
                .warmupIterations(profile.warmupIterations())
                .warmupTime(TimeValue.milliseconds(profile.warmupMillis()))
                .measurementIterations(profile.measurementIterations())
                .measurementTime(TimeValue.milliseconds(profile.measurementMillis()))
                .shouldFailOnError(false)
                .param("storage", step.storages().stream().map(Enum::name).toArray(String[]::new));
        if (step.hasStrategy()) {
            b.param("strategy", step.strategies().stream().map(LockingStrategy::name).toArray(String[]::new));
        }
        List<String> jvmArgs = new ArrayList<>();
        jvmArgs.add("-D" + Outcomes.TALLY_PROPERTY + "=" + tally);
        String decorator = System.getProperty(BenchDb.DECORATOR_PROPERTY);
        if (decorator != null) {
            jvmArgs.add("-D" + BenchDb.DECORATOR_PROPERTY + "=" + decorator);
        }
        b.jvmArgsAppend(jvmArgs.toArray(String[]::new));
        if (profile.forks() == 0) {
            // In-process (tests only): the tally property must be visible to this JVM.
            System.setProperty(Outcomes.TALLY_PROPERTY, tally.toString());
        }
        return b.build();
    }
}
