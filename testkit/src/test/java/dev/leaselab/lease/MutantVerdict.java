package dev.leaselab.lease;

import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * What the contract suite did to one generated mutant, and whether the matrix accepts it: a mutant
 * must be killed unless it is listed as equivalent, and a listed one must survive, so the list of
 * equivalents cannot keep a mutant that the suite has since learned to kill.
 *
 * @param mutant the mutant
 * @param caughtBy the contract tests that failed, each with the cases (strategies) that failed
 * @param compileError why SQLite refuses the mutant's statements, if it does
 * @param equivalentReason why the mutant is listed as equivalent, if it is
 */
record MutantVerdict(SqlMutant mutant, SortedMap<String, SortedSet<String>> caughtBy, Optional<String> compileError,
        Optional<String> equivalentReason) {

    /** The matrix's verdicts: the first two pass, the last two fail it. */
    enum Outcome {
        KILLED,
        EQUIVALENT,
        /** Survived, and not listed as equivalent: the suite has a hole. */
        SURVIVED,
        /** Listed as equivalent, but a test failed: the list is wrong or out of date. */
        LISTED_EQUIVALENT_BUT_KILLED
    }

    /** The verdict on a mutant that the suite treated as {@code caughtBy} says, given the list of equivalents. */
    static MutantVerdict of(SqlMutant mutant, SortedMap<String, SortedSet<String>> caughtBy, Map<String, String> equivalents) {
        return new MutantVerdict(mutant, caughtBy, mutant.sqliteCompileError(), Optional.ofNullable(equivalents.get(mutant.id())));
    }

    Outcome outcome() {
        boolean killed = !caughtBy.isEmpty();
        if (equivalentReason.isPresent()) {
            return killed ? Outcome.LISTED_EQUIVALENT_BUT_KILLED : Outcome.EQUIVALENT;
        }
        return killed ? Outcome.KILLED : Outcome.SURVIVED;
    }

    boolean passes() {
        return outcome() == Outcome.KILLED || outcome() == Outcome.EQUIVALENT;
    }

    /** One line for a failed assertion: what is wrong and what to do. */
    String complaint() {
        return switch (outcome()) {
            case KILLED, EQUIVALENT -> mutant.id() + ": " + outcome();
            case SURVIVED -> mutant.id() + " survived the contract suite (" + mutant.original() + " -> " + mutant.mutated()
                    + "): add a contract test that kills it, or list it in GeneratedMutants.EQUIVALENTS with the reason";
            case LISTED_EQUIVALENT_BUT_KILLED -> mutant.id() + " is listed as equivalent (" + equivalentReason.orElseThrow()
                    + ") but the suite kills it: " + caughtBy.keySet() + "; take it off GeneratedMutants.EQUIVALENTS";
        };
    }
}
