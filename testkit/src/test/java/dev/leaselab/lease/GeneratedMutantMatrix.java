package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The full matrix of generated SQL mutants: the contract suite ({@link ContractSuiteRun}) runs
 * against every mutant of {@link GeneratedMutants} on every SQLite strategy, and each mutant must
 * be killed or be listed in {@link GeneratedMutants#EQUIVALENTS}, whose mutants must survive (a
 * listed one that a test fails runs a second time: the tests that time threads can fail by chance
 * on a busy machine, a real kill happens again).
 * It writes the section {@code ## Generated SQL mutants} of {@code results/mutation.md} (and the
 * whole matrix, with every catching test, to {@code testkit/target/generated-mutants.md}).
 *
 * <p>Not part of {@code mvn verify}: its name matches none of surefire's patterns, because it runs
 * the whole suite once per mutant (over a hundred times; see the report for how long it took).
 * {@link GeneratedMutantsTest} is the smoke that the default build runs. Run it with
 *
 * <pre>{@code mvn -B -pl testkit -am verify -Dtest=GeneratedMutantMatrix -Dsurefire.failIfNoSpecifiedTests=false}</pre>
 *
 * <p>{@code -Dleaselab.mutants.strategies=IMMEDIATE,PG_ROW_LOCK,...} runs other strategies instead,
 * PostgreSQL ones included (under {@code ./with-postgres.sh}, or with PostgreSQL's binaries
 * installed); {@code -Dleaselab.mutants.only=regex} runs only the mutants whose id matches, and
 * then leaves {@code results/mutation.md} alone.
 */
@Execution(ExecutionMode.CONCURRENT)
class GeneratedMutantMatrix {

    static final String COMMAND = "mvn -B -pl testkit -am verify -Dtest=GeneratedMutantMatrix -Dsurefire.failIfNoSpecifiedTests=false";
    static final String STRATEGIES_PROPERTY = "leaselab.mutants.strategies";
    static final String SECTION = "## Generated SQL mutants";

    /** A regular expression: only the mutants whose id it finds run, and results/mutation.md is left alone. */
    static final String ONLY_PROPERTY = "leaselab.mutants.only";

    private static final List<SqlMutant> MUTANTS = GeneratedMutants.all().stream()
            .filter(m -> System.getProperty(ONLY_PROPERTY) == null || Pattern.compile(System.getProperty(ONLY_PROPERTY)).matcher(m.id()).find())
            .toList();
    private static final Map<String, MutantVerdict> VERDICTS = new ConcurrentHashMap<>();
    /** The first run of a listed equivalent that a test failed in, and that survived its second run. */
    private static final Map<String, SortedMap<String, SortedSet<String>>> FIRST_RUNS = new ConcurrentHashMap<>();
    private static Instant started;

    static List<SqlMutant> mutants() {
        return MUTANTS;
    }

    private static List<LockingStrategy> strategies() {
        String names = System.getProperty(STRATEGIES_PROPERTY);
        return names == null
                ? LockingStrategy.of(LockingStrategy.Engine.SQLITE)
                : Arrays.stream(names.split(",")).map(String::strip).map(LockingStrategy::valueOf).toList();
    }

