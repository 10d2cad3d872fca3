package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code compare} refuses two runs that were not measured alike, says what differs, and compares them with {@code --force}. */
class GateComparabilityTest {

    @TempDir
    Path dir;

    @Test
    void runsOfAnotherProfileOrSqliteVersionAreRefusedNamingTheDifferenceAndForceComparesThem() throws Exception {
        Path a = folder("a", "gate", "3.54.1");
        Path b = folder("b", "quick", "3.50.0");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = BenchMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "compare", a.toString(), b.toString());
        String message = err.toString(StandardCharsets.UTF_8);
        assertEquals(BenchMain.ERROR, code, message);
        assertTrue(message.contains("settings.profile") && message.contains("\"gate\"") && message.contains("\"quick\""), message);
        assertTrue(message.contains("sqliteVersion"), message);
        assertTrue(message.contains("--force"), message);

        err.reset();
        int forced = BenchMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "compare", a.toString(), b.toString(), "--force");
        assertEquals(0, forced, err.toString(StandardCharsets.UTF_8));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("compared anyway"), err.toString(StandardCharsets.UTF_8));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("family-wise false-alarm rate of 5%"), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void runsMeasuredAlikeAreCompared() throws Exception {
        Path a = folder("a", "gate", "3.54.1");
        Path b = folder("b", "gate", "3.54.1");
        assertEquals(0, BenchMain.execute(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                "compare", a.toString(), b.toString()));
    }

    /** A results folder with no rows and an environment that says how it was measured. */
    private Path folder(String name, String profile, String sqlite) throws Exception {
        Path f = Files.createDirectories(dir.resolve(name));
        Files.writeString(f.resolve(BenchResults.JMH_JSON), "[]");
        ObjectNode env = Json.MAPPER.createObjectNode();
        env.put("sqliteVersion", sqlite);
        env.putObject("settings").put("profile", profile).put("forks", 1);
        Files.writeString(f.resolve("environment.json"), Json.MAPPER.writeValueAsString(env));
        return f;
    }
}
