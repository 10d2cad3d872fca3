package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A broken protocol for the kill matrix: completeAll runs the strategy's single complete for each
 * completion, each in its own transaction with its own commit. Every answer is right; a batch
 * that fails half-way keeps the completes before the failure.
 */
final class CompletesOneCommitEach extends ForwardingProtocol {

    CompletesOneCommitEach(WriteProtocol delegate) {
        super(delegate);
    }

    @Override
    public List<Boolean> completeAll(Session s, List<Completion> completions, double now) throws SQLException {
        List<Boolean> accepted = new ArrayList<>(completions.size());
        for (Completion c : completions) {
            accepted.add(delegate.complete(s, c.jobId(), c.owner(), c.fence(), now, c.result()));
        }
        return accepted;
    }
}
