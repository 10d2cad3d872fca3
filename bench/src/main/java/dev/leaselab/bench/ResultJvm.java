package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leaselab.testkit.process.ChildJvm;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A command of this module run in a JVM of its own after a profile's JMH forks (the open loops, the
 * multi-process runs), with this JVM's class path and the profile's busy wait: it writes its
 * results to a JSON file and its output to a log next to it.
 */
final class ResultJvm {

    private ResultJvm() {}

    /**
     * Runs {@code mainClass} with {@code arguments} and waits for it.
     *
     * @return null if it exited with 0 and wrote {@code json}; otherwise what went wrong, naming the log
     */
    private static String run(Profile profile, String mainClass, List<String> arguments, Path json, Path log) {
        List<String> command = new ArrayList<>(List.of(ChildJvm.java(),
                "-cp", ChildJvm.classPath(),
                "-D" + Storage.BUSY_WAIT_PROPERTY + "=" + profile.busyWait().name(),
                "-D" + BenchMain.SLF4J_VERBOSITY + "=ERROR",
                "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir")));
        // The environment (LEASELAB_POSTGRES_URL) is inherited, a property this JVM was given is not.
        String postgresUrl = System.getProperty(PostgresTarget.URL_PROPERTY);
        if (postgresUrl != null) {
            command.add("-D" + PostgresTarget.URL_PROPERTY + "=" + postgresUrl);
        }
        command.add(mainClass);
        command.addAll(arguments);
        try {
            Files.createDirectories(json.getParent());
            Files.deleteIfExists(json);
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            int code = p.waitFor();
            if (code != 0) {
                return mainClass + " exited with " + code + " (its output is in " + log + ")";
            }
            if (!Files.isRegularFile(json)) {
                return mainClass + " wrote no " + json + " (its output is in " + log + ")";
            }
            return null;
        } catch (IOException e) {
            return "could not run " + mainClass + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /**
     * One run of a side command.
     *
     * @param name the file name (without extension) of its JSON and log
     * @param title what the console says before it runs
     * @param arguments the command's arguments, given the JSON file it must write
     */
    record Job(String name, String title, Function<Path, List<String>> arguments) {
    }

    /**
     * Runs each job whose JSON is not in {@code dir} yet (with {@code resume}; otherwise all of
     * them), one after the other, saying "{@code label} i/n: title" before each and then either
     * FAILED or the lines {@code summary} makes of its JSON.
     *
     * @return the jobs that failed, as "name: what went wrong"
     */
    static List<String> runAll(Profile profile, Path dir, List<Job> jobs, String label, String mainClass, PrintWriter console,
                               boolean resume, Function<JsonNode, List<String>> summary) {
        List<String> failed = new ArrayList<>();
        int done = 0;
        for (Job job : jobs) {
            done++;
            Path json = dir.resolve(job.name() + ".json");
            if (resume && Files.isRegularFile(json)) {
                continue;
            }
            console.printf(Locale.ROOT, "%s %d/%d: %s%n", label, done, jobs.size(), job.title());
            console.flush();
            String failure = run(profile, mainClass, job.arguments().apply(json), json, dir.resolve(job.name() + ".log"));
            if (failure != null) {
                failed.add(job.name() + ": " + failure);
                console.println("  FAILED: " + failure);
            } else {
                summary.apply(Json.read(json)).forEach(line -> console.println("  " + line));
            }
            console.flush();
        }
        return failed;
    }

    /** The JSON files of {@code dir}, read, in name order; empty if there is no such folder. */
    static List<JsonNode> readAll(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json")).sorted(Comparator.naturalOrder())
                    .map(Json::read).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + dir, e);
        }
    }
}
