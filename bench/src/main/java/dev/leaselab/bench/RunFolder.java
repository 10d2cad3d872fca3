package dev.leaselab.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;

/**
 * One results folder while a run writes it: {@code environment.json} (the machine, the code, the
 * profile, then the end, the duration and the failed forks), {@code jmh-result.json} (JMH's JSON of
 * every step so far), {@code tally.jsonl} (which the forks append to) and {@code jmh.log}. A folder
 * can be resumed: then it knows which of the profile's forks still have no result.
 */
final class RunFolder {

    static final String ENVIRONMENT = "environment.json";
    static final String LOG = "jmh.log";

    private final Path folder;
    private final Map<String, Object> environment;
    /** The JMH results of the runs this one resumes, kept in the JSON ahead of this run's. */
    private final ArrayNode earlier;
    private final long earlierSeconds;
    private final Profile todo;
    private final List<RunResult> results = new ArrayList<>();

    private RunFolder(Path folder, Map<String, Object> environment, ArrayNode earlier, long earlierSeconds, Profile todo) {
        this.folder = folder;
        this.environment = environment;
        this.earlier = earlier;
        this.earlierSeconds = earlierSeconds;
        this.todo = todo;
    }

    /**
     * A new run of {@code profile} into {@code folder}, created if missing; {@code environment.json}
     * is written at once, so that a run that dies still says what it was.
     */
    static RunFolder start(Path folder, Profile profile, PostgresTarget.Plan postgres) {
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create the results folder " + folder, e);
        }
        Map<String, Object> environment = new LinkedHashMap<>();
        environment.put("runId", folder.getFileName().toString());
        environment.put("started", Instant.now().toString());
        environment.putAll(Environment.describe());
        environment.put("postgresql", postgres.record());
        environment.put("settings", profile.settings());
        RunFolder run = new RunFolder(folder, environment, Json.MAPPER.createArrayNode(), 0, profile);
        run.writeEnvironment();
        return run;
    }

    /**
     * Continues an earlier run of the same profile in {@code folder}: {@link #todo()} holds only the
     * forks without a result there (those that failed, or that an interrupted run never reached),
     * their tally lines are dropped, and {@code environment.json} records the resumption with its
     * own commit and time.
     *
     * @throws IllegalArgumentException if the folder holds no run, or a run of another profile
     */
    static RunFolder resume(Path folder, Profile profile, PostgresTarget.Plan postgres) {
        Profile todo = remaining(folder, profile);
        Path envFile = folder.resolve(ENVIRONMENT);
        Map<String, Object> environment = Json.MAPPER.convertValue(Json.read(envFile),
                new TypeReference<LinkedHashMap<String, Object>>() {});
        RunFolder run = new RunFolder(folder, environment, earlierResults(folder), Json.read(envFile).path("durationSeconds").asLong(0), todo);
        run.dropTally(todo);
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
        run.writeEnvironment();
        return run;
    }

    /**
     * The forks of {@code profile} that have no result in {@code folder}: what {@link #resume} would
     * run, read without changing the folder (a dry run of a resumption prints it).
     *
     * @throws IllegalArgumentException if the folder holds no run, or a run of another profile
     */
    static Profile remaining(Path folder, Profile profile) {
        Path envFile = folder.resolve(ENVIRONMENT);
        if (!Files.isRegularFile(envFile)) {
            throw new IllegalArgumentException("--resume: " + folder + " holds no earlier run (no environment.json)");
        }
        String earlierProfile = Json.read(envFile).path("settings").path("profile").asText();
        if (!earlierProfile.equals(profile.name())) {
            throw new IllegalArgumentException("--resume: " + folder + " holds a run of profile '" + earlierProfile
                    + "', not '" + profile.name() + "'");
        }
        Set<ForkKey> measured = new HashSet<>();
        earlierResults(folder).forEach(r -> measured.add(BenchResults.key(r, folder.resolve(BenchResults.JMH_JSON))));
        return profile.withSteps(missingSteps(profile, measured));
    }

    private static ArrayNode earlierResults(Path folder) {
        Path jsonFile = folder.resolve(BenchResults.JMH_JSON);
        return Files.isRegularFile(jsonFile) ? (ArrayNode) Json.read(jsonFile) : Json.MAPPER.createArrayNode();
    }

    Path path() {
        return folder;
    }

    /** The steps this run has to do: the whole profile, or on a resumption the forks without a result. */
    Profile todo() {
        return todo;
    }

    /** The tally file, absolute: the forks run in other working directories' JVMs and append to it. */
    Path tally() {
        return folder.resolve(BenchResults.TALLY).toAbsolutePath();
    }

    Path log() {
        return folder.resolve(LOG);
    }

    /** JMH's full log, appended to (a resumption continues the log of the run it resumes). */
    PrintStream openLog() {
        try {
            return new PrintStream(new FileOutputStream(log().toFile(), true), true, StandardCharsets.UTF_8);
        } catch (FileNotFoundException e) {
            throw new UncheckedIOException("could not write " + log(), e);
        }
    }

    /**
     * Adds the results of one step and writes the JMH JSON again, so that an interrupted long run
     * keeps what it measured.
     */
    void add(Collection<RunResult> stepResults) {
        results.addAll(stepResults);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            ResultFormatFactory.getInstance(ResultFormatType.JSON, out).writeOut(results);
        }
        ArrayNode all = earlier.deepCopy();
        if (!results.isEmpty()) {
            all.addAll((ArrayNode) Json.readLine(bytes.toString(StandardCharsets.UTF_8)));
        }
        Json.writeFile(folder.resolve(BenchResults.JMH_JSON), all);
    }

    /** The forks of {@code profile} that have no result in the folder, earlier runs included. */
    List<ForkKey> failedForks(Profile profile) {
        List<ForkKey> measured = BenchResults.load(folder).stream().map(BenchResults.Row::key).toList();
        List<ForkKey> failed = new ArrayList<>();
        for (Profile.Step step : profile.steps()) {
            failed.addAll(step.missing(measured));
        }
        return failed;
    }

    /** Records the end of the run in {@code environment.json}; a resumption adds its time to the earlier runs'. */
    void finish(List<ForkKey> failedForks, long seconds) {
        environment.put("failedForks", failedForks.stream().map(ForkKey::describe).toList());
        environment.put("finished", Instant.now().toString());
        environment.put("durationSeconds", seconds + earlierSeconds);
        writeEnvironment();
    }

    private void writeEnvironment() {
        Json.writeFile(folder.resolve(ENVIRONMENT), environment);
    }

    /** The profile's forks that have no result yet, one step per fork unless a whole step is missing. */
    private static List<Profile.Step> missingSteps(Profile profile, Set<ForkKey> measured) {
        List<Profile.Step> steps = new ArrayList<>();
        for (Profile.Step step : profile.steps()) {
            List<Profile.Step> missing = new ArrayList<>();
            for (ForkKey key : step.forkKeys()) {
                if (!measured.contains(key)) {
                    // The floor's step keeps a strategy: it decides whether a filter keeps the step.
                    missing.add(step.withMatrix(List.of(key.storage()),
                            key.strategy() == null ? step.strategies().subList(0, 1) : List.of(key.strategy())));
                }
            }
            steps.addAll(missing.size() == step.combinations() ? List.of(step) : missing);
        }
        return steps;
    }

    /** Removes the tally lines of forks that are about to run again, so a half-run fork is not counted twice. */
    private void dropTally(Profile todo) {
        Path tally = tally();
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
}
