package dev.leaselab.lease;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The SQL of the lease contract, in one place: the schema, and for each operation the rule that
 * allows it (a {@code WHERE} fragment) and the effect it has (a {@code SET} fragment).
 *
 * <p>Every strategy builds its statements from these fragments, so a rule is written once: the
 * transactional strategies read the row with the rule and then write the effect, the
 * compare-and-set strategy writes the effect with the rule in the same statement. Test code
 * overrides single methods to build the wrong variants of the kill matrix.
 *
 * <p>Parameters are numbered, fixed per operation, and a fragment may use any of them:
 * <ul>
 *   <li>claim: {@code ?1} id, {@code ?2} owner, {@code ?3} now, {@code ?4} new until
 *   <li>renew: {@code ?1} id, {@code ?2} owner, {@code ?3} fence, {@code ?4} now, {@code ?5} new until
 *   <li>complete: {@code ?1} id, {@code ?2} owner, {@code ?3} fence, {@code ?4} now, {@code ?5} result
 *   <li>release: {@code ?1} id, {@code ?2} owner, {@code ?3} fence
 * </ul>
 */
class LeaseSql {

    static final LeaseSql CONTRACT = new LeaseSql();

    private static final String SCHEMA = loadSchema();

    String createTable() {
        return SCHEMA;
    }

    /** Inserts a fresh job and leaves an existing one alone. */
    String enqueue() {
        return "INSERT INTO jobs (id) VALUES (?1) ON CONFLICT (id) DO NOTHING";
    }

    String selectState() {
        return "SELECT id, owner, until, fence, result, done FROM jobs WHERE id = ?1";
    }

    String claimable() {
        return "done = 0 AND until <= ?3";
    }

    String claimEffect() {
        return "owner = ?2, until = ?4, fence = fence + 1";
    }

    String renewable() {
        return "owner = ?2 AND fence = ?3 AND done = 0 AND until > ?4";
    }

    String renewEffect() {
        return "until = ?5";
    }

    String completable() {
        return "owner = ?2 AND fence = ?3 AND done = 0 AND until > ?4";
    }

    String completeEffect() {
        return "result = ?5, done = 1";
    }

    String releasable() {
        return "owner = ?2 AND fence = ?3 AND done = 0";
    }

    /** The fence is deliberately kept: a reset would make old tokens valid again. */
    String releaseEffect() {
        return "owner = NULL, until = 0";
    }

    /** Checks the rule, for the strategies that read before they write. */
    static String check(String rule) {
        return "SELECT 1 FROM jobs WHERE id = ?1 AND (" + rule + ")";
    }

    /** Writes the effect to the job, whatever its state: the caller has checked the rule. */
    static String write(String effect) {
        return "UPDATE jobs SET " + effect + " WHERE id = ?1";
    }

    /** Writes the effect only if the rule holds, in one statement. */
    static String compareAndSet(String effect, String rule) {
        return "UPDATE jobs SET " + effect + " WHERE id = ?1 AND (" + rule + ")";
    }

    private static String loadSchema() {
        try (InputStream in = LeaseSql.class.getResourceAsStream("schema.sql")) {
            if (in == null) {
                throw new IllegalStateException("schema.sql is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
