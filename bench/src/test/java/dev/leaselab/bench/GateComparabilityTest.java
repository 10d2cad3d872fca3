package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
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

    /**
     * The second stage may only withdraw calls on rows measured again the same way: a confirmation
     * run of other settings (here another busy wait) is refused naming the setting, while one that
     * differs from the run it confirms only in its steps (it narrows them) is judged.
     */
    @Test
    void aConfirmationMeasuredWithOtherSettingsIsRefusedAndOneThatOnlyNarrowsTheStepsIsJudged() throws Exception {
        Path a = folder("a", "gate", "3.54.1", s -> s.put("busyWait", "JITTERED"));
        Path b = folder("b", "gate", "3.54.1", s -> s.put("busyWait", "JITTERED"));
        Path narrowed = folder("narrowed", "gate", "3.54.1", s -> s.put("busyWait", "JITTERED").put("steps", "one step"));
        Path otherWait = folder("other-wait", "gate", "3.54.1", s -> s.put("busyWait", "SQLITE_SLEEPS"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int refused = BenchMain.execute(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "compare", a.toString(), b.toString(), "--confirmation", otherWait.toString());
        String message = err.toString(StandardCharsets.UTF_8);
        assertEquals(BenchMain.ERROR, refused, message);
        assertTrue(message.contains("settings.busyWait") && message.contains(otherWait.toString()), message);

        err.reset();
        int judged = BenchMain.execute(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "compare", a.toString(), b.toString(), "--confirmation", narrowed.toString());
        assertEquals(0, judged, err.toString(StandardCharsets.UTF_8));
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    /**
     * Settings that older runs did not record count as what those runs did: SQLite's own busy
     * handler and synchronised paired iterations. So an old run compares with a new one measured
     * the old way, and is refused against one measured the new way, naming the setting.
     */
    @Test
    void settingsAnOlderRunDidNotRecordCountAsWhatItDid() throws Exception {
        JsonNode old = Json.read(folder("old", "gate", "3.54.1").resolve("environment.json"));
        JsonNode sameWay = Json.read(folder("same", "gate", "3.54.1",
                s -> s.put("busyWait", "SQLITE_SLEEPS").put("pairedSyncIterations", true)).resolve("environment.json"));
        JsonNode jittered = Json.read(folder("jittered", "gate", "3.54.1",
                s -> s.put("busyWait", "JITTERED").put("pairedSyncIterations", true)).resolve("environment.json"));
        JsonNode unsynchronised = Json.read(folder("unsynchronised", "gate", "3.54.1",
                s -> s.put("busyWait", "SQLITE_SLEEPS").put("pairedSyncIterations", false)).resolve("environment.json"));

        assertEquals(List.of(), Gate.differences(old, sameWay));
        List<String> busy = Gate.differences(old, jittered);
        assertEquals(1, busy.size(), busy.toString());
        assertTrue(busy.get(0).startsWith("settings.busyWait: \"SQLITE_SLEEPS\" in the baseline, \"JITTERED\" now"), busy.get(0));
        List<String> sync = Gate.differences(old, unsynchronised);
        assertEquals(1, sync.size(), sync.toString());
        assertTrue(sync.get(0).startsWith("settings.pairedSyncIterations: true in the baseline, false now"), sync.get(0));
    }

    /** A results folder with no rows and an environment that says how it was measured. */
    private Path folder(String name, String profile, String sqlite) throws Exception {
        return folder(name, profile, sqlite, settings -> { });
    }

    /** As {@link #folder(String, String, String)}, with more settings written by {@code more}. */
    private Path folder(String name, String profile, String sqlite, Consumer<ObjectNode> more) throws Exception {
        Path f = Files.createDirectories(dir.resolve(name));
        Files.writeString(f.resolve(BenchResults.JMH_JSON), "[]");
        ObjectNode env = Json.MAPPER.createObjectNode();
        env.put("sqliteVersion", sqlite);
        more.accept(env.putObject("settings").put("profile", profile).put("forks", 1));
        Files.writeString(f.resolve("environment.json"), Json.MAPPER.writeValueAsString(env));
        return f;
    }
}
