package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Runs a profile's {@link OpenLoopStep}s, each strategy and storage in a JVM of its own with this
 * JVM's class path, into {@code <run folder>/openloop/<storage>-<strategy>.json} (and {@code .log},
 * the command's own output), and reads them back for the report.
 */
final class OpenLoopRuns {

    private OpenLoopRuns() {}

    /**
     * Runs every open-loop run of {@code profile} that has no JSON in {@code folder} yet (with
     * {@code resume}; otherwise all of them) and returns the ones that failed, as text.
     */
    static List<String> run(Profile profile, Path folder, PrintWriter console, boolean resume) {
        return run(profile, folder, console, resume, OpenLoopMain.class.getName());
    }

    /** As {@link #run(Profile, Path, PrintWriter, boolean)} with another main class (tests: one that fails). */
    static List<String> run(Profile profile, Path folder, PrintWriter console, boolean resume, String mainClass) {
        List<String> failed = new ArrayList<>();
        Path dir = folder.resolve(OpenLoopStep.FOLDER);
        int total = profile.openLoops().stream().mapToInt(s -> s.runs().size()).sum();
        int done = 0;
        for (OpenLoopStep step : profile.openLoops()) {
            for (OpenLoopStep.Run run : step.runs()) {
                done++;
                Path json = dir.resolve(run.name() + ".json");
                if (resume && Files.isRegularFile(json)) {
                    continue;
                }
                console.printf(Locale.ROOT, "open loop %d/%d: %s on %s, %d threads, loads %s%n", done, total, run.strategy(),
                        run.storage(), step.threads(), step.loads());
                console.flush();
                String failure = runOne(profile, step, run, dir, json, mainClass);
                if (failure != null) {
                    failed.add(run.name() + ": " + failure);
                    console.println("  FAILED: " + failure);
                } else {
                    Json.read(json).path("runs").forEach(r -> console.printf(Locale.ROOT, "  load %.2f: %s%n",
                            r.path("load").asDouble(), line(r.path("result"))));
                }
                console.flush();
            }
        }
        return failed;
    }

    private static String runOne(Profile profile, OpenLoopStep step, OpenLoopStep.Run run, Path dir, Path json,
                                 String mainClass) {
        Path log = dir.resolve(run.name() + ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                "-D" + Storage.BUSY_WAIT_PROPERTY + "=" + profile.busyWait().name(),
                "-D" + BenchMain.SLF4J_VERBOSITY + "=ERROR",
                "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
                mainClass));
        command.addAll(step.arguments(run, json));
        try {
            Files.createDirectories(dir);
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
            return "could not run OpenLoopMain: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** The open-loop JSONs of a run folder, in name order; empty if it has none. */
    static List<JsonNode> read(Path folder) {
        Path dir = folder.resolve(OpenLoopStep.FOLDER);
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

    private static String line(JsonNode r) {
        return String.format(Locale.ROOT, "rate %.0f/s, p50 %.3f, p99 %.3f, p99.9 %.3f, max %.3f ms, %.0f won/s, failed %d, late %d",
                r.path("rateAsked").asDouble(), r.path("p50Ms").asDouble(), r.path("p99Ms").asDouble(),
                r.path("p999Ms").asDouble(), r.path("maxMs").asDouble(), r.path("achievedWonPerSecond").asDouble(),
                r.path("failed").asLong(), r.path("late").asLong());
    }
}
