package dev.leaselab.lease;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How a store makes each write atomic. Every constant satisfies the whole lease contract; they
 * differ in how they lock, and so in throughput, latency and fairness under contention.
 *
 * <p>This enum is the one list that the contract tests, the stress suite and the benchmarks
 * iterate: a new strategy is tested, raced and measured by adding a constant here.
 * {@code results/README.md} lists the SQL statements each strategy runs per operation.
 *
 * <p>Each constant belongs to one {@link Engine}: the SQLite constants open with
 * {@link SqliteLeaseStore}, the {@code PG_} constants with {@link PostgresLeaseStore}. Code that can
 * only run one engine picks its constants with {@link #of(Engine)}.
 */
public enum LockingStrategy {

    /**
     * The seed design: {@code BEGIN IMMEDIATE}, read the row, decide in the store, write,
     * {@code COMMIT}. The write lock is taken before the read, so no other writer can slip in.
     */
    IMMEDIATE(Engine.SQLITE),

    /** As {@link #IMMEDIATE} under {@code BEGIN EXCLUSIVE}, which also shuts out readers outside WAL mode. */
    EXCLUSIVE(Engine.SQLITE),

    /**
     * One statement per operation in autocommit, with the rule in its {@code WHERE} clause
     * ({@code UPDATE ... WHERE id = ? AND until <= ? RETURNING fence}): a compare-and-set that
     * SQLite applies under its own write lock.
     */
    CONDITIONAL_UPDATE(Engine.SQLITE),

    /**
     * A fair in-process lock lets one writer of this store at a time reach SQLite, so threads queue
     * in the JVM instead of in SQLite's sleeping busy handler; each write still runs in
     * {@code BEGIN IMMEDIATE}, so other stores and other processes on the same file stay safe.
     */
    SERIALIZED(Engine.SQLITE),

    /**
     * Optimistic: {@code BEGIN DEFERRED}, read, write. When SQLite answers {@code SQLITE_BUSY} or
     * {@code SQLITE_BUSY_SNAPSHOT} (another writer committed after this transaction's read), the
     * transaction is rolled back and retried with bounded, jittered backoff until the busy timeout
     * runs out; then the operation fails with a {@link LeaseStoreException}.
     */
    DEFERRED_RETRY(Engine.SQLITE),

    /**
     * Group commit: the writes of all threads waiting at the same moment run one after another in
     * one {@code BEGIN IMMEDIATE} transaction and share its commit, so under
     * {@code synchronous=FULL} many writes share one fsync. Each write is the compare-and-set
     * statement of {@link #CONDITIONAL_UPDATE}; a batch that fails is rolled back whole and every
     * write in it fails. With four or more writers, or fewer whose commits cost more than waking
     * them (a commit that syncs the WAL), the leader of a batch first waits (yielding, then parked,
     * for no longer than the commits it would save) for the writers of its last batch to queue again.
     */
    GROUP_COMMIT(Engine.SQLITE),

    /**
     * PostgreSQL, lock the row: {@code BEGIN}; {@code SELECT (rule) FROM jobs WHERE id = ? FOR UPDATE};
     * if the rule holds, {@code UPDATE jobs SET effect WHERE id = ? [RETURNING fence]};
     * {@code COMMIT}. The row lock is taken before the rule is read, and a writer that had to wait
     * for it reads the row as the previous holder committed it.
     */
    PG_ROW_LOCK(Engine.POSTGRESQL),

    /**
     * PostgreSQL, compare-and-set: one {@code UPDATE jobs SET effect WHERE id = ? AND (rule)
     * [RETURNING fence]} in autocommit. Under READ COMMITTED an {@code UPDATE} that waited for
     * another writer's row lock evaluates its {@code WHERE} again on the row that writer committed,
     * so of two racing claims only the first matches.
     */
    PG_CONDITIONAL_UPDATE(Engine.POSTGRESQL),

    /**
     * PostgreSQL, advisory lock: {@code BEGIN}; {@code SELECT pg_advisory_xact_lock(key)} with a
     * 64-bit key hashed from the job id; read and check the rule; write the effect; {@code COMMIT}.
     * The lock serialises only writers that take it: every store on one database must use this
     * strategy, because a writer of another strategy does not wait for it, and this strategy's
     * plain write would then overwrite what the other one wrote between this read and this write.
     */
    PG_ADVISORY_LOCK(Engine.POSTGRESQL);

    /** The database a strategy runs on. */
    public enum Engine {
        /** One SQLite file, opened with {@link SqliteLeaseStore}. */
        SQLITE,
        /** A PostgreSQL database, opened with {@link PostgresLeaseStore}. */
        POSTGRESQL
    }

    private final Engine engine;

    LockingStrategy(Engine engine) {
        this.engine = engine;
    }

    /** The database this strategy runs on. */
    public Engine engine() {
        return engine;
    }

    /** The strategies of one engine, in declaration order. */
    public static List<LockingStrategy> of(Engine engine) {
        Objects.requireNonNull(engine, "engine");
        return Arrays.stream(values()).filter(s -> s.engine == engine).toList();
    }

    /**
     * Checks that a store of {@code engine} can run this strategy.
     *
     * @throws IllegalArgumentException naming the argument {@code strategy} and its engine
     */
    void requireEngine(Engine engine) {
        if (this.engine != engine) {
            throw wrongEngine(engine);
        }
    }

    private IllegalArgumentException wrongEngine(Engine asked) {
        String store = switch (engine) {
            case SQLITE -> "SqliteLeaseStore";
            case POSTGRESQL -> "PostgresLeaseStore";
        };
        return new IllegalArgumentException("strategy " + name() + " belongs to " + engine
                + ", not to " + asked + ": open it with " + store);
    }

    /**
     * Creates the protocol that carries out this SQLite strategy's writes for one store. The
     * switch has no default: a constant without a case here (or in {@link #postgresProtocol}) is
     * a compile error, not a failure when a store opens.
     */
    WriteProtocol protocol(LeaseSql sql, StoreOptions options) {
        return switch (this) {
            case IMMEDIATE -> new TransactionProtocol(sql, "BEGIN IMMEDIATE", null, false, options.busyTimeout());
            case EXCLUSIVE -> new TransactionProtocol(sql, "BEGIN EXCLUSIVE", null, false, options.busyTimeout());
            case CONDITIONAL_UPDATE -> new ConditionalUpdateProtocol(sql, Engine.SQLITE);
            case SERIALIZED -> new TransactionProtocol(sql, "BEGIN IMMEDIATE", new ReentrantLock(true), false,
                    options.busyTimeout());
            case DEFERRED_RETRY -> new TransactionProtocol(sql, "BEGIN DEFERRED", null, true, options.busyTimeout());
            case GROUP_COMMIT -> new GroupCommitProtocol(sql);
            case PG_ROW_LOCK, PG_CONDITIONAL_UPDATE, PG_ADVISORY_LOCK -> throw wrongEngine(Engine.SQLITE);
        };
    }

    /** Creates the protocol that carries out this PostgreSQL strategy's writes for one store. */
    WriteProtocol postgresProtocol(LeaseSql sql) {
        return switch (this) {
            case PG_ROW_LOCK -> new PostgresTransactionProtocol(sql, PostgresTransactionProtocol.Lock.ROW);
            case PG_CONDITIONAL_UPDATE -> new ConditionalUpdateProtocol(sql, Engine.POSTGRESQL);
            case PG_ADVISORY_LOCK -> new PostgresTransactionProtocol(sql, PostgresTransactionProtocol.Lock.ADVISORY);
            case IMMEDIATE, EXCLUSIVE, CONDITIONAL_UPDATE, SERIALIZED, DEFERRED_RETRY, GROUP_COMMIT ->
                    throw wrongEngine(Engine.POSTGRESQL);
        };
    }
}
