package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.List;

/**
 * A broken protocol for the kill matrix: completeAll runs only the compare-and-set of each
 * completion, in one transaction, and takes none of the jobs' locks. That is the whole completeAll
 * of {@code PG_CONDITIONAL_UPDATE} and {@code PG_ROW_LOCK}, whose claims write only under a
 * condition or a row lock; but a claim of {@code PG_ADVISORY_LOCK} reads the job's rule under the
 * job's advisory lock and then writes without a condition, so a completion that commits between
 * that read and that write is overwritten by a claim of a job already done, and both win. Every
 * other operation is the strategy's own.
 */
final class CompleteAllWithoutJobLocks extends ForwardingProtocol {

    private final ConditionalUpdateProtocol compareAndSet;

    CompleteAllWithoutJobLocks(WriteProtocol delegate, LeaseSql sql) {
        super(delegate);
        this.compareAndSet = new ConditionalUpdateProtocol(sql, LockingStrategy.Engine.POSTGRESQL);
    }

    @Override
    public List<Boolean> completeAll(Session s, List<Completion> completions, double now) throws SQLException {
        return compareAndSet.completeAll(s, completions, now);
    }
}
