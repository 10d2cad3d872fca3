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
 *   <li>claimNext: {@code ?1} the batch size, {@code ?2} owner, {@code ?3} now, {@code ?4} new until
 *       (the claim's numbers, with the batch size where the id was); each job it picks is then
 *       written with the claim's own parameters
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

    /**
     * The rule by which claimNext picks its jobs: the claim's own rule. A separate fragment, so
     * that the kill matrix can break the queue without breaking {@code claim}.
     */
    String nextClaimable() {
        return claimable();
    }

    /**
     * The claimable jobs' ids, oldest first, at most {@code ?1} of them. SQLite keeps insertion
     * order in the rowid; a PostgreSQL table keeps none (no rowid, and {@code ctid} moves with
     * every update), and the contract's table has no column for it, so there the queue is ordered
     * by {@code until}: never-claimed and released jobs (0) first, then expired leases in the order
     * they ran out, then by id.
     */
    String nextClaimableIds(LockingStrategy.Engine engine) {
        return "SELECT id FROM jobs WHERE (" + nextClaimable() + ") ORDER BY " + queueOrder(engine) + " LIMIT ?1";
    }

    static String queueOrder(LockingStrategy.Engine engine) {
        return switch (engine) {
            case SQLITE -> "rowid";
            case POSTGRESQL -> "until, id";
        };
    }

    /**
     * The index claimNext reads the queue by, created like the table, only if missing: on SQLite
     * the not-done jobs in rowid order (a scan for the oldest claimable job skips the done ones),
     * on PostgreSQL in the queue's order.
     */
    static String createQueueIndex(LockingStrategy.Engine engine) {
        return switch (engine) {
            case SQLITE -> "CREATE INDEX IF NOT EXISTS " + QUEUE_INDEX + " ON jobs (done) WHERE done = 0";
            case POSTGRESQL -> "CREATE INDEX IF NOT EXISTS " + QUEUE_INDEX + " ON jobs (until, id) WHERE done = 0";
        };
    }

    static final String QUEUE_INDEX = "jobs_queue";

    /**
     * claimNext in one statement (the compare-and-set strategies): picks the oldest claimable
     * jobs and claims them under the statement's own lock. Returns each job's id, new fence and
     * its place in the queue (rowid on SQLite; on PostgreSQL the expiry it had), because
     * {@code RETURNING} rows come in no particular order. On PostgreSQL the pick skips rows that
     * other transactions hold locked ({@code FOR UPDATE SKIP LOCKED}), so racing workers take
     * different jobs instead of queueing for the same one, and the update checks the rule again.
     */
    String claimNextInOneStatement(LockingStrategy.Engine engine) {
        return switch (engine) {
            case SQLITE -> "UPDATE jobs SET " + claimEffect() + " WHERE rowid IN (SELECT rowid FROM jobs WHERE ("
                    + nextClaimable() + ") ORDER BY rowid LIMIT ?1) RETURNING id, fence, rowid";
            case POSTGRESQL -> "WITH picked AS (SELECT id AS picked_id, until AS was FROM jobs WHERE (" + nextClaimable()
                    + ") ORDER BY until, id LIMIT ?1 FOR UPDATE SKIP LOCKED) UPDATE jobs SET " + claimEffect()
                    + " FROM picked WHERE jobs.id = picked.picked_id AND (" + nextClaimable() + ")"
                    + " RETURNING jobs.id, jobs.fence, picked.was";
        };
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

    /**
     * Takes the advisory lock of each job in {@code ?1} (a text array), in the array's order, and
     * returns the ids (PostgreSQL, inside a transaction): the locks of {@link #advisoryLock()}, one
     * round trip for all of them. A select list with a volatile function is evaluated after the
     * sort, so the locks are taken in that order.
     */
    static String advisoryLocksInOrder() {
        return "SELECT t.id, pg_advisory_xact_lock(hashtextextended(t.id, 0)) FROM unnest(CAST(?1 AS text[])) WITH ORDINALITY"
                + " AS t(id, n) ORDER BY t.n";
    }

    /**
     * Claims every job in {@code ?1} (a text array) whose claimNext rule holds, in one statement,
     * and returns each claimed job's id and new fence (PostgreSQL, inside the transaction that
     * picked the ids and holds their locks). The rule is read again here: under an advisory lock
     * a claim may have won a picked job before its lock was taken.
     */
    String claimPicked() {
        return "UPDATE jobs SET " + claimEffect() + " WHERE id = ANY(?1) AND (" + nextClaimable() + ") RETURNING id, fence";
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
