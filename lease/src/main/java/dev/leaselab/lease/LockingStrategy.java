package dev.leaselab.lease;

import java.util.concurrent.locks.ReentrantLock;

/**
 * How a store makes each write atomic. Every constant satisfies the whole lease contract; they
 * differ in how they lock, and so in throughput, latency and fairness under contention.
 *
 * <p>This enum is the one list that the contract tests, the stress suite and the benchmarks
 * iterate: a new strategy is tested, raced and measured by adding a constant here.
 * {@code results/README.md} lists the SQL statements each strategy runs per operation.
 */
public enum LockingStrategy {

    /**
     * The seed design: {@code BEGIN IMMEDIATE}, read the row, decide in the store, write,
     * {@code COMMIT}. The write lock is taken before the read, so no other writer can slip in.
     */
    IMMEDIATE {
        @Override
        WriteProtocol protocol(LeaseSql sql, StoreOptions options) {
            return new TransactionProtocol(sql, "BEGIN IMMEDIATE", null, false, options.busyTimeout());
        }
    },

    /** As {@link #IMMEDIATE} under {@code BEGIN EXCLUSIVE}, which also shuts out readers outside WAL mode. */
    EXCLUSIVE {
        @Override
        WriteProtocol protocol(LeaseSql sql, StoreOptions options) {
            return new TransactionProtocol(sql, "BEGIN EXCLUSIVE", null, false, options.busyTimeout());
        }
    },

    /**
     * One statement per operation in autocommit, with the rule in its {@code WHERE} clause
     * ({@code UPDATE ... WHERE id = ? AND until <= ? RETURNING fence}): a compare-and-set that
     * SQLite applies under its own write lock.
     */
    CONDITIONAL_UPDATE {
        @Override
        WriteProtocol protocol(LeaseSql sql, StoreOptions options) {
            return new ConditionalUpdateProtocol(sql);
        }
    },

    /**
     * A fair in-process lock lets one writer of this store at a time reach SQLite, so threads queue
     * in the JVM instead of in SQLite's sleeping busy handler; each write still runs in
     * {@code BEGIN IMMEDIATE}, so other stores and other processes on the same file stay safe.
     */
    SERIALIZED {
        @Override
        WriteProtocol protocol(LeaseSql sql, StoreOptions options) {
            return new TransactionProtocol(sql, "BEGIN IMMEDIATE", new ReentrantLock(true), false,
                    options.busyTimeout());
        }
    },

    /**
     * Optimistic: {@code BEGIN DEFERRED}, read, write. When SQLite answers {@code SQLITE_BUSY} or
     * {@code SQLITE_BUSY_SNAPSHOT} (another writer committed after this transaction's read), the
     * transaction is rolled back and retried with bounded, jittered backoff until the busy timeout
     * runs out; then the operation fails with a {@link LeaseStoreException}.
     */
    DEFERRED_RETRY {
        @Override
        WriteProtocol protocol(LeaseSql sql, StoreOptions options) {
            return new TransactionProtocol(sql, "BEGIN DEFERRED", null, true, options.busyTimeout());
        }
    },

    /**
     * Group commit: the writes of all threads waiting at the same moment run one after another in
     * one {@code BEGIN IMMEDIATE} transaction and share its commit, so under
     * {@code synchronous=FULL} many writes share one fsync. Each write is the compare-and-set
     * statement of {@link #CONDITIONAL_UPDATE}; a batch that fails is rolled back whole and every
     * write in it fails.
     */
    GROUP_COMMIT {
        @Override
        WriteProtocol protocol(LeaseSql sql, StoreOptions options) {
            return new GroupCommitProtocol(sql);
        }
    };

    /** Creates the protocol that carries out this strategy's writes for one store. */
    abstract WriteProtocol protocol(LeaseSql sql, StoreOptions options);
}