    @BeforeAll
    static void startTheClock() {
        started = Instant.now();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mutants")
    void theContractSuiteKillsTheMutantUnlessItIsAListedEquivalent(SqlMutant mutant) {
        Instant start = Instant.now();
        SortedMap<String, SortedSet<String>> caught = caughtBy(mutant, strategies());
        MutantVerdict verdict = MutantVerdict.of(mutant, caught, GeneratedMutants.EQUIVALENTS);
        if (verdict.outcome() == MutantVerdict.Outcome.LISTED_EQUIVALENT_BUT_KILLED) {
            // A test that times threads can fail by chance on a busy machine (the drain did once,
            // on IMMEDIATE, for claimable: done <= 0); a real kill happens again, so run it twice.
            SortedMap<String, SortedSet<String>> again = caughtBy(mutant, strategies());
            if (again.isEmpty()) {
                FIRST_RUNS.put(mutant.id(), caught);
            }
            verdict = MutantVerdict.of(mutant, again, GeneratedMutants.EQUIVALENTS);
        }
        VERDICTS.put(mutant.id(), verdict);
        // A line per mutant as it ends, and the matrix so far, so that a long run shows how far it
        // has got and a run cut short leaves what it found.
        System.out.printf("generated mutant %d of %d: %s: %s (%d s)%n", VERDICTS.size(), MUTANTS.size(), mutant.id(),
                verdict.outcome(), Duration.between(start, Instant.now()).toSeconds());
        writeTheMatrixSoFar();
        assertTrue(verdict.passes(), verdict.complaint());
    }

    /**
     * The contract tests that fail with the mutant on the strategies, each with its failed cases. A
     * test that runs past {@value #TEST_TIMEOUT} fails as timed out, on a thread of its own, so a
     * mutant that sends a test into an endless loop is killed by the timeout instead of stalling the
     * matrix.
     */
    static SortedMap<String, SortedSet<String>> caughtBy(SqlMutant mutant, List<LockingStrategy> strategies) {
        return ContractSuiteRun.failedTests(ContractSuiteRun.run(Map.of(
                StoreUnderTest.SQL_MUTANT, mutant.id(),
                StoreUnderTest.STRATEGIES, strategies.stream().map(Enum::name).collect(Collectors.joining(",")),
                "junit.jupiter.execution.timeout.testable.method.default", TEST_TIMEOUT,
                "junit.jupiter.execution.timeout.thread.mode.default", "SEPARATE_THREAD"),
                ContractSuiteRun.CONTRACT_SUITE, ContractSuiteRun.ALL_BUT_THE_OVERLAP_TEST));
    }

    static final String TEST_TIMEOUT = "120 s";

    private static synchronized void writeTheMatrixSoFar() {
        Path target = Path.of("target");
        if (Files.isDirectory(target)) {
            List<MutantVerdict> verdicts = MUTANTS.stream().map(m -> VERDICTS.get(m.id())).filter(v -> v != null).toList();
            String section = section(verdicts, strategies(), Duration.between(started, Instant.now()), Integer.MAX_VALUE);
            try {
                Files.writeString(target.resolve("generated-mutants.md"), "# Mutation testing\n\n" + section);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @AfterAll
    static void writeTheReport() throws IOException {
        Duration took = Duration.between(started, Instant.now());
        List<MutantVerdict> verdicts = MUTANTS.stream().map(m -> VERDICTS.get(m.id())).filter(v -> v != null).toList();
        String section = section(verdicts, strategies(), took, 6);
        System.out.println(section);
        writeTheMatrixSoFar();
        Path results = Path.of("..", "results");
        if (Files.isDirectory(results) && System.getProperty(ONLY_PROPERTY) == null && verdicts.size() == MUTANTS.size()) {
            Path report = results.resolve("mutation.md");
            String old = Files.exists(report) ? Files.readString(report) : "# Mutation testing\n\n";
            Files.writeString(report, replaceSection(old, section));
        }
    }

    /** {@code document} with its {@value #SECTION} section (up to the next {@code ## }) replaced, or added at the end. */
    static String replaceSection(String document, String section) {
        int start = document.indexOf(SECTION + "\n");
        if (start < 0) {
            return document + (document.endsWith("\n\n") ? "" : document.endsWith("\n") ? "\n" : "\n\n") + section;
        }
        int next = document.indexOf("\n## ", start + SECTION.length());
        return document.substring(0, start) + section + (next < 0 ? "" : document.substring(next + 1));
    }

    /** The report: how it was run, the counts, and one row per mutant. */
    static String section(List<MutantVerdict> verdicts, List<LockingStrategy> strategies, Duration took, int testsPerRow) {
        Map<MutantVerdict.Outcome, Long> counts = new EnumMap<>(MutantVerdict.Outcome.class);
        for (MutantVerdict.Outcome outcome : MutantVerdict.Outcome.values()) {
            counts.put(outcome, verdicts.stream().filter(v -> v.outcome() == outcome).count());
        }
        long notRunning = verdicts.stream().filter(v -> v.compileError().isPresent()).count();
        StringBuilder out = new StringBuilder(SECTION).append("\n\n")
                .append("The contract suite (`LeaseContractTest`, `LeaseStoreErrorsTest`, without `").append(ContractSuiteRun.OVERLAP_TEST).append("`")
                .append(", which times claimMany's threads and no SQL can change) against every mutant that\n")
                .append("`GeneratedMutants` generates from `LeaseSql`'s rules and effects as they read when it runs\n")
                .append("(comparison operators replaced, conjuncts and assignments dropped, `+ 1` changed, `done` flipped).\n")
                .append("A mutant must be killed, or be listed in `GeneratedMutants.EQUIVALENTS` with its reason (and then survive;\n")
                .append("a listed one that a test fails is run a second time, since a real kill happens again).\n\n")
                .append("- command: `").append(COMMAND).append("`\n")
                .append("- run: ").append(DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(Instant.now().atOffset(ZoneOffset.UTC).withNano(0)))
                .append(" UTC, commit ").append(commit()).append(", strategies ").append(strategies).append("\n")
                .append("- took: ").append(took.toMinutes()).append(" min ").append(took.toSecondsPart())
                .append(" s, ").append(Runtime.getRuntime().availableProcessors()).append(" cores, three mutants at a time\n")
                .append("- generated: ").append(verdicts.size())
                .append(" / killed: ").append(counts.get(MutantVerdict.Outcome.KILLED))
                .append(" (").append(notRunning).append(" of them with SQL that does not run)")
                .append(" / equivalent: ").append(counts.get(MutantVerdict.Outcome.EQUIVALENT))
                .append(" / survived, not listed: ").append(counts.get(MutantVerdict.Outcome.SURVIVED))
                .append(" / listed as equivalent but killed: ").append(counts.get(MutantVerdict.Outcome.LISTED_EQUIVALENT_BUT_KILLED))
                .append("\n\n")
                .append("| mutant | method | original -> mutated | killed by |\n|---|---|---|---|\n");
        for (MutantVerdict v : verdicts) {
            SqlMutant m = v.mutant();
            out.append("| `").append(m.id()).append("` | ").append(m.fragment().methodName()).append(" | `")
                    .append(m.original()).append("` -> `").append(m.mutated()).append("` | ")
                    .append(killedBy(v, strategies, testsPerRow)).append(" |\n");
        }
        return out.toString();
    }

    private static String killedBy(MutantVerdict v, List<LockingStrategy> strategies, int testsPerRow) {
        List<String> parts = new ArrayList<>();
        switch (v.outcome()) {
            case EQUIVALENT -> {
                parts.add("equivalent: " + v.equivalentReason().orElseThrow());
                SortedMap<String, SortedSet<String>> first = FIRST_RUNS.get(v.mutant().id());
                if (first != null) {
                    parts.add("(its first run failed " + first.entrySet().stream()
                            .map(e -> e.getKey() + " on " + casesOf(e.getValue(), strategies)).collect(Collectors.joining(", "))
                            + "; its second run passed every test)");
                }
            }
            case SURVIVED -> parts.add("**SURVIVED**");
            case LISTED_EQUIVALENT_BUT_KILLED -> parts.add("**listed as equivalent, but killed**");
            case KILLED -> { }
        }
        v.compileError().ifPresent(error -> parts.add("SQL does not run (SQLite: " + error.replace("|", "\\|") + ")"));
        List<String> tests = new ArrayList<>();
        v.caughtBy().forEach((test, cases) -> tests.add(test + " (" + casesOf(cases, strategies) + ")"));
        if (tests.size() > testsPerRow) {
            int more = tests.size() - testsPerRow;
            tests.subList(testsPerRow, tests.size()).clear();
            tests.add("and " + more + " more tests");
        }
        parts.addAll(tests);
        return String.join("<br>", parts);
    }

    /** The strategies a test failed on: "all" when it is all of them, else their names. */
    private static String casesOf(SortedSet<String> cases, List<LockingStrategy> strategies) {
        SortedMap<String, Boolean> hit = new TreeMap<>();
        for (LockingStrategy s : strategies) {
            // By whole words: PG_CONDITIONAL_UPDATE contains CONDITIONAL_UPDATE.
            hit.put(s.name(), cases.stream().anyMatch(c -> Arrays.asList(c.split("[^A-Za-z0-9_]+")).contains(s.name())));
        }
        if (!hit.containsValue(false)) {
            return "all " + strategies.size();
        }
        List<String> on = hit.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
        return on.isEmpty() ? String.join(", ", cases) : String.join(", ", on);
    }

    private static String commit() {
        try {
            Process git = new ProcessBuilder("git", "describe", "--always", "--dirty").directory(Path.of("..").toFile())
                    .redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return git.waitFor() == 0 ? out : "unknown (" + out + ")";
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown (interrupted)";
        }
    }
}
