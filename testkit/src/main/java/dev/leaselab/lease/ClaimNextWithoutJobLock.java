package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * A broken protocol for the kill matrix: {@code PG_ADVISORY_LOCK}'s claimNext without its per-job
 * part. In one transaction it takes the advisory lock of the whole queue, picks the oldest
 * claimable jobs with a plain {@code SELECT} and writes each claim unconditionally; it neither
 * takes a picked job's own advisory lock nor reads the job's rule again. claimNext calls still
 * never meet each other, so draining workers are each handed different jobs; but a {@code claim}
 * of a picked job does not take the queue lock, and when it wins the job between the pick and the
 * write, both calls are handed the job. Every other operation is the strategy's own.
 */
final class ClaimNextWithoutJobLock extends ForwardingProtocol {

    /**
     * The queue lock of {@link PostgresTransactionProtocol}, copied because it is private there; only
     * this variant's claimNext calls take it, so the copy need only be a two-integer key.
     */
    private static final String QUEUE_LOCK = "SELECT pg_advisory_xact_lock(1818583411, 1903519093)";

    private final String pick;
    private final String write;

    ClaimNextWithoutJobLock(WriteProtocol delegate, LeaseSql sql) {
        super(delegate);
        this.pick = sql.nextClaimableIds(LockingStrategy.Engine.POSTGRESQL);
        this.write = LeaseSql.write(sql.claimEffect()) + " RETURNING fence";
    }

    @Override
    public List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException {
        s.beginTransaction();
        try {
            s.execute(QUEUE_LOCK);
            List<Lease> leases = new ArrayList<>();
            for (String id : s.strings(pick, max, owner, now, until)) {
                OptionalLong fence = s.firstLong(write, id, owner, now, until);
                if (fence.isPresent()) {
                    leases.add(new Lease(id, owner, fence.getAsLong(), until));
                }
            }
            s.commitTransaction();
            return leases;
        } catch (SQLException | RuntimeException e) {
            s.rollbackTransactionQuietly();
            throw e;
        }
    }
}
