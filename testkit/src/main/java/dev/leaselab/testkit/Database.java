package dev.leaselab.testkit;

import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.PostgresLeaseStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One database that a test, a race or a benchmark runs a store on: a SQLite file, or a schema of
 * its own on a PostgreSQL server. Suites open the store under test on it, and read and write its
 * {@code jobs} table with plain JDBC ({@link #rows()}, {@link #execute}), as another program
 * sharing the database would, so that what they check does not depend on the code under test.
 */
public sealed interface Database permits Database.SqliteFile, Database.PostgresSchema {

    /** The engine of this database: the strategies of this engine run on it. */
    Engine engine();

    /** A new plain JDBC connection in autocommit, outside any store; the caller closes it. */
    Connection connect() throws SQLException;

    /** Work with a plain connection that {@link #withConnection} lends and takes back. */
    interface ConnectionWork<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs work on a plain connection, outside any store: a new one for SQLite, which is cheap and
     * holds no file open between calls; for PostgreSQL one connection of this database, opened on
     * first use and closed by {@link #drop()}, since each new one costs the server a process.
     */
    <T> T withConnection(ConnectionWork<T> work) throws SQLException;

    /**
     * How a store's messages name this database (the file's name, or {@code currentSchema=...}),
     * for tests that check a failure names it.
     */
    String label();

    /** How a worker process is told which database to use: the inverse of {@link #parse}. */
    String argument();

    /**
     * Removes what the database holds on a server: a PostgreSQL schema is dropped with its table
     * (a failure only leaves it behind, and is printed). A SQLite file stays for inspection; its
     * directory belongs to whoever created it.
     */
    void drop();

    /**
     * Every row of the {@code jobs} table by id, read with plain JDBC.
     *
     * @throws IllegalStateException naming the database if the table cannot be read
     */
    default SortedMap<String, JobState> rows() {
        try {
            return withConnection(c -> {
                SortedMap<String, JobState> rows = new TreeMap<>();
                try (Statement s = c.createStatement();
                        ResultSet row = s.executeQuery("SELECT id, owner, until, fence, result, done FROM jobs")) {
                    while (row.next()) {
                        rows.put(row.getString(1), new JobState(row.getString(1), row.getString(2), row.getDouble(3),
                                row.getLong(4), row.getString(5), row.getInt(6) != 0));
                    }
                }
                return rows;
            });
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the jobs of " + this + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs one statement with plain JDBC (waiting at most 5 s for a lock), as a program outside
     * the store would; returns its update count.
     */
    default int execute(String sql) throws SQLException {
        return withConnection(c -> {
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(5);
                return s.executeUpdate(sql);
            }
        });
    }

    /**
     * "ok" when the database is sound: SQLite's {@code PRAGMA integrity_check}; on PostgreSQL,
     * whose server outlives any client that is killed, that the table can be read. Anything else
     * is the failure, as text.
     */
    String integrityCheck();

    /**
     * The database an {@link #argument()} names.
     *
     * @throws IllegalArgumentException naming the argument if it names none
     */
    static Database parse(String argument) {
        Objects.requireNonNull(argument, "argument");
        if (argument.startsWith(PostgresSchema.PREFIX)) {
            String url = argument.substring(PostgresSchema.PREFIX.length());
            int at = url.lastIndexOf(PostgresSchema.CURRENT_SCHEMA);
            if (at < 1) {
                throw new IllegalArgumentException("argument: a PostgreSQL database needs currentSchema: " + argument);
            }
            return new PostgresSchema(url.substring(0, at - 1), url.substring(at + PostgresSchema.CURRENT_SCHEMA.length()));
        }
        if (argument.isBlank()) {
            throw new IllegalArgumentException("argument must name a SQLite file or a PostgreSQL schema: '" + argument + "'");
        }
        return new SqliteFile(Path.of(argument));
    }

    /** A SQLite database: one file, which need not exist yet. */
    record SqliteFile(Path file) implements Database {

        public SqliteFile {
            Objects.requireNonNull(file, "file");
        }

        @Override
        public Engine engine() {
            return Engine.SQLITE;
        }

        @Override
        public Connection connect() throws SQLException {
            return DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
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

        @Override
        public String argument() {
            return file.toString();
        }

        @Override
        public String integrityCheck() {
            try {
                return withConnection(c -> {
                    try (Statement s = c.createStatement(); ResultSet row = s.executeQuery("PRAGMA integrity_check")) {
                        StringBuilder answer = new StringBuilder();
                        while (row.next()) {
                            answer.append(answer.length() == 0 ? "" : "; ").append(row.getString(1));
                        }
                        return answer.toString();
                    }
                });
            } catch (SQLException e) {
                return "failed: " + e.getMessage();
            }
        }

        @Override
        public void drop() {
        }
    }

    /**
     * A schema of its own on a PostgreSQL server, which the URL's {@code currentSchema} makes the
     * search path of every connection: stores create their table in it, and databases never see
     * each other's rows.
     */
    final class PostgresSchema implements Database {

        static final String PREFIX = "postgresql:";
        static final String CURRENT_SCHEMA = "currentSchema=";
        private static final AtomicInteger SCHEMAS = new AtomicInteger();
        /** PostgreSQL's limit on the length of an identifier. */
        private static final int MAX_IDENTIFIER = 63;

        private final String serverUrl;
        private final String schema;
        private Connection shared;

        /**
         * @param serverUrl the server's JDBC URL, without {@code currentSchema}
         * @param schema the schema's name
         */
        public PostgresSchema(String serverUrl, String schema) {
            this.serverUrl = Objects.requireNonNull(serverUrl, "serverUrl");
            this.schema = Objects.requireNonNull(schema, "schema");
        }

        /**
         * Creates a new, empty schema on the server, named {@code <prefix>_<pid>_<n>_<label>}: unique
         * among the processes that run at the same time. A schema of that name can only be a
         * leftover of a process that died with the same pid, so it is dropped first.
         *
         * @throws IllegalStateException naming the server (without its password) if it fails
         */
        public static PostgresSchema create(String serverUrl, String prefix, String label) {
            Objects.requireNonNull(serverUrl, "serverUrl");
            String name = (prefix + "_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet()
                    + (label.isEmpty() ? "" : "_" + label)).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]+", "_");
            name = name.substring(0, Math.min(name.length(), MAX_IDENTIFIER));
            try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
                s.execute("CREATE SCHEMA " + name);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create schema " + name + " on "
                        + PostgresLeaseStore.redact(serverUrl) + ": " + e.getMessage(), e);
            }
            return new PostgresSchema(serverUrl, name);
        }

        /** The server's URL, without {@code currentSchema}. */
        public String serverUrl() {
            return serverUrl;
        }

        /** The schema's name. */
        public String schema() {
            return schema;
        }

        /** The URL that stores and plain connections open: the server's, with this schema as the search path. */
        public String url() {
            return serverUrl + (serverUrl.contains("?") ? "&" : "?") + CURRENT_SCHEMA + schema;
        }

        @Override
        public Engine engine() {
            return Engine.POSTGRESQL;
        }

        @Override
        public Connection connect() throws SQLException {
            return DriverManager.getConnection(url());
        }

        @Override
        public synchronized <T> T withConnection(ConnectionWork<T> work) throws SQLException {
            if (shared == null || shared.isClosed()) {
                shared = connect();
            }
            return work.run(shared);
        }

        @Override
        public String label() {
            return CURRENT_SCHEMA + schema;
        }

        @Override
        public String argument() {
            return PREFIX + url();
        }

        @Override
        public String integrityCheck() {
            try (Connection c = connect(); Statement s = c.createStatement();
                    ResultSet row = s.executeQuery("SELECT count(*) FROM jobs")) {
                row.next();
                return "ok";
            } catch (SQLException e) {
                return "failed: " + e.getMessage();
            }
        }

        @Override
        public synchronized void drop() {
            try {
                // On the connection this database may already hold: a new one costs the server a process.
                withConnection(c -> {
                    try (Statement s = c.createStatement()) {
                        s.setQueryTimeout(30);
                        return s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                    }
                });
            } catch (SQLException e) {
                System.err.println("could not drop schema " + schema + " on " + PostgresLeaseStore.redact(serverUrl)
                        + ": " + e.getMessage());
            } finally {
                try {
                    if (shared != null) {
                        shared.close();
                    }
                } catch (SQLException e) {
                    // The schema is gone or left behind either way.
                }
                shared = null;
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PostgresSchema other && serverUrl.equals(other.serverUrl) && schema.equals(other.schema);
        }

        @Override
        public int hashCode() {
            return Objects.hash(serverUrl, schema);
        }

        @Override
        public String toString() {
            return "schema " + schema + " of " + PostgresLeaseStore.redact(serverUrl);
        }
    }
}
