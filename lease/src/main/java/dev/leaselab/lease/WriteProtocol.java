package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * The writes of one {@link LockingStrategy}, run on a connection that the store has borrowed for
 * the caller. Arguments are already checked; {@code until} is {@code now + ttl}.
 */
interface WriteProtocol {

    boolean enqueue(Session s, String id) throws SQLException;

    OptionalLong claim(Session s, String id, String owner, double now, double until) throws SQLException;

    /** Claims up to {@code max} claimable jobs, oldest first; {@code max} is positive. */
    List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException;

    boolean renew(Session s, String id, String owner, long fence, double now, double until) throws SQLException;

    boolean complete(Session s, String id, String owner, long fence, double now, String result) throws SQLException;

    /**
     * Runs every completion by the rule of {@link #complete}, in list order, in one transaction
     * that is committed only if all of them ran; the list is not empty.
     */
    List<Boolean> completeAll(Session s, List<Completion> completions, double now) throws SQLException;

    boolean release(Session s, String id, String owner, long fence) throws SQLException;
}
