package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.nio.file.Files;
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
        List<String> failed = new ArrayList<>();
        Path dir = folder.resolve(MultiProcessStep.FOLDER);
        int total = profile.multiProcess().stream().mapToInt(s -> s.storages().size()).sum();
        int done = 0;
        for (MultiProcessStep step : profile.multiProcess()) {
            for (Storage storage : step.storages()) {
                done++;
                Path json = dir.resolve(MultiProcessStep.name(storage) + ".json");
                if (resume && Files.isRegularFile(json)) {
                    continue;
                }
                console.printf(Locale.ROOT, "processes %d/%d: %s, splits %s, %d strategies and the floor (about %.0f s)%n",
                        done, total, storage, step.splits(), step.strategies().size(), step.secondsPerStorage());
                console.flush();
                String failure = ResultJvm.run(profile, mainClass, step.arguments(storage, json), json,
                        dir.resolve(MultiProcessStep.name(storage) + ".log"));
                if (failure != null) {
                    failed.add(MultiProcessStep.name(storage) + ": " + failure);
                    console.println("  FAILED: " + failure);
                } else {
                    Json.read(json).path("runs").forEach(r -> console.println("  " + line(r)));
                }
                console.flush();
            }
        }
        return failed;
    }

    /** The multi-process JSONs of a run folder, in name order; empty if it has none. */
    static List<JsonNode> read(Path folder) {
        return ResultJvm.readAll(folder.resolve(MultiProcessStep.FOLDER));
    }

    private static String line(JsonNode r) {
        JsonNode x = r.path("result");
        return String.format(Locale.ROOT, "%-18s %-4s %8.0f won/s  x floor %s  failed %d  Jain %.2f",
                x.path("work").asText(), x.path("split").path("processes").asInt() + "x" + x.path("split").path("threads").asInt(),
                x.path("wonPerSecond").asDouble(), r.path("xFloor").isNumber()
                        ? String.format(Locale.ROOT, "%.2f", r.path("xFloor").asDouble()) : "-",
                x.path("failed").asLong(), x.path("jain").asDouble());
    }
}
