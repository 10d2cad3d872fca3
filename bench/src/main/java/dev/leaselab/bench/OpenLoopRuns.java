package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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
        List<ResultJvm.Job> jobs = new ArrayList<>();
        for (OpenLoopStep step : profile.openLoops()) {
            for (OpenLoopStep.Run run : step.runs()) {
                jobs.add(new ResultJvm.Job(run.name(), String.format(Locale.ROOT, "%s on %s, %d threads, loads %s",
                        run.strategy(), run.storage(), step.threads(), step.loads()), json -> step.arguments(run, json)));
            }
        }
        return ResultJvm.runAll(profile, folder.resolve(OpenLoopStep.FOLDER), jobs, "open loop", mainClass, console, resume,
                result -> {
                    List<String> lines = new ArrayList<>();
                    result.path("runs").forEach(r -> lines.add(String.format(Locale.ROOT, "load %.2f: %s",
                            r.path("load").asDouble(), line(r.path("result")))));
                    return lines;
                });
    }

    /** The open-loop JSONs of a run folder, in name order; empty if it has none. */
    static List<JsonNode> read(Path folder) {
        return ResultJvm.readAll(folder.resolve(OpenLoopStep.FOLDER));
    }

    private static String line(JsonNode r) {
        return String.format(Locale.ROOT, "rate %.0f/s, p50 %.3f, p99 %.3f, p99.9 %.3f, max %.3f ms, %.0f won/s, failed %d, late %d",
                r.path("rateAsked").asDouble(), r.path("p50Ms").asDouble(), r.path("p99Ms").asDouble(),
                r.path("p999Ms").asDouble(), r.path("maxMs").asDouble(), r.path("achievedWonPerSecond").asDouble(),
                r.path("failed").asLong(), r.path("late").asLong());
    }
}
