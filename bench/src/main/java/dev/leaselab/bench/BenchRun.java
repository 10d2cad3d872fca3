package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.ByteArrayOutputStream;
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
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
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
        if (profile.steps().isEmpty()) {
            throw new IllegalArgumentException("nothing to run: the filters left no benchmark of profile " + profile.name());
        }
        Path envFile = folder.resolve("environment.json");
        Path jsonFile = folder.resolve(BenchResults.JMH_JSON);
        Path tally = folder.resolve(BenchResults.TALLY).toAbsolutePath();
        Path log = folder.resolve("jmh.log");
        Map<String, Object> environment;
        ArrayNode earlier = Json.MAPPER.createArrayNode();
        if (resume) {
            if (!Files.isRegularFile(envFile)) {
                throw new IllegalArgumentException("--resume: " + folder + " holds no earlier run (no environment.json)");
            }
            environment = Json.MAPPER.convertValue(Json.read(envFile), new TypeReference<LinkedHashMap<String, Object>>() {});
            String earlierProfile = Json.read(envFile).path("settings").path("profile").asText();
            if (!earlierProfile.equals(profile.name())) {
                throw new IllegalArgumentException("--resume: " + folder + " holds a run of profile '" + earlierProfile
                        + "', not '" + profile.name() + "'");
            }
            if (Files.isRegularFile(jsonFile)) {
                earlier = (ArrayNode) Json.read(jsonFile);
            }
        } else {
            try {
                Files.createDirectories(folder);
            } catch (IOException e) {
                throw new UncheckedIOException("could not create the results folder " + folder, e);
            }
            environment = new LinkedHashMap<>();
            environment.put("runId", folder.getFileName().toString());
            environment.put("started", Instant.now().toString());
            environment.putAll(Environment.describe());
            environment.put("postgresql", postgres.record());
            environment.put("settings", profile.settings());
        }
        Set<ForkKey> measured = new HashSet<>();
        earlier.forEach(r -> measured.add(BenchResults.key(r, jsonFile)));
        Profile todo = resume ? profile.withSteps(missingSteps(profile, measured)) : profile;
        if (resume) {
            dropTally(tally, todo);
            Map<String, Object> resumption = new LinkedHashMap<>();
            resumption.put("started", Instant.now().toString());
            Map<String, Object> now = Environment.describe();
            resumption.put("gitCommit", now.get("gitCommit"));
            resumption.put("gitDirty", now.get("gitDirty"));
            resumption.put("forks", todo.forkRuns());
            if (Boolean.TRUE.equals(postgres.record().get("measured"))) {
                // The server of this resumption is the one that measured the PostgreSQL forks it runs.
                environment.put("postgresql", postgres.record());
            }
            @SuppressWarnings("unchecked")
            List<Object> resumptions = (List<Object>) environment.computeIfAbsent("resumed", k -> new ArrayList<>());
            resumptions.add(resumption);
        }
        Json.writeFile(envFile, environment);

        console.printf(Locale.ROOT, "leaselab bench: profile %s, %d forks%s, estimated %d min (at most about %d min "
                        + "if SQLite's busy handler stalls); results in %s%n", profile.name(), todo.forkRuns(),
                resume ? " without a result yet" : "", Math.round(todo.estimatedSeconds() / 60),
                Math.round(todo.worstCaseSeconds() / 60), folder);
        long start = System.nanoTime();
        List<RunResult> results = new ArrayList<>();
        double perFork = todo.estimatedSeconds() / Math.max(1, todo.forkRuns());
        int started = 0;
        try (PrintStream logStream = new PrintStream(new FileOutputStream(log.toFile(), true), true, StandardCharsets.UTF_8)) {
            for (Profile.Step step : todo.steps()) {
                ProgressFormat progress = new ProgressFormat(
                        OutputFormatFactory.createFormatInstance(logStream, VerboseMode.NORMAL), console,
                        todo.steps().stream().mapToInt(Profile.Step::combinations).sum(), perFork, started, start);
                Collection<RunResult> stepResults = new Runner(options(todo, step, tally), progress).run();
                started = progress.started();
                results.addAll(stepResults);
                for (ForkKey missing : missingForks(step, stepResults)) {
                    console.printf(Locale.ROOT, "FAILED fork %s: no result, see %s%n", missing.describe(), log);
                }
                // Written after every step, so that an interrupted long run keeps what it measured.
                writeJson(jsonFile, earlier, results);
            }
        } catch (FileNotFoundException e) {
            throw new UncheckedIOException("could not write " + log, e);
        }
        List<String> failedForks = new ArrayList<>();
        List<BenchResults.Row> all = BenchResults.load(folder);
        for (Profile.Step step : profile.steps()) {
            unmeasured(step, all.stream().map(BenchResults.Row::key).toList()).forEach(k -> failedForks.add(k.describe()));
        }
        long seconds = Math.round((System.nanoTime() - start) / 1e9);
        environment.put("failedForks", failedForks);
        environment.put("finished", Instant.now().toString());
        environment.put("durationSeconds", seconds + (resume ? Json.read(envFile).path("durationSeconds").asLong(0) : 0));
        Json.writeFile(envFile, environment);
        if (report) {
            Report.write(folder);
        }
        console.printf(Locale.ROOT, "done in %d s: %s%n", seconds, folder.resolve("report.md"));
        if (!failedForks.isEmpty()) {
            console.printf(Locale.ROOT, "%d of %d forks failed and have no results: %s%n", failedForks.size(),
                    profile.forkRuns(), failedForks);
        }
        return new Outcome(folder, failedForks);
    }

    /** The profile's forks that have no result yet, one step per fork unless a whole step is missing. */
    private static List<Profile.Step> missingSteps(Profile profile, Set<ForkKey> measured) {
        List<Profile.Step> steps = new ArrayList<>();
        for (Profile.Step step : profile.steps()) {
            List<Profile.Step> missing = new ArrayList<>();
            for (ForkKey key : step.forkKeys()) {
                if (!measured.contains(key)) {
                    // The floor's step keeps its strategies: they decide whether a filter keeps it.
                    missing.add(new Profile.Step(step.benchmark(), step.mode(), step.threads(), List.of(key.storage()),
                            key.strategy() == null ? step.strategies().subList(0, 1) : List.of(key.strategy())));
                }
            }
            steps.addAll(missing.size() == step.combinations() ? List.of(step) : missing);
        }
        return steps;
    }

    /** Removes the tally lines of forks that are about to run again, so a half-run fork is not counted twice. */
    private static void dropTally(Path tally, Profile todo) {
        if (!Files.isRegularFile(tally)) {
            return;
        }
        Set<ForkKey> rerun = new HashSet<>();
        todo.steps().forEach(step -> rerun.addAll(step.forkKeys()));
        try {
            List<String> kept = new ArrayList<>();
            for (String line : Files.readAllLines(tally)) {
                if (!rerun.contains(BenchResults.key(Json.readLine(line), tally))) {
                    kept.add(line);
                }
            }
            Files.write(tally, kept);
        } catch (IOException e) {
            throw new UncheckedIOException("could not rewrite " + tally, e);
        }
    }

    /**
     * The forks of a step that JMH returned no result for. JMH runs with fail-on-error off, so that
     * one broken fork of a multi-hour run costs that fork and not the run; its exception is in
     * {@code jmh.log} and the fork is reported here instead.
     */
    static List<ForkKey> missingForks(Profile.Step step, Collection<RunResult> results) {
        return unmeasured(step, results.stream().map(r -> ForkKey.of(r.getParams())).toList());
    }

    static List<ForkKey> unmeasured(Profile.Step step, Collection<ForkKey> measured) {
        Set<ForkKey> found = Set.copyOf(measured);
        return step.forkKeys().stream().filter(k -> !found.contains(k)).toList();
    }

    private static void writeJson(Path file, ArrayNode earlier, List<RunResult> results) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            ResultFormatFactory.getInstance(ResultFormatType.JSON, out).writeOut(results);
        }
        ArrayNode all = earlier.deepCopy();
        if (!results.isEmpty()) {
            all.addAll((ArrayNode) Json.readLine(bytes.toString(StandardCharsets.UTF_8)));
        }
        Json.writeFile(file, all);
    }

    /**
     * What a run left behind.
     *
     * @param folder the results folder
     * @param failedForks the forks that produced no result (empty when all ran)
     */
    record Outcome(Path folder, List<String> failedForks) {}

    static org.openjdk.jmh.runner.options.Options options(Profile profile, Profile.Step step, Path tally) {
        ChainedOptionsBuilder b = new OptionsBuilder()
                .include("^" + Pattern.quote(step.benchmark().jmhName()) + "$")
                .mode(step.mode())
                .timeUnit(step.mode() == Mode.Throughput ? TimeUnit.SECONDS : TimeUnit.MICROSECONDS)
                .threads(step.threads())
                .forks(profile.forks())
                .warmupIterations(profile.warmupIterations())
                .warmupTime(TimeValue.milliseconds(profile.warmupMillis()))
                .measurementIterations(profile.measurementIterations())
                .measurementTime(TimeValue.milliseconds(profile.measurementMillis()))
                .shouldFailOnError(false)
                .addProfiler(MachineReference.class, "millis=" + profile.referenceMillis())
                .param(ForkKey.STORAGE, step.storages().stream().map(Enum::name).toArray(String[]::new));
        if (step.hasStrategy()) {
            b.param(ForkKey.STRATEGY, step.strategies().stream().map(LockingStrategy::name).toArray(String[]::new));
        }
        List<String> jvmArgs = new ArrayList<>();
        jvmArgs.add("-D" + Outcomes.TALLY_PROPERTY + "=" + tally);
        String decorator = System.getProperty(BenchDb.DECORATOR_PROPERTY);
        if (decorator != null) {
            jvmArgs.add("-D" + BenchDb.DECORATOR_PROPERTY + "=" + decorator);
        }
        // The forks inherit the environment (LEASELAB_POSTGRES_URL) and this JVM's command line, but
        // not a property that this JVM set itself (a test, a program that embeds the runner).
        String postgresUrl = System.getProperty(PostgresTarget.URL_PROPERTY);
        if (postgresUrl != null && step.engine() == dev.leaselab.lease.LockingStrategy.Engine.POSTGRESQL) {
            jvmArgs.add("-D" + PostgresTarget.URL_PROPERTY + "=" + postgresUrl);
        }
        // HikariCP brings SLF4J's API without a provider, and sqlite-jdbc and HikariCP then print
        // three lines of warnings into the console for every fork.
        jvmArgs.add("-D" + BenchMain.SLF4J_VERBOSITY + "=ERROR");
        b.jvmArgsAppend(jvmArgs.toArray(String[]::new));
        if (profile.forks() == 0) {
            // In-process (tests only): the tally property must be visible to this JVM.
            System.setProperty(Outcomes.TALLY_PROPERTY, tally.toString());
        }
        return b.build();
    }
}
