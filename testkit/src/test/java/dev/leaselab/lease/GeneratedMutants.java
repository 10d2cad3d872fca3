package dev.leaselab.lease;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Generates the mutants of the contract's SQL from the fragments of {@link LeaseSql} as they are
 * written when it runs, so a conjunct or an assignment added tomorrow is mutated without anyone
 * listing it. For each rule ({@code WHERE} fragment, a conjunction of comparisons):
 * <ul>
 *   <li>every comparison operator replaced by each of the other five ({@code =, <>, <, <=, >, >=});
 *   <li>every conjunct dropped, one at a time;
 *   <li>every {@code done = 0} flipped to {@code done = 1} (its {@code done <> 0} is one of the
 *       replaced operators).
 * </ul>
 * For each effect ({@code SET} fragment, a list of assignments): every assignment dropped, one at a
 * time; every {@code + 1} changed to {@code + 0}, {@code + 2} and {@code - 1}; every {@code done = 1}
 * flipped to {@code done = 0}.
 *
 * <p>The fragments are small and the parsing is textual: conjuncts are split at {@code AND} and
 * assignments at commas, outside parentheses and quotes. A mutant equal to the original or to an
 * earlier mutant of the same method is left out.
 *
 * <p>{@link #EQUIVALENTS} lists the mutants that no test can kill, each with the reason; the
 * matrix ({@link GeneratedMutantMatrix}) fails if any other mutant survives the contract suite, and
 * if a listed one is in fact killed.
 */
final class GeneratedMutants {

    /**
     * The mutants that behave exactly like the contract on every row it allows, by id, with the
     * reason. Only a mutant that survives and cannot be told apart belongs here; one that survives
     * because no test looks is a hole in the suite, and gets a contract test instead.
     */
    static final Map<String, String> EQUIVALENTS = equivalents();

    private static Map<String, String> equivalents() {
        String doneIsZeroOrOne = "done is only ever 0 or 1 (0 by the schema's default, 1 written by complete, never "
                + "anything else), so done <= 0 holds exactly when done = 0";
        Map<String, String> equivalents = new LinkedHashMap<>();
        for (SqlFragment rule : List.of(SqlFragment.CLAIMABLE, SqlFragment.NEXT_CLAIMABLE, SqlFragment.RENEWABLE,
                SqlFragment.COMPLETABLE, SqlFragment.RELEASABLE)) {
            equivalents.put(rule.methodName() + ": done <= 0", doneIsZeroOrOne);
        }
        return Map.copyOf(equivalents);
    }

    private static final List<String> OPERATORS = List.of("=", "<>", "<", "<=", ">", ">=");
    /** Longest first, so that {@code <=} is not read as {@code <} followed by {@code =}. */
    private static final Pattern OPERATOR = Pattern.compile("<=|>=|<>|!=|=|<|>");
    private static final Pattern AND = Pattern.compile("\\s+AND\\s+", Pattern.CASE_INSENSITIVE);
    private static final Pattern COMMA = Pattern.compile("\\s*,\\s*");
    private static final Pattern PLUS_ONE = Pattern.compile("\\+\\s*1(?![0-9.])");
    private static final Pattern DONE_LITERAL = Pattern.compile("\\bdone\\s*=\\s*([01])(?![0-9.])", Pattern.CASE_INSENSITIVE);

    private GeneratedMutants() {}

    /** Every mutant of the contract's own SQL. */
    static List<SqlMutant> all() {
        return of(LeaseSql.CONTRACT);
    }

    /** Every mutant of every rule and effect of {@code sql}, in {@link SqlFragment} order. */
    static List<SqlMutant> of(LeaseSql sql) {
        List<SqlMutant> mutants = new ArrayList<>();
        for (SqlFragment fragment : SqlFragment.values()) {
            mutants.addAll(of(fragment, fragment.of(sql)));
        }
        return mutants;
    }

    /**
     * The mutant with this id, or the {@linkplain SqlMutant#unchanged unchanged} one of a method
     * ({@code "renewable: unchanged"}), which the matrix's negative control runs.
     *
     * @throws IllegalArgumentException if no mutant has this id
     */
    static SqlMutant byId(String id) {
        return Stream.concat(all().stream(), Arrays.stream(SqlFragment.values()).map(SqlMutant::unchanged))
                .filter(m -> m.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no generated mutant has the id '" + id + "'"));
    }

    /** The mutants of one method whose fragment reads {@code original}. */
    static List<SqlMutant> of(SqlFragment fragment, String original) {
        Builder out = new Builder(fragment, original);
        switch (fragment.role()) {
            case RULE -> rule(out, original);
            case EFFECT -> effect(out, original);
        }
        return out.mutants;
    }

    private static void rule(Builder out, String original) {
        List<Span> conjuncts = split(original, AND);
        for (Span conjunct : conjuncts) {
            for (Span operator : find(conjunct.text(), OPERATOR)) {
                String current = operator.text().equals("!=") ? "<>" : operator.text();
                for (String replacement : OPERATORS) {
                    if (!replacement.equals(current)) {
                        String piece = operator.replaceIn(conjunct.text(), replacement);
                        out.add(SqlMutant.Kind.COMPARISON_REPLACED, piece, conjunct.replaceIn(original, piece));
                    }
                }
            }
            if (conjuncts.size() > 1) {
                out.add(SqlMutant.Kind.CONJUNCT_DROPPED, "drop " + conjunct.text(), join(conjuncts, conjunct, " AND "));
            }
            flipDone(out, original, conjunct, "0");
        }
    }

    private static void effect(Builder out, String original) {
        List<Span> assignments = split(original, COMMA);
        for (Span assignment : assignments) {
            // A fragment of one assignment, dropped, leaves "SET  WHERE": SQL that does not run,
            // which the matrix reports as such.
            out.add(SqlMutant.Kind.ASSIGNMENT_DROPPED, "drop " + assignment.text(), join(assignments, assignment, ", "));
            for (Span plusOne : find(assignment.text(), PLUS_ONE)) {
                for (String replacement : List.of("+ 0", "+ 2", "- 1")) {
                    String piece = plusOne.replaceIn(assignment.text(), replacement);
                    out.add(SqlMutant.Kind.INCREMENT_CHANGED, piece, assignment.replaceIn(original, piece));
                }
            }
            flipDone(out, original, assignment, "1");
        }
    }

    /** {@code done = 0} to {@code done = 1} in a rule, {@code done = 1} to {@code done = 0} in an effect. */
    private static void flipDone(Builder out, String original, Span part, String from) {
        Matcher done = DONE_LITERAL.matcher(part.text());
        while (done.find()) {
            if (done.group(1).equals(from)) {
                String flipped = part.text().substring(0, done.start(1)) + (from.equals("0") ? "1" : "0")
                        + part.text().substring(done.end(1));
                out.add(SqlMutant.Kind.DONE_FLIPPED, flipped, part.replaceIn(original, flipped));
            }
        }
    }

    /** A piece of a text and where it starts. */
    private record Span(String text, int start) {
        int end() {
            return start + text.length();
        }

        /** {@code whole} with this span replaced: the span's offsets are into {@code whole}. */
        String replaceIn(String whole, String replacement) {
            return whole.substring(0, start) + replacement + whole.substring(end());
        }
    }

    /** The parts of {@code text} between the separators that stand outside parentheses and quotes. */
    private static List<Span> split(String text, Pattern separator) {
        List<Span> parts = new ArrayList<>();
        int from = 0;
        for (Span match : find(text, separator)) {
            parts.add(new Span(text.substring(from, match.start()), from));
            from = match.end();
        }
        parts.add(new Span(text.substring(from), from));
        return parts;
    }

    /** The matches of {@code pattern} in {@code text} outside parentheses and quoted strings. */
    private static List<Span> find(String text, Pattern pattern) {
        List<Span> found = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            if (isTopLevel(text, m.start())) {
                found.add(new Span(m.group(), m.start()));
            }
        }
        return found;
    }

    private static boolean isTopLevel(String text, int position) {
        int depth = 0;
        boolean quoted = false;
        for (int i = 0; i < position; i++) {
            char c = text.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            } else if (!quoted && c == '(') {
                depth++;
            } else if (!quoted && c == ')') {
                depth--;
            }
        }
        return depth == 0 && !quoted;
    }

    private static String join(List<Span> parts, Span without, String separator) {
        return String.join(separator, parts.stream().filter(p -> p != without).map(Span::text).toList());
    }

    /** Collects one method's mutants, leaving out any that changes nothing or repeats another. */
    private static final class Builder {
        private final SqlFragment fragment;
        private final String original;
        private final List<SqlMutant> mutants = new ArrayList<>();

        Builder(SqlFragment fragment, String original) {
            this.fragment = fragment;
            this.original = original;
        }

        void add(SqlMutant.Kind kind, String piece, String mutated) {
            if (mutated.equals(original) || mutants.stream().anyMatch(m -> m.mutated().equals(mutated))) {
                return;
            }
            mutants.add(new SqlMutant(fragment.methodName() + ": " + piece, fragment, kind, original, mutated));
        }
    }
}
