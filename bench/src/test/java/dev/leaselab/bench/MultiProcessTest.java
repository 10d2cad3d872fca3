package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MultiProcessMain} on a short run: two worker JVMs of two threads each, the floor and two
 * strategies. Every process must have done work (so they really ran side by side on the file),
 * and the run itself checks that the stored fence equals the wins all processes counted.
 */
class MultiProcessTest {

    @TempDir
    Path dir;

    @Test
    void twoProcessesShareOneFileAndTheirWinsAddUpToTheStoredFence() {
        Path json = dir.resolve("mp.json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MultiProcessMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "--storage", "WAL_NORMAL", "--strategies", "IMMEDIATE,SERIALIZED", "--splits", "2x2",
                "--warmup", "200ms", "--duration", "600ms", "--busy-timeout", "5s", "--json", json.toString());
        assertEquals(0, code, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
        // Every worker reported the 5 s (the command checks it), and this JVM got its own setting back.
        assertEquals(5000, dev.leaselab.bench.Json.read(json).path("busyTimeoutMillis").asLong());
        assertEquals(null, System.getProperty(Storage.BUSY_TIMEOUT_PROPERTY));
        JsonNode runs = Json.read(json).path("runs");
        assertEquals(3, runs.size(), runs.toString());
        for (JsonNode run : runs) {
            JsonNode r = run.path("result");
            assertEquals(2, r.path("perProcessWon").size(), r.toString());
            for (JsonNode processWon : r.path("perProcessWon")) {
                assertTrue(processWon.asLong() > 0, "a process won nothing: " + r);
            }
            assertTrue(r.path("jain").asDouble() > 0 && r.path("jain").asDouble() <= 1.0 + 1e-9, r.toString());
            assertEquals(0, r.path("failed").asLong(), r.toString());
        }
        assertTrue(runs.get(1).path("xFloor").asDouble() > 0, runs.get(1).toString());
    }

    @Test
    void aSplitThatIsNotProcessesTimesThreadsIsRefusedNamingTheOption() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MultiProcessMain.execute(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "--splits", "2by4");
        assertEquals(BenchMain.ERROR, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--splits"), err.toString(StandardCharsets.UTF_8));
    }
}
