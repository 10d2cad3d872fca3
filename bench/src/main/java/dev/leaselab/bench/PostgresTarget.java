package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.PostgresServer;
import dev.leaselab.testkit.PostgresUrl;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The PostgreSQL server that {@link Storage#POSTGRESQL} runs on: the one {@link PostgresUrl} names
 * (the system property {@code leaselab.postgres.url}, else the environment variable
 * {@code LEASELAB_POSTGRES_URL}, which {@code ./with-postgres.sh} sets for the command it wraps), as
 * for the tests and the stress races. JMH's forks inherit the environment; the runner passes the
 * property on to them.
 *
 * <p>Each benchmark trial works in a schema of its own ({@link #createSchema()}), so trials never see
 * each other's rows and a server can be shared with other work.
 */
final class PostgresTarget {

    static final String URL_PROPERTY = PostgresUrl.PROPERTY;
    static final String URL_ENVIRONMENT = PostgresUrl.ENVIRONMENT;
    /** {@code -Dleaselab.postgres=skip}: the tests may run without a server (as in the lease module). */
    static final String MODE_PROPERTY = PostgresServer.MODE_PROPERTY;

    /** How long probing the server may take before the run is refused: a server that takes longer is not fit to measure. */
    private static final int CONNECT_TIMEOUT_SECONDS = 5;
    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    private final PostgresUrl server;
    private final String url;

    private PostgresTarget(PostgresUrl server) {
        this.server = server;
        this.url = server.url();
    }

    /** The server this JVM is given, if any. */
    static Optional<PostgresTarget> configured() {
        return configured(System.getProperty(URL_PROPERTY), System.getenv(URL_ENVIRONMENT));
    }

    /** The server named by the property's value, else the environment variable's; a blank value names none. */
    static Optional<PostgresTarget> configured(String property, String environment) {
        return PostgresUrl.configured(property, environment).map(PostgresTarget::new);
    }

    /** The server of a benchmark fork; without one, the fork cannot run a {@link Storage#POSTGRESQL} trial. */
    static PostgresTarget require() {
        return configured().orElseThrow(() -> new IllegalStateException("storage " + Storage.POSTGRESQL
                + " needs a PostgreSQL server: " + HOW_TO));
    }

    static final String HOW_TO = PostgresUrl.HOW_TO;

    String url() {
        return url;
    }

    /** Where the URL came from, for messages and environment.json. */
    String source() {
        return server.source();
    }

    /** The URL with any password masked: for messages and environment.json. */
    String redactedUrl() {
        return server.redacted();
    }

    /** The URL of one schema: PgJDBC's {@code currentSchema} puts it first in the search path. */
    String schemaUrl(String schema) {
        return new Database.PostgresSchema(url, schema).url();
    }

    /**
     * A plain connection to {@code schema} (or to the database, for null) in autocommit, whose
     * statements the server cancels after {@code statementTimeout}.
     */
    Connection connect(String schema, Duration statementTimeout) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
        properties.setProperty("loginTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
        // Sends a batch of inserts as multi-row statements: the bulk preparation of jobs is not measured.
        properties.setProperty("reWriteBatchedInserts", "true");
        properties.setProperty("ApplicationName", "leaselab-bench");
        Connection c = DriverManager.getConnection(schema == null ? url : schemaUrl(schema), properties);
        try (Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = " + statementTimeout.toMillis());
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /**
     * Creates a new, empty schema: {@code bench_<pid>_<n>}, unique among the processes that run at
     * the same time. A schema of that name can only be a leftover of a process that died with the
     * same pid, so it is dropped first.
     */
    String createSchema() {
        String schema = "bench_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
        admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema);
        return schema;
    }

    /** Drops a schema of {@link #createSchema()} with everything in it. */
    void dropSchema(String schema) {
        admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    private void admin(String sql) {
        try (Connection c = connect(null, BenchDb.SETUP_BUSY_TIMEOUT); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + redactedUrl() + " (from " + source() + "): " + sql
                    + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Connects and reads the settings that decide what a commit costs, for environment.json and
     * the report's header.
     *
     * @throws IllegalArgumentException if the server does not answer: a server that was asked for
     *     and cannot be measured is an error, not a reason to quietly measure less
     */
    Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("measured", true);
        m.put("url", redactedUrl());
        m.put("source", source());
        try (Connection c = connect(null, Duration.ofSeconds(CONNECT_TIMEOUT_SECONDS)); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT current_setting('server_version'), current_setting('fsync'), "
                     + "current_setting('synchronous_commit'), current_setting('max_connections')")) {
            r.next();
            m.put("serverVersion", r.getString(1));
            m.put("fsync", r.getString(2));
            m.put("synchronousCommit", r.getString(3));
            m.put("maxConnections", r.getString(4));
            m.put("jdbcDriverVersion", c.getMetaData().getDriverVersion());
        } catch (SQLException e) {
            throw new IllegalArgumentException("PostgreSQL at " + redactedUrl() + " (from " + source()
                    + ") does not answer: " + e.getMessage() + ". Start the server, fix the URL, or unset "
                    + URL_ENVIRONMENT + " and -D" + URL_PROPERTY + " to run without PostgreSQL", e);
        }
        Storage pg = Storage.POSTGRESQL;
        m.put("statementTimeoutMillis", pg.postgresOptions().statementTimeout().toMillis());
        m.put("poolSize", pg.postgresOptions().poolSize());
        return m;
    }

    /**
     * What a run does about PostgreSQL.
     *
     * @param profile the profile to run: without PostgreSQL steps when there is no server
     * @param record the {@code postgresql} entry of environment.json
     * @param banner the loud warning to print on stderr, or null
     */
    record Plan(Profile profile, Map<String, Object> record, String banner) {}

    /**
     * Decides what a run does about PostgreSQL. Without a server, its steps are dropped and the
     * plan carries a banner; a server that is named but does not answer is an error before
     * anything runs ({@code contact}; a dry run does not contact it).
     *
     * @throws IllegalArgumentException if the server does not answer, or if no server is named and
     *     the profile (after its filters) holds nothing but PostgreSQL steps
     */
    static Plan plan(Profile profile, Optional<PostgresTarget> target, boolean contact) {
        int pgForks = profile.forkRuns(Engine.POSTGRESQL);
        int pgProcessRuns = profile.onlyEngine(Engine.POSTGRESQL).multiProcess().stream().mapToInt(m -> m.storages().size()).sum();
        Map<String, Object> record = new LinkedHashMap<>();
        if (pgForks == 0 && pgProcessRuns == 0) {
            record.put("measured", false);
            record.put("reason", "the profile, as filtered, has no PostgreSQL step");
            return new Plan(profile, record, null);
        }
        if (target.isEmpty()) {
            Profile sqliteOnly = profile.onlyEngine(Engine.SQLITE);
            String reason = "no server: neither -D" + URL_PROPERTY + " nor " + URL_ENVIRONMENT + " is set; "
                    + pgForks + " PostgreSQL forks" + (pgProcessRuns == 0 ? "" : " and its multi-process runs") + " dropped";
            if (sqliteOnly.steps().isEmpty() && sqliteOnly.openLoops().isEmpty() && sqliteOnly.multiProcess().isEmpty()) {
                throw new IllegalArgumentException("nothing to run: the filters left only PostgreSQL steps, and there is "
                        + reason + ". To measure PostgreSQL, " + HOW_TO);
            }
            record.put("measured", false);
            record.put("reason", reason);
            record.put("droppedForks", pgForks);
            record.put("droppedProcessRuns", pgProcessRuns);
            return new Plan(sqliteOnly, record, banner("PostgreSQL NOT measured: " + reason + ".",
                    "To measure it, " + HOW_TO + "."));
        }
        if (!contact) {
            record.put("measured", true);
            record.put("url", target.get().redactedUrl());
            record.put("source", target.get().source());
            record.put("note", "not contacted (dry run)");
            return new Plan(profile, record, null);
        }
        return new Plan(profile, target.get().describe(), null);
    }

    static String banner(String... lines) {
        String rule = "!".repeat(100);
        StringBuilder b = new StringBuilder("\n").append(rule).append('\n');
        for (String line : lines) {
            b.append("!! ").append(line).append('\n');
        }
        return b.append(rule).append('\n').toString();
    }
}
