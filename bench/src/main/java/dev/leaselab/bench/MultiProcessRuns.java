package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs a profile's {@link MultiProcessStep}s, one {@link MultiProcessMain} JVM per storage with this
 * JVM's class path and busy wait, into {@code <run folder>/multiprocess/<storage>.json} (and
 * {@code .log}, the command's own output), and reads them back for the report.
 */
final class MultiProcessRuns {

    private MultiProcessRuns() {}

    /**
     * Runs every storage of every multi-process step of {@code profile} that has no JSON in
     * {@code folder} yet (with {@code resume}; otherwise all of them) and returns the ones that
     * failed, as text.
     */
    static List<String> run(Profile profile, Path folder, PrintWriter console, boolean resume) {
        return run(profile, folder, console, resume, MultiProcessMain.class.getName());
    }

    /** As {@link #run(Profile, Path, PrintWriter, boolean)} with another main class (tests: one that fails). */
    static List<String> run(Profile profile, Path folder, PrintWriter console, boolean resume, String mainClass) {
        List<ResultJvm.Job> jobs = new ArrayList<>();
        for (MultiProcessStep step : profile.multiProcess()) {
            boolean paired = step.pairedUnder(profile.busyWait());
            for (Storage storage : step.storages()) {
                jobs.add(new ResultJvm.Job(MultiProcessStep.name(storage), String.format(Locale.ROOT,
                        "%s, splits %s, %d strategies and the floor%s (about %.0f s)", storage, step.splits(),
                        step.strategies().size(), paired ? ", paired" : "", step.secondsPerStorage(paired)),
                        json -> step.arguments(storage, json, paired)));
            }
        }
        return ResultJvm.runAll(profile, folder.resolve(MultiProcessStep.FOLDER), jobs, "processes", mainClass, console, resume,
                result -> {
                    List<String> lines = new ArrayList<>();
                    result.path("runs").forEach(r -> lines.add(line(r)));
                    return lines;
                });
    }

    /** The multi-process JSONs of a run folder, in name order; empty if it has none. */
    static List<JsonNode> read(Path folder) {
        return ResultJvm.readAll(folder.resolve(MultiProcessStep.FOLDER));
    }

    private static String line(JsonNode r) {
        JsonNode p = r.path("paired");
        if (!p.isMissingNode()) {
            return String.format(Locale.ROOT, "%-18s %-4s %8.0f won/s  x floor %.2f [%.2f, %.2f] paired  failed %d  Jain %.2f",
                    p.path("work").asText(), p.path("split").path("processes").asInt() + "x" + p.path("split").path("threads").asInt(),
                    p.path("claimWonPerSecond").asDouble(), p.path("xFloor").path("median").asDouble(),
                    p.path("xFloor").path("low").asDouble(), p.path("xFloor").path("high").asDouble(), p.path("claimFailed").asLong(),
                    p.path("jain").asDouble());
        }
        JsonNode x = r.path("result");
        return String.format(Locale.ROOT, "%-18s %-4s %8.0f won/s  x floor %s  failed %d  Jain %.2f",
                x.path("work").asText(), x.path("split").path("processes").asInt() + "x" + x.path("split").path("threads").asInt(),
                x.path("wonPerSecond").asDouble(), r.path("xFloor").isNumber()
                        ? String.format(Locale.ROOT, "%.2f", r.path("xFloor").asDouble()) : "-",
                x.path("failed").asLong(), x.path("jain").asDouble());
    }
}
