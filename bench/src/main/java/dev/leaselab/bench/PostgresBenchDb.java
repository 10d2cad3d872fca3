package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.PostgresLeaseStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A benchmark database on {@link Storage#POSTGRESQL}: a fresh schema of the server
 * ({@link PostgresTarget}), created and dropped with plain JDBC, and the store opened on it with 16
 * connections and a 1 s statement timeout ({@link Storage#postgresOptions()}).
 */
final class PostgresBenchDb extends BenchDb {

    private final PostgresTarget server;
    private final String schema;
    /**
     * Idle setup connections. A new PostgreSQL connection costs the server a process and tens of
     * milliseconds of CPU, and the jobs are prepared before every iteration, so setup connections
     * are kept for the trial.
     */
    private final Queue<Connection> idleSetup = new ConcurrentLinkedQueue<>();

    private PostgresBenchDb(PostgresTarget server, String schema, LeaseStore store) {
        super(store);
        this.server = server;
        this.schema = schema;
    }

    /** Creates the schema with the real tables by opening a store on it; {@code keepStore} false closes it again. */
    static PostgresBenchDb open(LockingStrategy strategy, boolean keepStore) {
        PostgresTarget server = PostgresTarget.require();
        String schema = server.createSchema();
        try {
            LeaseStore store = PostgresLeaseStore.open(server.schemaUrl(schema), strategy, Storage.POSTGRESQL.postgresOptions());
            if (!keepStore) {
                store.close();
                return new PostgresBenchDb(server, schema, null);
            }
            return new PostgresBenchDb(server, schema, decorate(store));
        } catch (RuntimeException e) {
            server.dropSchema(schema);
            throw e;
        }
    }

    @Override
    String where() {
        return "schema " + schema + " of " + server.redactedUrl();
    }

    @Override
    String workerArgument() {
        return server.schemaUrl(schema);
    }

    @Override
    Connection connect() throws SQLException {
        return server.connect(schema, Storage.busyTimeout());
    }

    @Override
    Connection borrowForSetup() throws SQLException {
        Connection idle = idleSetup.poll();
        return idle != null ? idle : server.connect(schema, SETUP_BUSY_TIMEOUT);
    }

    /** Kept for the next iteration. */
    @Override
    void giveBack(Connection c) {
        idleSetup.add(c);
    }

    @Override
    void begin(Connection c) throws SQLException {
        c.setAutoCommit(false);
    }

    @Override
    void commit(Connection c) throws SQLException {
        c.commit();
        c.setAutoCommit(true);
    }

    @Override
    void delete() {
        for (Connection c; (c = idleSetup.poll()) != null; ) {
            try {
                c.close();
            } catch (SQLException e) {
                // The schema is dropped next; a connection that failed to close is gone anyway.
            }
        }
        server.dropSchema(schema);
    }
}
