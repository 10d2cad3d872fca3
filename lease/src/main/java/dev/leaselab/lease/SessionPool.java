package dev.leaselab.lease;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.sqlite.SQLiteConfig;

/**
 * Lends connections to operations, at most {@code poolSize} at once, and keeps them open between
 * operations. Connections belong to the pool, not to threads, so threads that come and go (a
 * jcstress run starts thousands) never leave a connection behind.
 */
final class SessionPool {

    interface Work<T> {
        T run(Session session) throws SQLException;
    }

    private final Path file;
    private final StoreOptions options;
    private final Semaphore permits;
    private final ConcurrentLinkedQueue<Session> idle = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    SessionPool(Path file, StoreOptions options) {
        this.file = file;
        this.options = options;
        this.permits = new Semaphore(options.poolSize(), true);
    }

    <T> T withSession(Work<T> work) throws SQLException {
        requireOpen();
        acquirePermit();
        Session session = null;
        try {
            requireOpen();
            session = idle.poll();
            if (session == null) {
                session = open();
            }
            return work.run(session);
        } finally {
            if (session != null) {
                if (session.reusable() && !closed) {
                    idle.add(session);
                } else {
                    discard(session);
                }
            }
            permits.release();
            if (closed) {
                drainIdle();
            }
        }
    }

    void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the store on " + file + " is closed");
        }
    }

    void close() {
        closed = true;
        drainIdle();
    }

    private void acquirePermit() {
        try {
            long waitMillis = Math.max(1, options.busyTimeout().toMillis());
            if (!permits.tryAcquire(waitMillis, TimeUnit.MILLISECONDS)) {
                throw new LeaseStoreException("no connection to " + file + " came free within "
                        + waitMillis + " ms (poolSize " + options.poolSize() + ")", null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LeaseStoreException("interrupted while waiting for a connection to " + file, e);
        }
    }

    private Session open() throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout((int) options.busyTimeout().toMillis());
        // The store never asks for generated keys. With them on, sqlite-jdbc matches every
        // statement it runs against an INSERT pattern and runs SELECT last_insert_rowid() after
        // every INSERT (enqueue): work for nothing, though the paired benchmarks could not tell
        // the difference (results/generated-keys-20261204).
        config.setGetGeneratedKeys(false);
        config.setJournalMode(SQLiteConfig.JournalMode.valueOf(options.journalMode().name()));
        if (options.synchronous() == StoreOptions.Synchronous.EXTRA) {
            // sqlite-jdbc's SynchronousMode stops at FULL; the pragma itself takes EXTRA.
            config.setPragma(SQLiteConfig.Pragma.SYNCHRONOUS, "EXTRA");
        } else {
            config.setSynchronous(SQLiteConfig.SynchronousMode.valueOf(options.synchronous().name()));
        }
        Connection connection = config.createConnection("jdbc:sqlite:" + file);
        try {
            options.installBusyWait(connection);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return new Session(connection);
    }

    private static void discard(Session session) {
        session.close();
    }

    private void drainIdle() {
        for (Session s; (s = idle.poll()) != null; ) {
            discard(s);
        }
    }
}
