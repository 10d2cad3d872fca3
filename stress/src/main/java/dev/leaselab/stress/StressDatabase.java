package dev.leaselab.stress;

import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.PostgresOptions;
import dev.leaselab.lease.StoreOptions;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The database one race runs on: a SQLite file, or a schema of its own on a PostgreSQL server. The
 * drivers open the store under test on it, and read its rows back with plain JDBC, not through a
 * store, so that what the checker sees does not depend on the code under test.
 *
 * <p>The PostgreSQL server is the one named by {@code -Dleaselab.postgres.url} or by the
 * environment variable {@code LEASELAB_POSTGRES_URL} (which {@code ./with-postgres.sh} sets), the
 * same names the lease module's tests read.
 */
public sealed interface StressDatabase
        permits StressDatabase.SqliteFile, StressDatabase.PostgresSchema {

    /** The system property naming the PostgreSQL server. */
    String URL_PROPERTY = "leaselab.postgres.url";
    /** The environment variable naming the PostgreSQL server. */
    String URL_ENVIRONMENT = "LEASELAB_POSTGRES_URL";

    /** The PostgreSQL server's JDBC URL, if one is configured. */
    static Optional<String> postgresUrl() {
        String url = System.getProperty(URL_PROPERTY, System.getenv().getOrDefault(URL_ENVIRONMENT, "")).strip();
        return url.isEmpty() ? Optional.empty() : Optional.of(url);
    }

    /**
     * The configured PostgreSQL server's URL, after checking that it answers.
     *
     * @throws IllegalArgumentException saying how to configure one, when none is or it does not answer
     */
    static String requirePostgres() {
        String url = postgresUrl().orElseThrow(() -> new IllegalArgumentException(
                "the PostgreSQL strategies need a server: run through ./with-postgres.sh, or set "
                        + URL_ENVIRONMENT + " (or -D" + URL_PROPERTY + ") to jdbc:postgresql://HOST:PORT/DB?user=USER, "
                        + "or test SQLite only with --engine sqlite"));
        try (Connection c = DriverManager.getConnection(url)) {
            return url;
        } catch (SQLException e) {
            throw new IllegalArgumentException("the PostgreSQL server " + redact(url) + " does not answer: "
                    + e.getMessage(), e);
        }
    }

    /**
     * A new, empty database for {@code sut}: the SQLite file {@code sqliteFile}, or a new schema on
     * the PostgreSQL server named after that file.
     */
    static StressDatabase create(StoreUnderTest sut, Path sqliteFile) {
        Objects.requireNonNull(sut, "sut");
        Objects.requireNonNull(sqliteFile, "sqliteFile");
        return switch (sut.engine()) {
            case SQLITE -> new SqliteFile(sqliteFile);
            case POSTGRESQL -> PostgresSchema.create(requirePostgres(), sqliteFile.getFileName().toString());
        };
    }

    /**
     * The database an {@link #argument()} names, for a worker process.
     *
     * @throws IllegalArgumentException if the argument names none
     */
    static StressDatabase parse(String argument) {
        Objects.requireNonNull(argument, "argument");
        if (argument.startsWith(PostgresSchema.PREFIX)) {
            String url = argument.substring(PostgresSchema.PREFIX.length());
            int at = url.lastIndexOf("currentSchema=");
            if (at < 0) {
                throw new IllegalArgumentException("a PostgreSQL database argument needs currentSchema: " + argument);
            }
            return new PostgresSchema(url.substring(0, at - 1), url.substring(at + "currentSchema=".length()));
        }
        if (argument.isBlank()) {
            throw new IllegalArgumentException("database argument must name a file or a PostgreSQL schema");
        }
        return new SqliteFile(Path.of(argument));
    }

    /** The engine of this database. */
    Engine engine();

    /** Opens {@code sut} on this database with at most {@code poolSize} connections. */
    LeaseStore open(StoreUnderTest sut, int poolSize);

    /** Every row of the {@code jobs} table, by id. */
    Map<String, JobState> rows();

    /**
     * "ok" when the database is sound after the race: SQLite's {@code PRAGMA integrity_check}; on
     * PostgreSQL, whose server outlives any client that is killed, that the table can be read.
     */
    String integrityCheck();

    /** How a worker process is told which database to use ({@link #parse}). */
    String argument();

    /**
     * Drops a PostgreSQL schema with its table, once the race is judged; a SQLite file stays for
     * inspection. Only the driver that created the database drops it, never a worker.
     */
    void drop();

    /** A SQLite database file. */
    record SqliteFile(Path file) implements StressDatabase {

        @Override
        public Engine engine() {
            return Engine.SQLITE;
        }

        @Override
        public LeaseStore open(StoreUnderTest sut, int poolSize) {
            return sut.open(file, StoreOptions.defaults().withPoolSize(poolSize));
        }

        @Override
        public Map<String, JobState> rows() {
            try (Connection c = connect()) {
                return readRows(c);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read the jobs of " + file + ": " + e.getMessage(), e);
            }
        }

        @Override
        public String integrityCheck() {
            try (Connection c = connect();
                    Statement s = c.createStatement();
                    ResultSet row = s.executeQuery("PRAGMA integrity_check")) {
                StringBuilder answer = new StringBuilder();
                while (row.next()) {
                    answer.append(answer.length() == 0 ? "" : "; ").append(row.getString(1));
                }
                return answer.toString();
            } catch (SQLException e) {
                return "failed: " + e.getMessage();
            }
        }

        @Override
        public String argument() {
            return file.toString();
        }

        @Override
        public void drop() {
        }

        private Connection connect() throws SQLException {
            return DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
        }
    }

    /**
     * A schema of its own on a PostgreSQL server, which the URL's {@code currentSchema} makes the
     * store's search path: races never see each other's tables.
     *
     * @param serverUrl the server's URL, without {@code currentSchema}
     * @param schema the schema's name
     */
    record PostgresSchema(String serverUrl, String schema) implements StressDatabase {

        static final String PREFIX = "postgresql:";
        private static final AtomicInteger SCHEMAS = new AtomicInteger();

        static PostgresSchema create(String serverUrl, String label) {
            String schema = ("stress_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet() + "_"
                    + label.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_"));
            schema = schema.substring(0, Math.min(schema.length(), 63));  // PostgreSQL's identifier limit
            try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA " + schema);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create schema " + schema + " on " + redact(serverUrl) + ": "
                        + e.getMessage(), e);
            }
            return new PostgresSchema(serverUrl, schema);
        }

        @Override
        public Engine engine() {
            return Engine.POSTGRESQL;
        }

        /** The URL of this schema, which stores and plain connections use. */
        public String url() {
            return serverUrl + (serverUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        }

        @Override
        public LeaseStore open(StoreUnderTest sut, int poolSize) {
            return sut.open(url(), PostgresOptions.defaults().withPoolSize(poolSize));
        }

        @Override
        public Map<String, JobState> rows() {
            try (Connection c = DriverManager.getConnection(url())) {
                return readRows(c);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read the jobs of schema " + schema + ": " + e.getMessage(), e);
            }
        }

        @Override
        public String integrityCheck() {
            try (Connection c = DriverManager.getConnection(url());
                    Statement s = c.createStatement();
                    ResultSet row = s.executeQuery("SELECT count(*) FROM jobs")) {
                row.next();
                return "ok";
            } catch (SQLException e) {
                return "failed: " + e.getMessage();
            }
        }

        @Override
        public String argument() {
            return PREFIX + url();
        }

        @Override
        public void drop() {
            try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            } catch (SQLException e) {
                // Left behind on the throwaway server; the race's verdict does not depend on it.
                System.err.println("could not drop schema " + schema + ": " + e.getMessage());
            }
        }
    }

    private static Map<String, JobState> readRows(Connection c) throws SQLException {
        Map<String, JobState> rows = new LinkedHashMap<>();
        try (Statement s = c.createStatement();
                ResultSet row = s.executeQuery("SELECT id, owner, until, fence, result, done FROM jobs")) {
            while (row.next()) {
                rows.put(row.getString(1), new JobState(row.getString(1), row.getString(2), row.getDouble(3),
                        row.getLong(4), row.getString(5), row.getInt(6) != 0));
            }
        }
        return rows;
    }

    /** The URL without its password, for messages. */
    private static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***");
    }
}
