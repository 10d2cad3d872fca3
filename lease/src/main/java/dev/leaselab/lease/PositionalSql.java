package dev.leaselab.lease;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A statement of {@link LeaseSql} rewritten for drivers that only know plain {@code ?} placeholders.
 *
 * <p>{@link LeaseSql} numbers its parameters ({@code ?1} to {@code ?5}) so that a fragment can use
 * any parameter of its operation, any number of times, in any order. SQLite reads those numbers
 * itself; PgJDBC does not. This is the one place that translates: every {@code ?N} becomes
 * {@code ?}, and {@link #arguments()} says which argument of the operation goes into each of the
 * new placeholders, in order. Text inside quotes is left alone.
 *
 * @param sql the statement with plain placeholders
 * @param arguments for the i-th placeholder, the zero-based index of the operation's argument
 */
record PositionalSql(String sql, int[] arguments) {

    /** Statements are few and fixed, so each is translated once per JVM. */
    private static final Map<String, PositionalSql> CACHE = new ConcurrentHashMap<>();

    /**
     * Translates a statement with numbered parameters.
     *
     * @throws IllegalArgumentException for a bare {@code ?}: it would bind whatever argument
     *     happens to come next, which is exactly what the numbering is there to prevent
     */
    static PositionalSql of(String numbered) {
        return CACHE.computeIfAbsent(numbered, PositionalSql::translate);
    }

    /** The translation itself, uncached: {@link #of} caches it, and tests call it directly. */
    static PositionalSql translate(String numbered) {
        StringBuilder out = new StringBuilder(numbered.length());
        int[] arguments = new int[8];
        int count = 0;
        char quote = 0;
        for (int i = 0; i < numbered.length(); i++) {
            char c = numbered.charAt(i);
            if (quote != 0) {
                // Inside '...' or "...": a doubled quote is an escaped one and simply stays inside.
                if (c == quote) {
                    quote = 0;
                }
                out.append(c);
            } else if (c == '\'' || c == '"') {
                quote = c;
                out.append(c);
            } else if (c == '?') {
                int end = i + 1;
                while (end < numbered.length() && Character.isDigit(numbered.charAt(end))) {
                    end++;
                }
                if (end == i + 1) {
                    throw new IllegalArgumentException("unnumbered parameter at " + i + " in: " + numbered);
                }
                int number = Integer.parseInt(numbered.substring(i + 1, end));
                if (number < 1) {
                    throw new IllegalArgumentException("parameter ?" + number + " at " + i + " in: " + numbered);
                }
                if (count == arguments.length) {
                    arguments = Arrays.copyOf(arguments, count * 2);
                }
                arguments[count++] = number - 1;
                out.append('?');
                i = end - 1;
            } else {
                out.append(c);
            }
        }
        return new PositionalSql(out.toString(), Arrays.copyOf(arguments, count));
    }
}
