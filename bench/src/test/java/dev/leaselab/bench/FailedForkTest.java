package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fork that throws must cost that fork, not the run: the smoke profile's SQLite part (its
 * PostgreSQL part is left out, so this needs no server) runs with every store's
 * setup broken ({@link FailingSetup}), so the floor (plain JDBC, no store) still runs and both
 * claim forks fail. The run must keep the floor's result, name the two failed forks in the
 * console, {@code environment.json} and the report, and exit with an error. Resuming the run with
 * the store repaired must then run exactly the two failed forks and keep the floor's result.
 */
class FailedForkTest {

    @TempDir
    Path results;

    @Test
    void aFailingForkIsReportedAndTheRestOfTheRunIsKept() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code;
        System.setProperty(BenchDb.DECORATOR_PROPERTY, FailingSetup.class.getName());
        try {
            code = BenchMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
                    "run", "--profile", "smoke", "--storages", "WAL_NORMAL", "--benchmarks", "FloorBenchmark.update,ClaimBenchmark.hotJob", "--output", results.toString(), "--run-id", "broken");
        } finally {
            System.clearProperty(BenchDb.DECORATOR_PROPERTY);
        }
        String console = out.toString(StandardCharsets.UTF_8);
        assertEquals(BenchMain.ERROR, code, console);
        Path run = results.resolve("broken");

        List<BenchResults.Row> rows = BenchResults.load(run);
        assertEquals(1, rows.size(), "only the floor ran: " + rows);
        assertEquals(BenchmarkId.FLOOR, rows.get(0).benchmark());

        JsonNode failed = Json.read(run.resolve("environment.json")).path("failedForks");
        assertEquals(2, failed.size(), failed.toString());
        failed.forEach(f -> assertTrue(f.asText().startsWith(BenchmarkId.CLAIM_HOT.toString()), f.asText()));
        assertTrue(console.contains("FAILED fork " + BenchmarkId.CLAIM_HOT), console);
        assertTrue(console.contains("2 of 3 forks failed"), console);
        assertTrue(Files.readString(run.resolve("report.md")).contains("## Failed forks"));
        assertTrue(Files.readString(run.resolve("jmh.log")).contains(FailingSetup.MESSAGE), "the exception is logged");
        double floorScore = rows.get(0).score();

        // A dry run of the resumption names the two forks it would run and leaves the folder as it is.
        String environmentBefore = Files.readString(run.resolve("environment.json"));
        ByteArrayOutputStream plan = new ByteArrayOutputStream();
        int planned = BenchMain.execute(new PrintStream(plan, true, StandardCharsets.UTF_8),
                "run", "--profile", "smoke", "--storages", "WAL_NORMAL", "--benchmarks", "FloorBenchmark.update,ClaimBenchmark.hotJob", "--output", results.toString(), "--run-id", "broken",
                "--resume", "--dry-run");
        String planConsole = plan.toString(StandardCharsets.UTF_8);
        assertEquals(0, planned, planConsole);
        assertTrue(planConsole.contains("\n2 forks, estimated"), planConsole);
        assertEquals(environmentBefore, Files.readString(run.resolve("environment.json")));

        ByteArrayOutputStream again = new ByteArrayOutputStream();
        int resumed = BenchMain.execute(new PrintStream(again, true, StandardCharsets.UTF_8),
                "run", "--profile", "smoke", "--storages", "WAL_NORMAL", "--benchmarks", "FloorBenchmark.update,ClaimBenchmark.hotJob", "--output", results.toString(), "--run-id", "broken",
                "--resume");
        String resumeConsole = again.toString(StandardCharsets.UTF_8);
        assertEquals(0, resumed, resumeConsole);
        assertTrue(resumeConsole.contains("2 forks without a result yet"), resumeConsole);
        List<BenchResults.Row> all = BenchResults.load(run);
        assertEquals(3, all.size(), all.toString());
        assertEquals(floorScore, all.stream().filter(r -> r.benchmark() == BenchmarkId.FLOOR).findFirst().orElseThrow().score(),
                "the floor was not run again");
        all.forEach(r -> assertTrue(r.tally() != null && r.tally().won() > 0, r.key().label()));
        JsonNode env = Json.read(run.resolve("environment.json"));
        assertEquals(0, env.path("failedForks").size(), env.toString());
        assertEquals(1, env.path("resumed").size(), env.toString());
        assertEquals(2, env.path("resumed").get(0).path("forks").asInt());
        assertTrue(Files.readString(run.resolve("report.md")).contains("## ClaimBenchmark.hotJob"));
    }

    @Test
    void resumeNeedsARunFolderOfTheSameProfile() {
        int code = BenchMain.execute(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                "run", "--profile", "smoke", "--output", results.toString(), "--run-id", "nothing-here", "--resume");
        assertEquals(BenchMain.ERROR, code);
    }
}
