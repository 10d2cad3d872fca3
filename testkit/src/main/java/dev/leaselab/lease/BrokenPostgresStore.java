package dev.leaselab.lease;

/**
 * Wrong versions of {@link PostgresLeaseStore}, each with one change that keeps the happy path
 * working: the negative controls of the contract tests on PostgreSQL. Like {@link BrokenStore},
 * each is built from the shipped store by replacing one SQL fragment or the write protocol, and
 * lives in test code only. The kill matrix ({@link KillMatrixTest}) runs the contract suite against
 * each of them on every PostgreSQL strategy and requires a test to fail.
 */
public enum BrokenPostgresStore {

    /**
     * CONTRACT 8 on PostgreSQL: check-then-act. Every write checks the rule with a plain
     * {@code SELECT} in its transaction, without {@code FOR UPDATE} or an advisory lock, and then
     * writes unconditionally. Under READ COMMITTED two claimants both read the lease as expired,
     * the second one's {@code UPDATE} waits for the first one's row lock and then overwrites its
     * claim: two winners, two fences ({@link CheckThenActWithoutLock}).
     */
    CHECK_THEN_ACT_WITHOUT_LOCK("CONTRACT 12 (CONTRACT 8 on PostgreSQL)") {
        @Override
        WriteProtocol protocol(LockingStrategy strategy, LeaseSql sql) {
            return new CheckThenActWithoutLock(sql, LockingStrategy.Engine.POSTGRESQL);
        }
    },

    /**
     * A stale writer's complete: neither owner nor fence is checked. The rule fragment is the very
     * one of {@link BrokenStore#COMPLETE_WITHOUT_FENCE_CHECK}, since both engines share the rules.
     */
    COMPLETE_WITHOUT_FENCE_CHECK("CONTRACT 11 (shared with SQLite)") {
        @Override
        LeaseSql sql() {
            return BrokenStore.COMPLETE_WITHOUT_FENCE_CHECK.sql();
        }
    },

    /** {@link BrokenStore#COMPLETE_ALL_ONE_COMMIT_EACH} on PostgreSQL: a commit per completion. */
    COMPLETE_ALL_ONE_COMMIT_EACH("CONTRACT 20 (shared with SQLite)") {
        @Override
        WriteProtocol protocol(LockingStrategy strategy, LeaseSql sql) {
            return new CompletesOneCommitEach(strategy.postgresProtocol(sql));
        }
    },

    /**
     * {@code PG_ADVISORY_LOCK}'s claimNext without the job's own advisory lock and without reading
     * the job's rule again ({@link ClaimNextWithoutJobLock}), on every PostgreSQL strategy: a
     * {@code claim} of a job that claimNext has picked but not yet written wins it too. Only the
     * contract's race of the two ({@code aClaimAndAClaimNextOfTheSameJobNeverBothWin}) catches it.
     */
    CLAIM_NEXT_WITHOUT_JOB_LOCK("CONTRACT 19") {
        @Override
        WriteProtocol protocol(LockingStrategy strategy, LeaseSql sql) {
            return new ClaimNextWithoutJobLock(strategy.postgresProtocol(sql), sql);
        }
    },

    /**
     * completeAll without the jobs' locks ({@link CompleteAllWithoutJobLocks}): only the
     * compare-and-sets, on every PostgreSQL strategy. That is the correct completeAll of
     * {@code PG_CONDITIONAL_UPDATE} and {@code PG_ROW_LOCK}, but under {@code PG_ADVISORY_LOCK} a
     * claim that checked the job under its advisory lock overwrites a completion that committed
     * before its write: the job is done and claimed at once. Only the contract's race of the two
     * ({@code aCompleteAllAndAClaimAtTheEndOfTheLeaseNeverBothWin}) on {@code PG_ADVISORY_LOCK} can
     * catch it, and the race must pass on the other two.
     */
    COMPLETE_ALL_WITHOUT_JOB_LOCKS("CONTRACT 22") {
        @Override
        WriteProtocol protocol(LockingStrategy strategy, LeaseSql sql) {
            return new CompleteAllWithoutJobLocks(strategy.postgresProtocol(sql), sql);
        }
    };

    private final String origin;

    BrokenPostgresStore(String origin) {
        this.origin = origin;
    }

    /** Where this variant comes from: its number in docs/CONTRACT.md's list of wrong changes. */
    public String origin() {
        return origin;
    }

    /** Opens this broken variant of the store on the database of {@code jdbcUrl}. */
    public LeaseStore open(String jdbcUrl, LockingStrategy strategy, PostgresOptions options) {
        LeaseSql sql = sql();
        return new PostgresLeaseStore(jdbcUrl, strategy, options, sql, protocol(strategy, sql));
    }

    LeaseSql sql() {
        return LeaseSql.CONTRACT;
    }

    WriteProtocol protocol(LockingStrategy strategy, LeaseSql sql) {
        return strategy.postgresProtocol(sql);
    }
}
