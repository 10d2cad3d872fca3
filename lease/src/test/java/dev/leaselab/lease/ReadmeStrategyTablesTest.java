package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.leaselab.lease.LockingStrategy.Engine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Keeps the two strategy tables of the repository's README.md in step with {@link LockingStrategy}:
 * the table of the section "Locking strategies" must list {@code LockingStrategy.of(SQLITE)}, the
 * one of the section "PostgreSQL" {@code LockingStrategy.of(POSTGRESQL)}, each exactly once and in
 * declaration order. A strategy table is the table of its section whose header row starts with the
 * cell {@code strategy}; every body row of it must start with a backticked identifier. The strategy
 * names come from the enum only, never from this class.
 *
 * <p>Also checks that results/README.md, which lists the SQL each strategy runs, names every
 * strategy at least once as a code span.
 *
 * <p>Surefire runs this in the module directory {@code lease/}, so the repository root is {@code ..}.
 */
class ReadmeStrategyTablesTest {

    private static final Path README = Path.of("..", "README.md");
    private static final Path RESULTS_README = Path.of("..", "results", "README.md");

    /** The first cell of the header row that marks a strategy table. */
    static final String HEADER_CELL = "strategy";

    /** The title of the README section that holds the strategy table of {@code engine}. */
    static String sectionOf(Engine engine) {
        return switch (engine) {
            case SQLITE -> "Locking strategies";
            case POSTGRESQL -> "PostgreSQL";
        };
    }

    // ---- the real files ----

    @ParameterizedTest(name = "{0}")
    @EnumSource(Engine.class)
    void theReadmeTableOfEachEngineListsItsStrategiesInDeclarationOrder(Engine engine) throws IOException {
        String readme = read(README);
        List<String> problems = check(readme, sectionOf(engine), LockingStrategy.of(engine));
        assertTrue(problems.isEmpty(), () -> "README.md, section \"" + sectionOf(engine)
                + "\", against LockingStrategy.of(" + engine + "):\n  " + String.join("\n  ", problems));
    }

    @Test
    void theResultsReadmeNamesEveryStrategy() throws IOException {
        List<LockingStrategy> missing = unmentioned(read(RESULTS_README), List.of(LockingStrategy.values()));
        assertEquals(List.of(), missing, "results/README.md (the SQL per strategy) never names these as `NAME`");
    }

    // ---- negative controls: the checks on texts that are wrong on purpose ----

