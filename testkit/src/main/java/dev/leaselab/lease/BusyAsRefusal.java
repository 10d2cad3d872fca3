package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/** A broken protocol for the kill matrix: it answers "no" when the database is busy. */
final class BusyAsRefusal implements WriteProtocol {

    private final WriteProtocol delegate;

    BusyAsRefusal(WriteProtocol delegate) {
        this.delegate = delegate;
    }

    private interface Call<T> {
        T run() throws SQLException;
    }

    private static <T> T orElse(Call<T> call, T refusal) throws SQLException {
        try {
            return call.run();
        } catch (SQLException e) {
            if (Session.isBusy(e)) {
                return refusal;
            }
            throw e;
        }
    }

    @Override
    public boolean enqueue(Session s, String id) throws SQLException {
        return orElse(() -> delegate.enqueue(s, id), false);
    }

    @Override
    public OptionalLong claim(Session s, String id, String owner, double now, double until) throws SQLException {
        return orElse(() -> delegate.claim(s, id, owner, now, until), OptionalLong.empty());
    }

    @Override
    public List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException {
        return orElse(() -> delegate.claimNext(s, owner, now, until, max), List.of());
    }

    @Override
    public boolean renew(Session s, String id, String owner, long fence, double now, double until) throws SQLException {
        return orElse(() -> delegate.renew(s, id, owner, fence, now, until), false);
    }

    @Override
    public boolean complete(Session s, String id, String owner, long fence, double now, String result) throws SQLException {
        return orElse(() -> delegate.complete(s, id, owner, fence, now, result), false);
    }

    @Override
    public List<Boolean> completeAll(Session s, List<Completion> completions, double now) throws SQLException {
        return orElse(() -> delegate.completeAll(s, completions, now),
                java.util.Collections.nCopies(completions.size(), false));
    }

    @Override
    public boolean release(Session s, String id, String owner, long fence) throws SQLException {
        return orElse(() -> delegate.release(s, id, owner, fence), false);
    }
}
