package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.List;

/**
 * A broken protocol for the kill matrix: {@code PG_ADVISORY_LOCK}'s claimNext without its per-job
 * part. In one transaction it takes the advisory lock of the whole queue, picks the oldest
 * claimable jobs with a plain {@code SELECT} and writes each claim unconditionally; it neither
 * takes a picked job's own advisory lock nor reads the job's rule again. claimNext calls still
 * never meet each other, so draining workers are each handed different jobs; but a {@code claim}
 * of a picked job does not take the queue lock, and when it wins the job between the pick and the
 * write, both calls are handed the job. Every other operation is the strategy's own.
 */
final class ClaimNextWithoutJobLock extends ClaimNextReadThenWrite {

    ClaimNextWithoutJobLock(WriteProtocol delegate, LeaseSql sql) {
        super(delegate, sql, LockingStrategy.Engine.POSTGRESQL);
    }

    /** The read-then-write pick and claims, inside one transaction that holds the queue lock. */
    @Override
    public List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException {
        return s.inTransaction(() -> {
            s.execute(PostgresTransactionProtocol.QUEUE_LOCK);
            return super.claimNext(s, owner, now, until, max);
        });
    }
}