    @Test
    void aSyntheticReadmeInStepWithTheEnumHasNoProblems() {
        String text = syntheticReadme();
        for (Engine engine : Engine.values()) {
            assertEquals(List.of(), check(text, sectionOf(engine), LockingStrategy.of(engine)), engine.toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Engine.class)
    void aRemovedRowIsReportedAsMissing(Engine engine) {
        for (LockingStrategy removed : LockingStrategy.of(engine)) {
            String text = withoutLine(syntheticReadme(), row(removed.name()));
            List<String> problems = check(text, sectionOf(engine), LockingStrategy.of(engine));
            assertEquals(List.of("missing: " + removed.name()), problems, "without the row of " + removed);
            for (Engine other : otherEngines(engine)) {
                assertEquals(List.of(), check(text, sectionOf(other), LockingStrategy.of(other)),
                        "the table of " + other + " is not affected");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Engine.class)
    void anUnknownRowIsReportedAsExtra(Engine engine) {
        String unknown = unknownName();
        String last = row(last(LockingStrategy.of(engine)).name());
        String text = syntheticReadme().replace(last, last + "\n" + row(unknown));
        List<String> problems = check(text, sectionOf(engine), LockingStrategy.of(engine));
        assertEquals(List.of("extra: " + unknown + " (not a LockingStrategy)"), problems);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Engine.class)
    void aStrategyOfAnotherEngineIsReportedAsExtra(Engine engine) {
        for (Engine other : otherEngines(engine)) {
            LockingStrategy stranger = LockingStrategy.of(other).get(0);
            String last = row(last(LockingStrategy.of(engine)).name());
            String text = syntheticReadme().replace(last, last + "\n" + row(stranger.name()));
            List<String> problems = check(text, sectionOf(engine), LockingStrategy.of(engine));
            assertEquals(List.of("extra: " + stranger.name() + " (a strategy of " + other + ")"), problems);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Engine.class)
    void aRowListedTwiceIsReported(Engine engine) {
        String first = row(LockingStrategy.of(engine).get(0).name());
        String text = syntheticReadme().replace(first, first + "\n" + first);
        List<String> problems = check(text, sectionOf(engine), LockingStrategy.of(engine));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("listed 2 times: " + LockingStrategy.of(engine).get(0).name()), problems.toString());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Engine.class)
    void rowsOutOfDeclarationOrderAreReported(Engine engine) {
        List<LockingStrategy> strategies = LockingStrategy.of(engine);
        if (strategies.size() < 2) {
            return; // one row has only one order
        }
        String a = row(strategies.get(0).name());
        String b = row(strategies.get(1).name());
        String text = syntheticReadme().replace(a + "\n" + b, b + "\n" + a);
        List<String> problems = check(text, sectionOf(engine), LockingStrategy.of(engine));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("order: "), problems.toString());
    }

    @Test
    void aRowWhoseFirstCellIsNoBacktickedNameIsReported() {
        Engine engine = Engine.SQLITE;
        String name = LockingStrategy.of(engine).get(0).name();
        String text = syntheticReadme().replace(row(name), "| " + name + " | no backticks |");
        List<String> problems = check(text, sectionOf(engine), LockingStrategy.of(engine));
        assertTrue(problems.stream().anyMatch(p -> p.contains("not a backticked strategy name: \"" + name + "\"")),
                problems.toString());
        assertTrue(problems.contains("missing: " + name), problems.toString());
    }

    @Test
    void aMissingSectionOrTableIsReportedByName() {
        String text = syntheticReadme();
        String title = sectionOf(Engine.POSTGRESQL);
        assertEquals(List.of("no heading \"" + title + "\""),
                check(text.replace("### " + title + "\n", "### Elsewhere\n"), title, LockingStrategy.of(Engine.POSTGRESQL)));
        assertEquals(List.of("no table whose header starts with \"" + HEADER_CELL + "\" under the heading \"" + title + "\""),
                check(text.replace("| " + HEADER_CELL + " | how (" + Engine.POSTGRESQL + ") |", "| name | how |"),
                        title, LockingStrategy.of(Engine.POSTGRESQL)));
    }

    /** The same controls on the real README: the parser must see the real rows, not only synthetic ones. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Engine.class)
    void theRealReadmeWithARowRemovedOrAddedIsReported(Engine engine) throws IOException {
        String readme = read(README);
        LockingStrategy removed = last(LockingStrategy.of(engine));
        List<String> lines = new ArrayList<>(Arrays.asList(readme.split("\n", -1)));
        int index = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (firstCell(lines.get(i)).equals("`" + removed.name() + "`")) {
                index = i;
            }
        }
        assertTrue(index >= 0, "README.md has no row of " + removed);
        // Compared with the problems of the README as it is, so that a README that is already out of
        // step fails the test above, not this one too.
        List<String> before = check(readme, sectionOf(engine), LockingStrategy.of(engine));
        String removedRow = lines.remove(index);
        assertAdds(before, "missing: " + removed.name(),
                check(String.join("\n", lines), sectionOf(engine), LockingStrategy.of(engine)));

        String unknown = unknownName();
        lines.add(index, removedRow);
        lines.add(index + 1, row(unknown));
        assertAdds(before, "extra: " + unknown + " (not a LockingStrategy)",
                check(String.join("\n", lines), sectionOf(engine), LockingStrategy.of(engine)));
    }

    private static void assertAdds(List<String> before, String problem, List<String> after) {
        List<String> expected = new ArrayList<>(before);
        expected.removeIf(p -> p.startsWith("order: ")); // reported only when nothing else is wrong
        expected.add(problem);
        assertEquals(expected.stream().sorted().toList(), after.stream().sorted().toList(),
                "the README with one row changed must report exactly one more problem");
    }

    @Test
    void aStrategyThatResultsReadmeNeverNamesIsReported() throws IOException {
        String results = read(RESULTS_README);
        for (LockingStrategy strategy : LockingStrategy.values()) {
            String without = results.replace("`" + strategy.name() + "`", "`(removed)`");
            assertEquals(List.of(strategy), unmentioned(without, List.of(LockingStrategy.values())),
                    "results/README.md with every `" + strategy + "` removed");
        }
    }

    // ---- the checks ----

    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})[ \\t]+(.*?)(?:[ \\t]+#+)?[ \\t]*$");
    private static final Pattern FENCE = Pattern.compile("^ {0,3}(```|~~~)");
    private static final Pattern SEPARATOR = Pattern.compile("^\\|?\\s*:?-+:?\\s*(\\|\\s*:?-+:?\\s*)*\\|?\\s*$");
    private static final Pattern NAME_CELL = Pattern.compile("^`([A-Za-z_][A-Za-z0-9_]*)`$");

    /** A body row of a table: its line number (from 1) and its first cell, trimmed. */
    record Row(int line, String firstCell) {}

    /**
     * Compares the strategy table under the heading {@code title} with {@code expected}. Returns
     * the problems, each naming what is wrong; empty when the table lists exactly
     * {@code expected}, each once, in that order.
     */
    static List<String> check(String markdown, String title, List<LockingStrategy> expected) {
        List<String> problems = new ArrayList<>();
        List<Row> rows = strategyRows(markdown, title, problems);
        if (rows == null) {
            return problems;
        }
        Map<String, List<Integer>> found = new LinkedHashMap<>();
        for (Row row : rows) {
            Matcher name = NAME_CELL.matcher(row.firstCell());
            if (name.matches()) {
                found.computeIfAbsent(name.group(1), k -> new ArrayList<>()).add(row.line());
            } else {
                problems.add("line " + row.line() + ": first cell is not a backticked strategy name: \""
                        + row.firstCell() + "\"");
            }
        }
        List<String> names = expected.stream().map(Enum::name).toList();
        for (String name : names) {
            if (!found.containsKey(name)) {
                problems.add("missing: " + name);
            }
        }
        for (Map.Entry<String, List<Integer>> entry : found.entrySet()) {
            String name = entry.getKey();
            if (!names.contains(name)) {
                problems.add("extra: " + name + " (" + describe(name) + ")");
            }
            if (entry.getValue().size() > 1) {
                problems.add("listed " + entry.getValue().size() + " times: " + name + " (lines " + entry.getValue() + ")");
            }
        }
        List<String> listed = new ArrayList<>(found.keySet());
        if (problems.isEmpty() && !listed.equals(names)) {
            problems.add("order: the table lists " + listed + ", the enum declares " + names);
        }
        return problems;
    }

    private static String describe(String name) {
        for (LockingStrategy strategy : LockingStrategy.values()) {
            if (strategy.name().equals(name)) {
                return "a strategy of " + strategy.engine();
            }
        }
        return "not a LockingStrategy";
    }

    /**
     * The body rows of the one table, under the one heading titled {@code title} (up to the next
     * heading of the same or a higher level), whose header row starts with {@link #HEADER_CELL}.
     * Null, with the reason in {@code problems}, when there is no such heading or table or more
     * than one. Lines in fenced code blocks are neither headings nor rows.
     */
    static List<Row> strategyRows(String markdown, String title, List<String> problems) {
        String[] lines = markdown.split("\\R", -1);
        boolean[] code = new boolean[lines.length];
        boolean fenced = false;
        for (int i = 0; i < lines.length; i++) {
            boolean fence = FENCE.matcher(lines[i]).find();
            code[i] = fenced || fence;
            if (fence) {
                fenced = !fenced;
            }
        }
        List<int[]> sections = new ArrayList<>(); // {first line after the heading, end (exclusive)}
        for (int i = 0; i < lines.length; i++) {
            Matcher heading = code[i] ? null : HEADING.matcher(lines[i]);
            if (heading == null || !heading.matches() || !heading.group(2).equals(title)) {
                continue;
            }
            int level = heading.group(1).length();
            int end = i + 1;
            while (end < lines.length) {
                Matcher next = code[end] ? null : HEADING.matcher(lines[end]);
                if (next != null && next.matches() && next.group(1).length() <= level) {
                    break;
                }
                end++;
            }
            sections.add(new int[] {i + 1, end});
        }
        if (sections.size() != 1) {
            problems.add(sections.isEmpty() ? "no heading \"" + title + "\""
                    : sections.size() + " headings \"" + title + "\": the table's section is ambiguous");
            return null;
        }
        int start = sections.get(0)[0];
        int end = sections.get(0)[1];
        List<List<Row>> tables = new ArrayList<>();
        for (int i = start; i < end; i++) {
            boolean header = !code[i] && isRow(lines[i]) && firstCell(lines[i]).equals(HEADER_CELL)
                    && (i == start || !isRow(lines[i - 1]))
                    && i + 1 < end && SEPARATOR.matcher(lines[i + 1].trim()).matches();
            if (!header) {
                continue;
            }
            List<Row> rows = new ArrayList<>();
            int j = i + 2;
            for (; j < end && !code[j] && isRow(lines[j]); j++) {
                rows.add(new Row(j + 1, firstCell(lines[j])));
            }
            tables.add(rows);
            i = j - 1;
        }
        if (tables.size() != 1) {
            problems.add((tables.isEmpty() ? "no table" : tables.size() + " tables") + " whose header starts with \""
                    + HEADER_CELL + "\" under the heading \"" + title + "\"");
            return null;
        }
        return tables.get(0);
    }

    private static boolean isRow(String line) {
        return line.trim().startsWith("|");
    }

    /** The first cell of a table row, trimmed; empty for a line that is not a row. */
    static String firstCell(String line) {
        String trimmed = line.trim();
        if (!trimmed.startsWith("|")) {
            return "";
        }
        String[] cells = trimmed.substring(1).split("(?<!\\\\)\\|", -1);
        return cells[0].trim();
    }

    /** The strategies that {@code text} never names as a code span {@code `NAME`}, in the order given. */
    static List<LockingStrategy> unmentioned(String text, List<LockingStrategy> strategies) {
        return strategies.stream().filter(s -> !text.contains("`" + s.name() + "`")).toList();
    }

    // ---- helpers ----

    private static String read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            fail(file + " is missing (looked for " + file.toAbsolutePath().normalize()
                    + "): this test runs in the module directory lease/ and reads the repository root one level up");
        }
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    private static String row(String name) {
        return "| `" + name + "` | how " + name + " makes a write atomic |";
    }

    /** A README in step with the enum, with distractions: another table headed "strategy", code fences. */
    static String syntheticReadme() {
        StringBuilder text = new StringBuilder("# synthetic\n\nIntro.\n\n## How it works\n\n")
                .append("| " + HEADER_CELL + " | somewhere else |\n|---|---|\n")
                .append(row(unknownName())).append("\n\n");
        for (Engine engine : Engine.values()) {
            text.append("### ").append(sectionOf(engine)).append("\n\nSome prose.\n\n```java\n")
                    .append("# not a heading\n| `").append(unknownName()).append("` | not a row |\n```\n\n")
                    .append("| " + HEADER_CELL + " | how (" + engine + ") |\n|---|---|\n");
            for (LockingStrategy strategy : LockingStrategy.of(engine)) {
                text.append(row(strategy.name())).append("\n");
            }
            text.append("\nAfter the table.\n\n");
        }
        return text.append("## The tests\n\n| " + HEADER_CELL + " | after the sections |\n|---|---|\n")
                .append(row(unknownName())).append("\n").toString();
    }

    private static String withoutLine(String text, String line) {
        assertTrue(text.contains(line + "\n"), "no line " + line);
        return text.replace(line + "\n", "");
    }

    /** A name that no strategy has. */
    private static String unknownName() {
        String name = "NOT_A_STRATEGY";
        while (describe(name).startsWith("a strategy")) {
            name = name + "_";
        }
        return name;
    }

    private static List<Engine> otherEngines(Engine engine) {
        return Arrays.stream(Engine.values()).filter(e -> e != engine).collect(Collectors.toList());
    }

    private static <T> T last(List<T> list) {
        assertFalse(list.isEmpty(), "an engine without strategies");
        return list.get(list.size() - 1);
    }
}
