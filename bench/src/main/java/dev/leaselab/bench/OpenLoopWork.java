package dev.leaselab.bench;

import dev.leaselab.bench.OpenLoop.Outcome;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LeaseStoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The real work for {@link OpenLoop}: the same operations as {@link ClaimBenchmark#hotJob} and
 * {@link FloorBenchmark#update}, one request each.
 */
final class OpenLoopWork {

    static final String HOT = ClaimBenchmark.HOT;
    static final double TTL = ClaimBenchmark.TTL;

    private OpenLoopWork() {}

    /**
     * The hot-job claim: every request claims job {@value #HOT} at {@code now = clock * TTL} from
     * a shared clock that advances by one lease per request, so every request finds the previous
     * lease expired and races the others for the write. WON with a fence, LOST when a later claim
     * already committed. A {@link LeaseStoreException} (busy past the timeout, for instance) is
     * left to {@link OpenLoop}, which counts it FAILED and keeps the first one's message for the
     * report. The job must exist.
     *
     * <p>Reuse one op for every run on the same store: a second op would start its clock at 0
     * again and find the lease of the first op's last claim live, so every claim would be LOST.
     */
    static OpenLoop.Op hotClaim(LeaseStore store) {
        AtomicLong clock = new AtomicLong();
        return worker -> {
            double now = clock.getAndIncrement() * TTL;
            OptionalLong fence = store.claim(HOT, Outcomes.ownerOf(worker), now, TTL);
            return fence.isPresent() ? Outcome.WON : Outcome.LOST;
        };
    }

    /**
     * The floor: {@link FloorBenchmark#UPDATE} on row {@value #HOT} in autocommit, on one
     * connection per worker with the storage's settings ({@link Storage#connect(Path)}), the
     * statement prepared once. WON when the row changed, REFUSED when it did not (the row is
     * missing). A {@link SQLException} (for instance busy past the 1 s busy timeout) is left to
     * {@link OpenLoop}, which counts it FAILED.
     */
    static final class Floor implements AutoCloseable {
        private final Connection[] connections;
        private final PreparedStatement[] updates;

        private Floor(Connection[] connections, PreparedStatement[] updates) {
            this.connections = connections;
            this.updates = updates;
        }

        /** Opens {@code threads} connections to {@code file}, which must hold the jobs table and row {@value #HOT}. */
        static Floor open(Storage storage, Path file, int threads) throws SQLException {
            Connection[] connections = new Connection[threads];
            PreparedStatement[] updates = new PreparedStatement[threads];
            Floor floor = new Floor(connections, updates);
            try {
                for (int w = 0; w < threads; w++) {
                    connections[w] = storage.connect(file);
                    updates[w] = connections[w].prepareStatement(FloorBenchmark.UPDATE);
                    updates[w].setString(1, HOT);
                }
            } catch (SQLException | RuntimeException e) {
                floor.close();
                throw e;
            }
            return floor;
        }

        OpenLoop.Op op() {
            return worker -> updates[worker].executeUpdate() == 1 ? Outcome.WON : Outcome.REFUSED;
        }

        @Override
        public void close() {
            for (int w = 0; w < connections.length; w++) {
                try {
                    if (updates[w] != null) {
                        updates[w].close();
                    }
                    if (connections[w] != null) {
                        connections[w].close();
                    }
                } catch (SQLException e) {
                    // The database is deleted next; a connection that failed to close holds nothing worth keeping.
                }
            }
        }
    }
}
