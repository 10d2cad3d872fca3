package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JMH's forks inherit the environment and the runner JVM's command-line arguments, but not a
 * system property that the runner's JVM set itself (as a test, or a program that embeds the runner,
 * does): a server named that way must still reach them, so the runner passes the property on. One
 * PostgreSQL floor fork, from a runner JVM whose environment has no {@code LEASELAB_POSTGRES_URL}
 * and whose command line has no {@code -Dleaselab.postgres.url}.
 */
class PostgresPropertyTest {

    @TempDir
    Path results;

    @Test
    void aServerNamedOnlyByThePropertyIsMeasuredInTheForks() throws Exception {
        PostgresTests.useTestServerUnlessOneIsGiven();
        Optional<PostgresTarget> server = PostgresTarget.configured();
        PostgresTests.require(server.isPresent(), "no server: neither -D" + PostgresTarget.URL_PROPERTY + " nor "
                + PostgresTarget.URL_ENVIRONMENT + " is set");
        ProcessBuilder pb = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Djava.awt.headless=true", "-Djmh.ignoreLock=true",
                Launcher.class.getName(), server.get().url(), "run", "--profile", "smoke", "--benchmarks", BenchmarkId.FLOOR.toString(),
                "--storages", "POSTGRESQL", "--output", results.toString(), "--run-id", "property"));
        pb.environment().remove(PostgresTarget.URL_ENVIRONMENT);
        Path log = results.resolve("console.txt");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(3, TimeUnit.MINUTES), "the run did not finish");
        assertEquals(0, p.exitValue(), Files.readString(log));

        Path run = results.resolve("property");
        JsonNode pg = Json.read(run.resolve("environment.json")).path("postgresql");
        assertEquals("-D" + PostgresTarget.URL_PROPERTY, pg.path("source").asText(), pg.toString());
        List<BenchResults.Row> rows = BenchResults.load(run);
        assertEquals(1, rows.size(), rows.toString());
        assertEquals(Storage.POSTGRESQL, rows.get(0).storage());
        assertTrue(rows.get(0).tally().won() > 0, rows.get(0).key().label());
    }

    /** Sets the property in this JVM, as an embedding program would, then runs {@link BenchMain}. */
    public static final class Launcher {
        public static void main(String[] args) {
            System.setProperty(PostgresTarget.URL_PROPERTY, args[0]);
            BenchMain.main(java.util.Arrays.copyOfRange(args, 1, args.length));
        }
    }
}
