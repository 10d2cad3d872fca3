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
 * <p>The rules and effects are plain SQL that SQLite and PostgreSQL read alike; only the schema
 * ({@code schema.sql}, {@code postgres-schema.sql}) and the locking statements differ per engine.
 *
 * <p>Parameters are numbered, fixed per operation, and a fragment may use any of them:
 * <ul>
 *   <li>claim: {@code ?1} id, {@code ?2} owner, {@code ?3} now, {@code ?4} new until
 *   <li>renew: {@code ?1} id, {@code ?2} owner, {@code ?3} fence, {@code ?4} now, {@code ?5} new until
 *   <li>complete: {@code ?1} id, {@code ?2} owner, {@code ?3} fence, {@code ?4} now, {@code ?5} result
 *   <li>release: {@code ?1} id, {@code ?2} owner, {@code ?3} fence
 * </ul>
 * SQLite reads these numbers itself; for PostgreSQL, {@link PositionalSql} rewrites them.
 */
class LeaseSql {

    static final LeaseSql CONTRACT = new LeaseSql();

    private static final String SCHEMA = load("schema.sql");
    private static final String POSTGRES_SCHEMA = load("postgres-schema.sql");

    /** The SQLite schema. */
    String createTable() {
        return SCHEMA;
    }

    /** The PostgreSQL schema: the same columns in PostgreSQL's types. */
    String createPostgresTable() {
        return POSTGRES_SCHEMA;
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

    /**
     * Locks the job's row, then tells whether the rule holds (PostgreSQL, inside a transaction).
     * Under READ COMMITTED, a {@code FOR UPDATE} that had to wait for another writer evaluates the
     * select list on the row version that writer committed, so the answer is about the row as it
     * is now locked, not as it was when the statement started. No row means no job.
     */
    static String lockAndCheck(String rule) {
        return "SELECT (" + rule + ") IS TRUE FROM jobs WHERE id = ?1 FOR UPDATE";
    }

    /**
     * Takes PostgreSQL's transaction-scoped advisory lock of the job. The 64-bit key is computed by
     * the server ({@code hashtextextended}, its 64-bit text hash), so every client that runs this
     * statement takes the same lock for the same id, whatever language it is written in. Two ids
     * with the same hash merely share a lock.
     */
    static String advisoryLock() {
        return "SELECT pg_advisory_xact_lock(hashtextextended(?1, 0))";
    }

    /** Writes the effect to the job, whatever its state: the caller has checked the rule. */
    static String write(String effect) {
        return "UPDATE jobs SET " + effect + " WHERE id = ?1";
    }

    /** Writes the effect only if the rule holds, in one statement. */
    static String compareAndSet(String effect, String rule) {
        return "UPDATE jobs SET " + effect + " WHERE id = ?1 AND (" + rule + ")";
    }

    private static String load(String resource) {
        try (InputStream in = LeaseSql.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
