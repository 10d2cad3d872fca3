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

    static Path run(Profile profile, Path folder, PrintWriter console) throws RunnerException {
        return run(profile, folder, console, true);
    }

    /** As {@link #run(Profile, Path, PrintWriter)}; without the report and charts when {@code report} is false. */
    static Path run(Profile profile, Path folder, PrintWriter console, boolean report) throws RunnerException {
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
        double perFork = profile.estimatedSeconds() / Math.max(1, profile.forkRuns());
        int started = 0;
        try (PrintStream logStream = new PrintStream(new FileOutputStream(log.toFile(), true), true, StandardCharsets.UTF_8)) {
            for (Profile.Step step : profile.steps()) {
                ProgressFormat progress = new ProgressFormat(
                        OutputFormatFactory.createFormatInstance(logStream, VerboseMode.NORMAL), console,
                        profile.steps().stream().mapToInt(Profile.Step::combinations).sum(), perFork, started, start);
                results.addAll(new Runner(options(profile, step, tally), progress).run());
                started = progress.started();
            }
        } catch (FileNotFoundException e) {
            throw new UncheckedIOException("could not write " + log, e);
        }
        try (PrintStream json = new PrintStream(folder.resolve(BenchResults.JMH_JSON).toFile(), StandardCharsets.UTF_8)) {
            ResultFormatFactory.getInstance(ResultFormatType.JSON, json).writeOut(results);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + folder.resolve(BenchResults.JMH_JSON), e);
        }
        environment.put("finished", Instant.now().toString());
        environment.put("durationSeconds", Math.round((System.nanoTime() - start) / 1e9));
        Json.writeFile(folder.resolve("environment.json"), environment);
        if (report) {
            Report.write(folder);
        }
        console.printf(Locale.ROOT, "done in %d s: %s%n", Math.round((System.nanoTime() - start) / 1e9),
                folder.resolve("report.md"));
        return folder;
    }

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
                .shouldFailOnError(true)
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
