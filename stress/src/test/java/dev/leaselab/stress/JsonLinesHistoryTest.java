package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * History files as a killed worker leaves them: a torn last line is forgiven, any other line that
 * is not an operation makes the file unreadable, since a verdict on the rest would be a verdict on
 * a partial history. Before that rule, {@link JsonLinesHistory#read} skipped every unreadable line.
 */
class JsonLinesHistoryTest {

    /** The start of a line that a kill -9 cut short: no closing brace, no newline. */
    private static final String TORN = "{\"process\":\"w\",\"seq\":3,\"ki";

    private static final Op CLAIM = new Op("w", 1, Op.Kind.CLAIM, "j", "w", 0, 5, 10, null, Op.Outcome.UNKNOWN, 100,
            Long.MAX_VALUE);
    private static final Op CLAIMED = CLAIM.answered(Op.Outcome.OK, 1, 200);
    private static final Op IN_FLIGHT = new Op("w", 2, Op.Kind.COMPLETE, "j", "w", 1, 6, 0, "r", Op.Outcome.UNKNOWN,
            300, Long.MAX_VALUE);

    @TempDir
    Path dir;

    /** A worker's history of three lines: the claim invoked and answered, then a complete in flight. */
    private Path history() {
        Path file = dir.resolve("w.jsonl");
        try (JsonLinesHistory history = JsonLinesHistory.create(file)) {
            history.invoked(CLAIM);
            history.answered(CLAIMED);
            history.invoked(IN_FLIGHT);
        }
        return file;
    }

    private static void append(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }

    @Test
    void tornLastLineIsSkippedAndTheOperationsBeforeItAreRead() throws Exception {
        Path file = history();
        append(file, TORN);

        assertEquals(List.of(CLAIMED, IN_FLIGHT), JsonLinesHistory.read(file));
    }

    @Test
    void answersReplaceInvocationsAndAnOperationWithoutAnswerReadsAsUnknown() throws Exception {
        assertEquals(List.of(CLAIMED, IN_FLIGHT), JsonLinesHistory.read(history()));
        assertTrue(JsonLinesHistory.read(dir.resolve("never-written.jsonl")).isEmpty());
        Path empty = Files.createFile(dir.resolve("empty.jsonl"));
        assertTrue(JsonLinesHistory.read(empty).isEmpty());
    }

    /** The control for the old reader, which skipped these lines and judged the rest. */
    @ParameterizedTest
    @ValueSource(strings = {"garbage", "", "{}", "{\"process\":\"w\",\"seq\":3}", TORN})
    void anUnreadableLineBeforeTheLastIsAnErrorNamingTheFileAndTheLine(String damaged) throws Exception {
        Path file = history();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        Files.write(file, List.of(lines.get(0), lines.get(1), damaged, lines.get(2)), StandardCharsets.UTF_8);

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> JsonLinesHistory.read(file));

        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("line 3:"), e.getMessage());
    }

    @Test
    void anUnreadableLastLineWithItsNewlineIsAnErrorSinceATornLineHasNone() throws Exception {
        Path file = history();
        append(file, "garbage\n");

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> JsonLinesHistory.read(file));

        assertTrue(e.getMessage().contains(file + " is damaged at line 4:"), e.getMessage());
    }

    /** A file written before enqueues and state reads were recorded reads as it did; the new kinds round-trip. */
    @Test
    void oldHistoriesReadBackAndEnqueuesAndStateReadsRoundTrip() throws Exception {
        Path old = dir.resolve("old.jsonl");
        Files.writeString(old, "{\"process\":\"w\",\"seq\":1,\"kind\":\"CLAIM\",\"job\":\"j\",\"owner\":\"w\","
                + "\"fence\":1,\"now\":5.0,\"ttl\":10.0,\"result\":null,\"outcome\":\"OK\",\"start\":100,\"end\":200}\n",
                StandardCharsets.UTF_8);
        assertEquals(List.of(CLAIMED), JsonLinesHistory.read(old));

        Op enqueue = new Op("w", 1, Op.Kind.ENQUEUE, "j", null, 0, 0, 0, null, Op.Outcome.REJECTED, 1, 2);
        Op state = new Op("w", 2, Op.Kind.STATE, Op.NEVER_ENQUEUED + "w-1", null, 0, 0, 0, null, Op.Outcome.UNKNOWN,
                3, Long.MAX_VALUE).answered(Op.Outcome.OK, 7, 4);
        Path file = dir.resolve("new.jsonl");
        try (JsonLinesHistory history = JsonLinesHistory.create(file)) {
            history.answered(enqueue);
            history.answered(state);
        }
        assertEquals(List.of(enqueue, state), JsonLinesHistory.read(file));
        assertEquals(7, JsonLinesHistory.read(file).get(1).fence());
    }
}
