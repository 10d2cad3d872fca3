package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * A broken protocol for the kill matrix: claimNext picks its jobs in one autocommit statement and
 * claims each in another, with the unconditional write of the transactional strategies. Between
 * the pick and the write another worker picks the same job, and both are handed it. Every other
 * operation is the strategy's own.
 */
class ClaimNextReadThenWrite extends ForwardingProtocol {

    private final String pick;
    private final String write;

    ClaimNextReadThenWrite(WriteProtocol delegate, LeaseSql sql) {
        this(delegate, sql, LockingStrategy.Engine.SQLITE);
    }

    ClaimNextReadThenWrite(WriteProtocol delegate, LeaseSql sql, LockingStrategy.Engine engine) {
        super(delegate);
        this.pick = sql.nextClaimableIds(engine);
        this.write = LeaseSql.write(sql.claimEffect()) + " RETURNING fence";
    }

    @Override
    public List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException {
        List<Lease> leases = new ArrayList<>();
        for (String id : s.strings(pick, max, owner, now, until)) {
            OptionalLong fence = s.firstLong(write, id, owner, now, until);
            if (fence.isPresent()) {
                leases.add(new Lease(id, owner, fence.getAsLong(), until));
            }
        }
        return leases;
    }
}
