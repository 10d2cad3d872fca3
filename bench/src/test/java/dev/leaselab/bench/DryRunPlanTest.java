package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which side runs a narrowed {@code run} keeps, read from its dry-run plan: the open loops and the
 * multi-process runs measure the hot-job claim at the profile's own thread counts, so a run
 * narrowed to other benchmarks, to a mode or to thread counts leaves the multi-process runs out,
 * and a run narrowed to strategies or storages keeps them for those only.
 */
class DryRunPlanTest {

    private static final String PROCESSES = "MultiProcessMain (hot claim)";

    @TempDir
    Path results;

    static Stream<Arguments> narrowings() {
        return Stream.of(
                Arguments.of(List.of(), true),
                Arguments.of(List.of("--no-processes"), false),
                Arguments.of(List.of("--benchmarks", "FloorBenchmark.update"), false),
                Arguments.of(List.of("--benchmarks", "ClaimBenchmark.hotJob"), true),
                Arguments.of(List.of("--modes", "thrpt"), false),
                Arguments.of(List.of("--threads", "8"), false),
                Arguments.of(List.of("--strategies", "CONDITIONAL_UPDATE"), true),
                Arguments.of(List.of("--storages", "WAL_FULL"), true),
                Arguments.of(List.of("--strategies", "PG_ROW_LOCK"), false));
    }

    @ParameterizedTest(name = "{0} keeps them: {1}")
    @MethodSource("narrowings")
    void aNarrowedRunKeepsTheMultiProcessRunsOnlyWhereTheyMeasureWhatWasAskedFor(List<String> narrowing, boolean kept) {
        List<String> args = new ArrayList<>(List.of("run", "--profile", "quick", "--dry-run", "--output", results.toString()));
        args.addAll(narrowing);
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        int status = BenchMain.execute(new PrintStream(console, true, StandardCharsets.UTF_8), args.toArray(String[]::new));
        String plan = console.toString(StandardCharsets.UTF_8);
        List<String> lines = plan.lines().filter(l -> l.contains(PROCESSES)).toList();
        if (narrowing.equals(List.of("--strategies", "PG_ROW_LOCK"))) {
            // Without a PostgreSQL server a plan of PostgreSQL strategies only is refused; with one
            // it keeps PostgreSQL's multi-process run for that strategy, and no SQLite one.
            lines.forEach(l -> assertTrue(l.contains("storage=[POSTGRESQL] strategy=[PG_ROW_LOCK]"), plan));
            if (PostgresTarget.configured().isPresent()) {
                assertEquals(0, status, plan);
                assertFalse(lines.isEmpty(), plan);
            } else {
                assertTrue(lines.isEmpty(), plan);
            }
            return;
        }
        assertEquals(0, status, plan);
        assertEquals(kept, !lines.isEmpty(), plan);
        if (narrowing.contains("--strategies")) {
            assertTrue(lines.get(0).contains("strategy=[CONDITIONAL_UPDATE]"), lines.get(0));
        }
        if (narrowing.contains("--storages")) {
            assertTrue(lines.get(0).contains("storage=[WAL_FULL]"), lines.get(0));
            assertFalse(lines.get(0).contains("WAL_NORMAL"), lines.get(0));
        }
    }

    /**
     * {@code --timeline} marks the multi-process steps that have open loops, and a run left
     * without any is refused by name before anything runs, not run without the timelines asked for.
     */
    @Test
    void aTimelineIsPlannedForTheOpenLoopsOfTheMultiProcessRunsAndRefusedWithoutThem() {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        int status = BenchMain.execute(new PrintStream(console, true, StandardCharsets.UTF_8),
                "run", "--profile", "quick", "--dry-run", "--storages", "WAL_FULL", "--timeline", "--output", results.toString());
        String plan = console.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, plan);
        List<String> lines = plan.lines().filter(l -> l.contains(PROCESSES)).toList();
        assertEquals(1, lines.size(), plan);
        assertTrue(lines.get(0).endsWith("loads=[0.5] timelines"), lines.get(0));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int refused = BenchMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "run", "--profile", "quick", "--dry-run", "--no-processes", "--timeline", "--output", results.toString());
        String error = err.toString(StandardCharsets.UTF_8);
        assertEquals(BenchMain.ERROR, refused, error);
        assertTrue(error.startsWith("error: --timeline records the open loops of the multi-process runs, and this run has none "
                + "(profile quick, --no-processes)"), error);
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing is planned");
    }

    /**
     * The iteration options reach only the steps that run with the profile's timing: a run whose
     * steps are all paired (the gate) refuses them by name before anything runs, and a run with
     * some of each says which steps keep their own.
     */
    @Test
    void iterationOptionsThatReachNoStepAreRefusedAndPairedStepsThatKeepTheirOwnAreNamed() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int refused = BenchMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "run", "--profile", "gate", "--dry-run", "--warmup-iterations", "96", "--iteration-ms", "300", "--output", results.toString());
        String error = err.toString(StandardCharsets.UTF_8);
        assertEquals(BenchMain.ERROR, refused, error);
        assertTrue(error.startsWith("error: --warmup-iterations, --iteration-ms set the iterations of the steps that run with the "
                + "profile's, and every step of this run is the paired benchmark, which keeps its own groups of slices and at least "
                + "6000 ms of warmup (profile gate)"), error);
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing is planned");

        for (List<String> extra : List.of(List.of("--iterations", "5"), List.<String>of())) {
            ByteArrayOutputStream planned = new ByteArrayOutputStream();
            ByteArrayOutputStream notes = new ByteArrayOutputStream();
            List<String> args = new ArrayList<>(List.of("run", "--profile", "quick", "--dry-run", "--storages", "WAL_FULL",
                    "--output", results.toString()));
            args.addAll(extra);
            int status = BenchMain.execute(new PrintStream(planned, true, StandardCharsets.UTF_8),
                    new PrintStream(notes, true, StandardCharsets.UTF_8), args.toArray(String[]::new));
            String note = notes.toString(StandardCharsets.UTF_8);
            assertEquals(0, status, note);
            assertEquals(!extra.isEmpty(), note.contains("note: --iterations leave the 1 paired step(s) of this run as they are"), note);
            assertTrue(planned.toString(StandardCharsets.UTF_8).contains("PairedClaimBenchmark"), "the paired step is still planned");
        }
    }
}
