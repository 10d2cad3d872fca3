package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The smoke of the generated SQL mutants, in the default build: the generator still mutates every
 * rule and effect, from the text it finds; one mutant of each kind is killed by the contract suite
 * on one strategy; and the matrix's verdict can fail, for a mutant that changes nothing and for a
 * list of equivalents gone stale. The full matrix is {@link GeneratedMutantMatrix}.
 */
class GeneratedMutantsTest {

    /** One strategy is enough to see that a mutant reaches the store; the full matrix runs them all. */
    private static final LockingStrategy SMOKE_STRATEGY = LockingStrategy.CONDITIONAL_UPDATE;

    /**
     * The smoke's part of the suite: {@link LeaseContractTest} without the tests that race threads
     * (claimMany, the draining workers, the races of two ways into one job) and without {@link LeaseStoreErrorsTest} (busy timeouts,
     * broken files). Those take most of a run's time and are about locking and failures, not about
     * the text of a rule; the smoke's six runs of the rest take a few seconds.
     */
    static SortedMap<String, SortedSet<String>> caughtBySingleThreadedContractTests(SqlMutant mutant) {
        return ContractSuiteRun.failedTests(ContractSuiteRun.run(
                Map.of(StoreUnderTest.SQL_MUTANT, mutant.id(), StoreUnderTest.STRATEGIES, SMOKE_STRATEGY.name()),
                List.of(LeaseContractTest.class),
                method -> !method.startsWith("claimMany") && !method.startsWith("workersDraining")
                        && !method.endsWith("NeverBothWin")));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(SqlFragment.class)
    void everyRuleAndEffectIsMutated(SqlFragment fragment) {
        Set<SqlMutant.Kind> kinds = GeneratedMutants.all().stream().filter(m -> m.fragment() == fragment)
                .map(SqlMutant::kind).collect(Collectors.toCollection(() -> EnumSet.noneOf(SqlMutant.Kind.class)));
        Set<SqlMutant.Kind> expected = switch (fragment.role()) {
            case RULE -> EnumSet.of(SqlMutant.Kind.COMPARISON_REPLACED, SqlMutant.Kind.CONJUNCT_DROPPED, SqlMutant.Kind.DONE_FLIPPED);
            case EFFECT -> EnumSet.of(SqlMutant.Kind.ASSIGNMENT_DROPPED);
        };
        assertTrue(kinds.containsAll(expected), fragment + " has mutants of the kinds " + kinds + ", expected at least " + expected);
    }

    @Test
    void theGeneratorMakesEveryKindOfChangeWithUniqueIdsAndNeverTheOriginal() {
        List<SqlMutant> all = GeneratedMutants.all();
        Set<SqlMutant.Kind> kinds = EnumSet.noneOf(SqlMutant.Kind.class);
        Set<String> ids = new HashSet<>();
        for (SqlMutant m : all) {
            kinds.add(m.kind());
            assertTrue(ids.add(m.id()), "two mutants with the id " + m.id());
            assertEquals(m.fragment().of(LeaseSql.CONTRACT), m.original(), m.id());
            assertFalse(m.mutated().equals(m.original()), m.id() + " changes nothing");
            assertEquals(m.mutated(), m.fragment().of(m.sql()), m.id() + ": its LeaseSql does not return the mutated fragment");
        }
        assertEquals(EnumSet.complementOf(EnumSet.of(SqlMutant.Kind.UNCHANGED)), kinds);
    }

    @Test
    void theMutantsOfARuleAreEachOneChangeOfItsText() {
        List<String> mutated = GeneratedMutants.of(SqlFragment.CLAIMABLE, "done = 0 AND until <= ?3").stream()
                .map(SqlMutant::mutated).toList();
        assertEquals(List.of(
                "done <> 0 AND until <= ?3", "done < 0 AND until <= ?3", "done <= 0 AND until <= ?3",
                "done > 0 AND until <= ?3", "done >= 0 AND until <= ?3", "until <= ?3", "done = 1 AND until <= ?3",
                "done = 0 AND until = ?3", "done = 0 AND until <> ?3", "done = 0 AND until < ?3",
                "done = 0 AND until > ?3", "done = 0 AND until >= ?3", "done = 0"), mutated);
    }

    @Test
    void theMutantsOfAnEffectAreEachOneChangeOfItsText() {
        List<String> ids = GeneratedMutants.of(SqlFragment.CLAIM_EFFECT, "owner = ?2, until = ?4, fence = fence + 1").stream()
                .map(SqlMutant::id).toList();
        assertEquals(List.of("claimEffect: drop owner = ?2", "claimEffect: drop until = ?4", "claimEffect: drop fence = fence + 1",
                "claimEffect: fence = fence + 0", "claimEffect: fence = fence + 2", "claimEffect: fence = fence - 1"), ids);
        assertEquals(List.of("done = 1", "result = ?5", "result = ?5, done = 0"),
                GeneratedMutants.of(SqlFragment.COMPLETE_EFFECT, "result = ?5, done = 1").stream().map(SqlMutant::mutated).toList());
    }

    /** The generator reads the fragments when it runs: a conjunct nobody listed is mutated too. */
    @Test
    void aConjunctAddedToARuleIsMutatedWithoutBeingListed() {
        LeaseSql withExtraConjunct = new LeaseSql() {
            @Override
            String renewable() {
                return super.renewable() + " AND fence > 0";
            }
        };
        Set<String> ids = GeneratedMutants.of(withExtraConjunct).stream().map(SqlMutant::id).collect(Collectors.toSet());
        assertTrue(ids.containsAll(List.of("renewable: fence >= 0", "renewable: fence = 0", "renewable: drop fence > 0")), ids.toString());
        assertFalse(GeneratedMutants.all().stream().anyMatch(m -> m.id().equals("renewable: drop fence > 0")));
    }

    @Test
    void everyListedEquivalentIsStillGenerated() {
        Set<String> ids = GeneratedMutants.all().stream().map(SqlMutant::id).collect(Collectors.toSet());
        Set<String> stale = new TreeSet<>(GeneratedMutants.EQUIVALENTS.keySet());
        stale.removeAll(ids);
        assertEquals(Set.of(), stale, "listed as equivalent, but no longer generated");
    }

    @Test
    void aMutantWhoseSqlDoesNotRunIsToldApart() {
        SqlMutant emptySet = GeneratedMutants.byId("renewEffect: drop until = ?5");
        assertTrue(emptySet.sqliteCompileError().orElseThrow().contains("syntax error"), emptySet.sqliteCompileError().toString());
        assertEquals(java.util.Optional.empty(), GeneratedMutants.byId("renewable: drop until > ?4").sqliteCompileError());
    }

    /**
     * One mutant of each kind, each of another method where it can be, none listed as equivalent
     * and each with SQL that runs (a syntax error would be caught by anything), on one strategy.
     */
    static List<SqlMutant> sample() {
        List<SqlMutant> picked = new ArrayList<>();
        Set<SqlFragment> used = EnumSet.noneOf(SqlFragment.class);
        for (SqlMutant.Kind kind : SqlMutant.Kind.values()) {
            List<SqlMutant> ofKind = GeneratedMutants.all().stream()
                    .filter(m -> m.kind() == kind && !GeneratedMutants.EQUIVALENTS.containsKey(m.id()))
                    .toList();
            ofKind.stream().filter(m -> !used.contains(m.fragment()) && m.sqliteCompileError().isEmpty()).findFirst()
                    .or(() -> ofKind.stream().filter(m -> m.sqliteCompileError().isEmpty()).findFirst())
                    .ifPresent(m -> {
                        picked.add(m);
                        used.add(m.fragment());
                    });
        }
        return picked;
    }

    @Test
    void theSampleHasOneMutantOfEachKind() {
        assertEquals(EnumSet.complementOf(EnumSet.of(SqlMutant.Kind.UNCHANGED)),
                sample().stream().map(SqlMutant::kind).collect(Collectors.toCollection(() -> EnumSet.noneOf(SqlMutant.Kind.class))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sample")
    void aMutantOfEachKindIsKilledByTheContractSuite(SqlMutant mutant) {
        SortedMap<String, SortedSet<String>> caughtBy = caughtBySingleThreadedContractTests(mutant);
        MutantVerdict verdict = MutantVerdict.of(mutant, caughtBy, GeneratedMutants.EQUIVALENTS);
        assertEquals(MutantVerdict.Outcome.KILLED, verdict.outcome(), verdict.complaint());
    }

    /**
     * The negative control of the whole chain: a "mutant" that changes nothing passes every test,
     * and the matrix's verdict on it is a survivor that fails the matrix. If the suite could not
     * tell the contract from itself, every mutant would look killed.
     */
    @Test
    void aMutantThatChangesNothingSurvivesAndFailsTheMatrix() {
        SqlMutant unchanged = GeneratedMutants.byId("renewable: unchanged");
        SortedMap<String, SortedSet<String>> caughtBy = caughtBySingleThreadedContractTests(unchanged);
        assertEquals(Map.of(), caughtBy, "tests that failed on the contract's own SQL");
        MutantVerdict verdict = MutantVerdict.of(unchanged, caughtBy, GeneratedMutants.EQUIVALENTS);
        assertEquals(MutantVerdict.Outcome.SURVIVED, verdict.outcome());
        assertFalse(verdict.passes());
    }

    @Test
    void aListedEquivalentThatIsKilledFailsTheMatrixAndOneThatSurvivesPasses() {
        SqlMutant listed = GeneratedMutants.byId("claimable: done <= 0");
        SortedMap<String, SortedSet<String>> caught = new TreeMap<>(Map.of("LeaseContractTest.someTest", new TreeSet<>(Set.of("IMMEDIATE"))));
        MutantVerdict killed = MutantVerdict.of(listed, caught, GeneratedMutants.EQUIVALENTS);
        assertEquals(MutantVerdict.Outcome.LISTED_EQUIVALENT_BUT_KILLED, killed.outcome());
        assertFalse(killed.passes());
        MutantVerdict survived = MutantVerdict.of(listed, new TreeMap<>(), GeneratedMutants.EQUIVALENTS);
        assertEquals(MutantVerdict.Outcome.EQUIVALENT, survived.outcome());
        assertTrue(survived.passes());
    }

    @Test
    void theReportReplacesItsOwnSectionAndKeepsTheOthers() {
        String document = "# Mutation testing\n\n## PIT\n\npit text\n\n" + GeneratedMutantMatrix.SECTION + "\n\nold\n\n## Later\n\nkept\n";
        String section = GeneratedMutantMatrix.SECTION + "\n\nnew\n\n";
        assertEquals("# Mutation testing\n\n## PIT\n\npit text\n\n" + section + "## Later\n\nkept\n",
                GeneratedMutantMatrix.replaceSection(document, section));
        assertEquals("# Mutation testing\n\n## PIT\n\nx\n\n" + section,
                GeneratedMutantMatrix.replaceSection("# Mutation testing\n\n## PIT\n\nx\n", section));
        String report = GeneratedMutantMatrix.section(List.of(MutantVerdict.of(GeneratedMutants.byId("claimable: done <= 0"),
                new TreeMap<>(), GeneratedMutants.EQUIVALENTS)), List.of(SMOKE_STRATEGY), Duration.ofSeconds(61), 6);
        assertTrue(report.contains("| `claimable: done <= 0` | claimable | `done = 0 AND until <= ?3` -> `done <= 0 AND until <= ?3` | equivalent: "),
                report);
        assertTrue(report.contains("generated: 1 / killed: 0 (0 of them with SQL that does not run) / equivalent: 1"), report);
    }
}
