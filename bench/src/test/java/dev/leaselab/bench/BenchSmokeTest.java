package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole pipeline once, tiny: the {@code smoke} profile runs through JMH's Runner API in forked
 * JVMs (one strategy, one storage, two threads, 100 ms iterations), and the results folder must
 * hold the JMH JSON, the tally, the environment, the report and the charts, with sane counters.
 * It checks that things are produced and counted, never how fast anything was.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BenchSmokeTest {

    @TempDir
    static Path results;
    private Path run;
    private String console;

    @BeforeAll
    void runSmokeProfile() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = BenchMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
                "run", "--profile", "smoke", "--output", results.toString(), "--run-id", "smoke");
        console = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, "the smoke run failed:\n" + console);
        run = results.resolve("smoke");
    }

    @Test
    void theResultsFolderHoldsJsonTallyEnvironmentReportAndCharts() throws IOException {
        for (String name : List.of(BenchResults.JMH_JSON, BenchResults.TALLY, "environment.json", "report.md", "jmh.log")) {
            assertTrue(Files.size(run.resolve(name)) > 0, name + " is missing or empty");
        }
        try (Stream<Path> charts = Files.list(run.resolve("charts"))) {
            List<String> names = charts.map(p -> p.getFileName().toString()).toList();
            assertTrue(names.stream().anyMatch(n -> n.startsWith("throughput-")), "charts: " + names);
            assertTrue(names.stream().anyMatch(n -> n.startsWith("latency-")), "charts: " + names);
            assertTrue(names.stream().anyMatch(n -> n.startsWith("floor-ratio-")), "charts: " + names);
            assertTrue(names.stream().allMatch(n -> n.endsWith(".png")), "charts: " + names);
        }
        String report = Files.readString(run.resolve("report.md"));
        assertTrue(report.contains("## ClaimBenchmark.hotJob"), report);
        assertTrue(report.contains("## Latency (sample mode)"), report);
        assertTrue(console.contains("[3/3"), "progress lines are printed:\n" + console);
    }

    @Test
    void theEnvironmentNamesSqliteJvmAndProfile() {
        JsonNode env = Json.read(run.resolve("environment.json"));
        assertFalse(env.path("sqliteVersion").asText().isBlank());
        assertTrue(env.path("sqliteVersion").asText().matches("\\d+\\.\\d+\\.\\d+.*"), env.toString());
        assertEquals(System.getProperty("java.version"), env.path("javaVersion").asText());
        assertTrue(env.path("availableProcessors").asInt() >= 1);
        assertEquals("smoke", env.path("settings").path("profile").asText());
    }

    @Test
    void everyRowHasSamplesAndSaneCounters() {
        List<BenchResults.Row> rows = BenchResults.load(run);
        assertEquals(3, rows.size(), "floor, claim throughput, claim latency");
        for (BenchResults.Row r : rows) {
            assertEquals(3, r.samples().length, r.key());
            assertNotNull(r.tally(), "no tally for " + r.key());
            assertEquals(3, r.tally().iterations(), r.key());
            assertTrue(r.tally().won() > 0, r.key() + " won nothing");
            assertEquals(0, r.tally().refused(), r.key());
            // Two threads on WAL with a 1 s busy timeout: a failure here is a real defect.
            assertEquals(0, r.tally().failed(), r.key());
            assertTrue(r.tally().jain() > 0.5 && r.tally().jain() <= 1.0 + 1e-9, r.key() + " jain " + r.tally().jain());
            assertTrue(r.tally().wallSeconds() > 0, r.key());
        }
        BenchResults.Row sample = rows.stream().filter(r -> r.mode().equals("sample")).findFirst().orElseThrow();
        double p50 = Report.pct(sample, 50);
        double max = Report.pct(sample, 100);
        assertTrue(p50 > 0 && p50 <= Report.pct(sample, 99.9) && Report.pct(sample, 99.9) <= max, sample.percentiles().toString());
    }

    @Test
    void theGateFindsNoRegressionWhenARunIsComparedWithItself() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = BenchMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8), "compare", run.toString(), run.toString());
        String md = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, md);
        assertTrue(md.contains("**geomean**"), md);
        assertFalse(md.contains("**regressed**"), md);
    }

    @Test
    void theGateRejectsAMissingRunWithAClearError() {
        int code = BenchMain.execute(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                "compare", results.resolve("nope").toString(), run.toString());
        assertEquals(BenchMain.ERROR, code);
    }
}
