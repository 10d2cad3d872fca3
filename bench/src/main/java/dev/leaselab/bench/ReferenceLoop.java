package dev.leaselab.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * One benchmark thread's private reference database for {@link MachineReference}: the floor's
 * update on one row of its own {@code WAL_NORMAL} file (its own, so that threads never wait for
 * each other's write lock), timed over a window.
 */
final class ReferenceLoop implements AutoCloseable {

    /** Windows run once and not reported: they would time the interpreter and the WAL file's first growth. */
    private static final int WARMUP_WINDOWS = 4;

    private final BenchDb db;
    private final Connection connection;
    private final PreparedStatement update;
    private final long windowNanos;

    private ReferenceLoop(BenchDb db, Connection connection, PreparedStatement update, long windowNanos) {
        this.db = db;
        this.connection = connection;
        this.update = update;
        this.windowNanos = windowNanos;
    }

    static ReferenceLoop open(long windowNanos) {
        BenchDb db = BenchDb.openWithoutStore(Storage.WAL_NORMAL);
        try {
            db.insertJobs(new String[] {FloorBenchmark.HOT}, null, 0);
            Connection connection = db.connect();
            PreparedStatement update = connection.prepareStatement(FloorBenchmark.UPDATE);
            update.setString(1, FloorBenchmark.HOT);
            ReferenceLoop loop = new ReferenceLoop(db, connection, update, windowNanos);
            for (int i = 0; i < WARMUP_WINDOWS; i++) {
                loop.window();
            }
            return loop;
        } catch (SQLException | RuntimeException e) {
            db.close();
            throw new IllegalStateException("the machine reference could not run its update in " + db.where(), e);
        }
    }

    /** Updates per second over one window. */
    double window() {
        try {
            long start = System.nanoTime();
            long elapsed;
            long updates = 0;
            do {
                update.executeUpdate();
                updates++;
                elapsed = System.nanoTime() - start;
            } while (elapsed < windowNanos);
            return updates / (elapsed / 1e9);
        } catch (SQLException e) {
            throw new IllegalStateException("the machine reference could not run its update in " + db.where(), e);
        }
    }

    @Override
    public void close() {
        try {
            update.close();
            connection.close();
        } catch (SQLException e) {
            // The directory is deleted next either way; a connection that failed to close goes with it.
        } finally {
            db.close();
        }
    }
}
