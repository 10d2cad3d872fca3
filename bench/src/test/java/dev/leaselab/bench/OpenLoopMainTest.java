package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line on short SQLite runs: what it prints and writes, and the errors it gives. */
class OpenLoopMainTest {

    private record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = OpenLoopMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Runs the command, which must succeed, and prints containing each of {@code expected}. */
    private static Run succeeds(List<String> expected, String... args) {
        Run r = run(args);
        assertEquals(0, r.code(), r.err());
        expected.forEach(text -> assertTrue(r.out().contains(text), r.out()));
        return r;
    }

    @Test
    void aGivenRatePrintsOneLinePerRateAndWritesTheHistogramToJson(@TempDir Path dir) {
        Path json = dir.resolve("open.json");
        Run r = succeeds(List.of("rate 300/s: p50 "), "--strategy", "IMMEDIATE", "--storage", "WAL_NORMAL", "--threads", "2",
                "--rate", "300", "--warmup", "0.1s", "--duration", "400ms", "--json", json.toString());
        assertTrue(r.out().contains("p99.9"), r.out());
        JsonNode result = Json.read(json).get("runs").get(0).get("result");
        assertEquals(120, result.get("sent").asLong());
        assertEquals(120, OpenLoop.decode(result.get("histogram").asText()).getTotalCount());
        assertEquals("IMMEDIATE", Json.read(json).get("strategy").asText());
    }

    @Test
    void withoutARateItMeasuresTheClosedLoopFirstAndRunsEachLoadOfIt(@TempDir Path dir) {
        Path json = dir.resolve("loads.json");
        succeeds(List.of("closed loop: ", "load 0.20, rate ", "load 0.30, rate "), "--strategy", "CONDITIONAL_UPDATE",
                "--threads", "2", "--calibrate", "300ms", "--load", "0.2,0.3", "--warmup", "100ms", "--duration", "300ms",
                "--json", json.toString());
        JsonNode report = Json.read(json);
        double max = report.get("closedLoop").get("requestsPerSecond").asDouble();
        assertEquals(0.2 * max, report.get("runs").get(0).get("result").get("rateAsked").asDouble(), 1e-6 * max);
        assertEquals(0.3 * max, report.get("runs").get(1).get("result").get("rateAsked").asDouble(), 1e-6 * max);
    }

    @Test
    void theFloorRunsThroughPlainConnections() {
        Run r = run("--work", "floor", "--threads", "2", "--rate", "200", "--warmup", "0s", "--duration", "300ms");

        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("floor UPDATE, plain JDBC on WAL_NORMAL"), r.out());
        assertTrue(r.out().contains("sent 60: "), r.out());
    }

    @Test
    void aPostgresqlStrategyIsAnErrorThatSaysSqliteOnly() {
        Run r = run("--strategy", "PG_ROW_LOCK", "--rate", "100", "--duration", "1s");
        assertEquals(OpenLoopMain.ERROR, r.code());
        assertTrue(r.err().contains("SQLite only"), r.err());
        Run storage = run("--storage", "POSTGRESQL", "--rate", "100", "--duration", "1s");
        assertEquals(OpenLoopMain.ERROR, storage.code());
        assertTrue(storage.err().contains("SQLite only"), storage.err());
    }

    @Test
    void rateAndLoadTogetherOrABadDurationAreUsageErrors() {
        Run both = run("--rate", "100", "--load", "0.5");
        assertEquals(OpenLoopMain.ERROR, both.code());
        assertTrue(both.err().contains("--rate and --load exclude each other"), both.err());
        Run duration = run("--rate", "100", "--duration", "5x");
        assertEquals(OpenLoopMain.ERROR, duration.code());
        assertTrue(duration.err().contains("'5x' is not a duration"), duration.err());
        Run help = run("--help");
        assertEquals(0, help.code());
        assertTrue(help.out().contains("SQLite only"), help.out());
    }

    @Test
    void durationsAcceptShortAndIsoForms() {
        OpenLoopMain.DurationConverter c = new OpenLoopMain.DurationConverter();
        assertEquals(Duration.ofMillis(500), c.convert("500ms"));
        assertEquals(Duration.ofMillis(300), c.convert("0.3s"));
        assertEquals(Duration.ofMinutes(2), c.convert("2m"));
        assertEquals(Duration.ofSeconds(1), c.convert("PT1S"));
    }
}
