package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run without a PostgreSQL server measures SQLite and says, loudly and in its records, that
 * PostgreSQL was not measured; a server that is named but does not answer stops the run before
 * any fork. Neither needs a server.
 */
class NoPostgresTest {

    @TempDir
    Path results;

    /**
     * In a JVM of its own, whose environment has no {@code LEASELAB_POSTGRES_URL} (this test JVM may
     * well have one): the smoke profile's floors, so one SQLite fork runs and one PostgreSQL fork is dropped.
     */
    @Test
    void withoutAServerThePostgresStepsAreDroppedWithABannerAndTheRecordsSaySo() throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Djava.awt.headless=true",
                // a benchmark running elsewhere on the machine holds JMH's lock
                "-Djmh.ignoreLock=true",
                BenchMain.class.getName(), "run", "--profile", "smoke", "--benchmarks", BenchmarkId.FLOOR.toString(),
                "--output", results.toString(), "--run-id", "no-pg"));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove(PostgresTarget.URL_ENVIRONMENT);
        Path stdout = results.resolve("stdout.txt");
        Path stderr = results.resolve("stderr.txt");
        pb.redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(3, TimeUnit.MINUTES), "the run did not finish");
        String out = Files.readString(stdout);
        String err = Files.readString(stderr);
        assertEquals(0, p.exitValue(), out + err);
        assertTrue(err.contains("!! PostgreSQL NOT measured: no server"), err);
        assertTrue(err.contains("./with-postgres.sh") && err.contains("LEASELAB_POSTGRES_URL"), err);
        assertTrue(out.contains("1 forks"), out);

        Path run = results.resolve("no-pg");
        JsonNode pg = Json.read(run.resolve("environment.json")).path("postgresql");
        assertFalse(pg.path("measured").asBoolean(true), pg.toString());
        assertTrue(pg.path("reason").asText().startsWith("no server"), pg.toString());
        assertEquals(1, pg.path("droppedForks").asInt(), pg.toString());
        List<BenchResults.Row> rows = BenchResults.load(run);
        assertEquals(1, rows.size(), rows.toString());
        assertEquals(Storage.WAL_NORMAL, rows.get(0).storage());
        assertTrue(Files.readString(run.resolve("report.md")).contains("**PostgreSQL NOT measured**: no server"));
    }

    @Test
    void aServerThatDoesNotAnswerIsAnErrorBeforeAnyForkRuns() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String before = System.getProperty(PostgresTarget.URL_PROPERTY);
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        System.setProperty(PostgresTarget.URL_PROPERTY, "jdbc:postgresql://127.0.0.1:1/postgres?user=nobody&password=secret");
        int code;
        try {
            code = BenchMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8),
                    "run", "--profile", "smoke", "--output", results.toString(), "--run-id", "unreachable");
        } finally {
            if (before == null) {
                System.clearProperty(PostgresTarget.URL_PROPERTY);
            } else {
                System.setProperty(PostgresTarget.URL_PROPERTY, before);
            }
        }
        String message = err.toString(StandardCharsets.UTF_8);
        assertEquals(BenchMain.ERROR, code, message);
        assertTrue(message.contains("PostgreSQL at jdbc:postgresql://127.0.0.1:1/postgres?user=nobody&password=*** "
                + "(from -Dleaselab.postgres.url) does not answer"), message);
        assertFalse(message.contains("secret"), message);
        assertFalse(Files.exists(results.resolve("unreachable")), "nothing may run, not even the SQLite forks");
    }
}
