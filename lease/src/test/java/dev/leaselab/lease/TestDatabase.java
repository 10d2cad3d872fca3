package dev.leaselab.lease;

import dev.leaselab.lease.LockingStrategy.Engine;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * One empty database of one test, for the engine of the strategy under test: a SQLite file in a
 * temporary directory, or a schema of its own on the tests' PostgreSQL server. Tests open stores
 * on it, and reach it with plain JDBC ({@link Tables}) as another program sharing it would.
 */
sealed interface TestDatabase permits TestDatabase.SqliteFile, TestDatabase.PostgresSchema {

    Engine engine();

    /** A new plain JDBC connection, outside any store; the caller closes it. */
    Connection connect() throws SQLException;

    /** Work with a plain connection that {@link #withConnection} lends and takes back. */
    interface ConnectionWork<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs work on a plain connection, outside any store: a new one for SQLite, which is cheap and
     * holds no file open between calls; for PostgreSQL one connection of this database, opened on
     * first use and closed when the database is dropped, since each new one costs the server a
     * process.
     */
    <T> T withConnection(ConnectionWork<T> work) throws SQLException;

    /** A part of the name by which a store's messages name this database. */
    String label();

    /** A SQLite database: one file (which need not exist yet). */
    record SqliteFile(Path file) implements TestDatabase {

        @Override
        public Engine engine() {
            return Engine.SQLITE;
        }

        @Override
        public Connection connect() throws SQLException {
            return DriverManager.getConnection("jdbc:sqlite:" + file);
        }

        @Override
        public <T> T withConnection(ConnectionWork<T> work) throws SQLException {
            try (Connection c = connect()) {
                return work.run(c);
            }
        }

        @Override
        public String label() {
            return file.getFileName().toString();
        }
    }

    /** A PostgreSQL database: one schema, which the URL makes the connection's search path. */
    final class PostgresSchema implements TestDatabase {

        private final PostgresServer server;
        private final String schema;
        private Connection shared;

        PostgresSchema(PostgresServer server, String schema) {
            this.server = server;
            this.schema = schema;
        }

        String schema() {
            return schema;
        }

        @Override
        public Engine engine() {
            return Engine.POSTGRESQL;
        }

        /** The URL that stores open: the server's, with {@code currentSchema} set to this schema. */
        String url() {
            return server.url(schema);
        }

        @Override
        public Connection connect() throws SQLException {
            return DriverManager.getConnection(url());
        }

        @Override
        public String label() {
            return "currentSchema=" + schema;
        }

        @Override
        public synchronized <T> T withConnection(ConnectionWork<T> work) throws SQLException {
            if (shared == null) {
                shared = connect();
            }
            return work.run(shared);
        }

        /** Closes the shared connection and drops the schema with its table. */
        synchronized void drop() {
            try {
                if (shared != null) {
                    shared.close();
                }
            } catch (SQLException e) {
                // Dropping the schema does not need it.
            }
            shared = null;
            server.dropSchema(schema);
        }

        @Override
        public String toString() {
            return "PostgresSchema[" + schema + "]";
        }
    }
}
