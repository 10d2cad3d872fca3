package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * A broken protocol for the kill matrix: check-then-act. Every write checks the rule with a plain
 * {@code SELECT} and then writes unconditionally; claimNext picks with a plain {@code SELECT} and
 * writes each picked job the same way. Two claimants both read the lease as expired and both
 * write: two winners, two fences.
 *
 * <ul>
 *   <li>On SQLite ({@link BrokenStore#CLAIM_READ_THEN_WRITE}) each statement is its own autocommit
 *       transaction, so the read and the write are two transactions.
 *   <li>On PostgreSQL ({@link BrokenPostgresStore#CHECK_THEN_ACT_WITHOUT_LOCK}) they share one READ
 *       COMMITTED transaction that takes no lock first: the second claimant's {@code UPDATE} waits
 *       for the first one's row lock and then overwrites its claim.
 * </ul>
 */
final class CheckThenActWithoutLock implements WriteProtocol {

    private final boolean inOneTransaction;
    private final String enqueue;
    private final CheckedWrites statements;
    private final String pick;

    CheckThenActWithoutLock(LeaseSql sql, LockingStrategy.Engine engine) {
        this.inOneTransaction = engine == LockingStrategy.Engine.POSTGRESQL;
        this.enqueue = sql.enqueue();
        this.statements = CheckedWrites.of(sql, LeaseSql::check);
        this.pick = sql.nextClaimableIds(engine);
    }

    @Override
    public boolean enqueue(Session s, String id) throws SQLException {
        return s.update(enqueue, id) == 1;
    }

    @Override
    public OptionalLong claim(Session s, String id, String owner, double now, double until) throws SQLException {
        return inTransaction(s, () -> s.exists(statements.claimCheck(), id, owner, now, until)
                ? s.firstLong(statements.claimWrite(), id, owner, now, until)
                : OptionalLong.empty());
    }

    @Override
    public List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException {
        return inTransaction(s, () -> {
            List<Lease> leases = new ArrayList<>();
            for (String id : s.strings(pick, max, owner, now, until)) {
                OptionalLong fence = s.firstLong(statements.claimWrite(), id, owner, now, until);
                if (fence.isPresent()) {
                    leases.add(new Lease(id, owner, fence.getAsLong(), until));
                }
            }
            return leases;
        });
    }

    @Override
    public boolean renew(Session s, String id, String owner, long fence, double now, double until) throws SQLException {
        return inTransaction(s, () -> s.exists(statements.renewCheck(), id, owner, fence, now, until)
                && s.update(statements.renewWrite(), id, owner, fence, now, until) == 1);
    }

    @Override
    public boolean complete(Session s, String id, String owner, long fence, double now, String result) throws SQLException {
        return inTransaction(s, () -> completeUnlocked(s, id, owner, fence, now, result));
    }

    @Override
    public List<Boolean> completeAll(Session s, List<Completion> completions, double now) throws SQLException {
        return inTransaction(s, () -> {
            List<Boolean> accepted = new ArrayList<>(completions.size());
            for (Completion c : completions) {
                accepted.add(completeUnlocked(s, c.jobId(), c.owner(), c.fence(), now, c.result()));
            }
            return accepted;
        });
    }

    @Override
    public boolean release(Session s, String id, String owner, long fence) throws SQLException {
        return inTransaction(s, () -> s.exists(statements.releaseCheck(), id, owner, fence)
                && s.update(statements.releaseWrite(), id, owner, fence) == 1);
    }

    private boolean completeUnlocked(Session s, String id, String owner, long fence, double now, String result) throws SQLException {
        return s.exists(statements.completeCheck(), id, owner, fence, now, result)
                && s.update(statements.completeWrite(), id, owner, fence, now, result) == 1;
    }

    private <T> T inTransaction(Session s, Session.Work<T> work) throws SQLException {
        return inOneTransaction ? s.inTransaction(work) : work.run();
    }
}
