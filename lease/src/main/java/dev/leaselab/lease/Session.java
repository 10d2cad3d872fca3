package dev.leaselab.lease;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One connection with its prepared statements, used by one thread at a time (a pool lends it out).
 *
 * <p>On SQLite, statements are prepared once per connection and kept, because preparing costs about
 * as much as running the small statements of this store, and the statements keep SQLite's numbered
 * parameters. On PostgreSQL a session lives for one borrowed connection of the pool (HikariCP closes
 * a connection's statements when it goes back; PgJDBC keeps the server-side prepared statements
 * itself), and every statement is first translated by {@link PositionalSql}.
 */
final class Session implements AutoCloseable {

    /** SQLite's primary result code for "the database is locked". */
    private static final int SQLITE_BUSY = 5;

    /** How the numbered parameters of {@link LeaseSql} reach the driver. */
    enum Parameters {
        /** The driver reads {@code ?N} itself (SQLite). */
        NUMBERED,
        /** The driver only knows {@code ?} (PgJDBC): statements go through {@link PositionalSql}. */
        POSITIONAL
    }

    private final Connection connection;
    private final Parameters parameters;
    private final Map<String, Prepared> statements = new HashMap<>();
    private boolean broken;

    /**
     * @param arguments for each placeholder of the statement, in order, the index of the
     *     operation's argument that goes there
     */
    private record Prepared(PreparedStatement statement, int[] arguments) {}

    /** A SQLite session: numbered parameters. */
    Session(Connection connection) {
        this(connection, Parameters.NUMBERED);
    }

    Session(Connection connection, Parameters parameters) {
        this.connection = connection;
        this.parameters = parameters;
    }

    Connection connection() {
        return connection;
    }

    /** Runs a statement, such as {@code BEGIN IMMEDIATE}, a pragma or a lock function, and ignores its result. */
    void execute(String sql, Object... parameters) throws SQLException {
        bind(sql, parameters).execute();
    }

    /** Runs an {@code INSERT}, {@code UPDATE} or {@code DELETE}; returns the number of rows changed. */
    int update(String sql, Object... parameters) throws SQLException {
        return bind(sql, parameters).executeUpdate();
    }

    /**
     * Runs one {@code UPDATE} once per argument list, as one JDBC batch: PgJDBC sends the whole
     * batch in one round trip instead of one per statement. Returns the rows each run changed.
     */
    int[] updateEach(String sql, List<Object[]> argumentLists) throws SQLException {
        PreparedStatement statement = prepare(sql).statement();
        try {
            for (Object[] arguments : argumentLists) {
                bind(sql, arguments).addBatch();
            }
            return statement.executeBatch();
        } catch (SQLException | RuntimeException e) {
            // The statement stays cached: a batch left half-built would run with the next one.
            try {
                statement.clearBatch();
            } catch (SQLException notCleared) {
                // The caller needs the batch's own error; a connection that cannot even clear a
                // batch goes no further than this operation.
                e.addSuppressed(notCleared);
                broken = true;
            }
            throw e;
        }
    }

    /** Whether the query finds a row. */
    boolean exists(String sql, Object... parameters) throws SQLException {
        try (ResultSet rows = bind(sql, parameters).executeQuery()) {
            return rows.next();
        }
    }

    /**
     * Runs a query (or a statement with {@code RETURNING}) and reads the first column of its first
     * row. The rows are read to the end and closed before returning: until then SQLite keeps the
     * write lock of a {@code RETURNING} statement, and only a statement that runs to its end lets
     * SQLite checkpoint the WAL after an autocommit. One that is merely reset still commits but
     * never checkpoints, and a stream of claims alone grew the WAL by a page per claim, without
     * bound (1 GB after 250,000 claims, and claims about a quarter slower as it grew).
     */
    OptionalLong firstLong(String sql, Object... parameters) throws SQLException {
        try (ResultSet rows = bind(sql, parameters).executeQuery()) {
            OptionalLong first = rows.next() ? OptionalLong.of(rows.getLong(1)) : OptionalLong.empty();
            while (rows.next()) {
                // the statement must run to its end; see above
            }
            return first;
        }
    }

    /** Runs a query and reads the first column of every row as text, to the end. */
    List<String> strings(String sql, Object... parameters) throws SQLException {
        try (ResultSet rows = bind(sql, parameters).executeQuery()) {
            List<String> values = new ArrayList<>();
            while (rows.next()) {
                values.add(rows.getString(1));
            }
            return values;
        }
    }

    /** Runs a query and reads the first column of its first row as a boolean; false when there is no row. */
    boolean firstBoolean(String sql, Object... parameters) throws SQLException {
        try (ResultSet rows = bind(sql, parameters).executeQuery()) {
            return rows.next() && rows.getBoolean(1);
        }
    }

    /** Opens the statement's rows; the caller closes them. */
    ResultSet query(String sql, Object... parameters) throws SQLException {
        return bind(sql, parameters).executeQuery();
    }

    /**
     * Ends a transaction that failed. A transaction that SQLite has already rolled back by itself
     * is fine; a rollback that fails for another reason marks this connection as unusable.
     */
    void rollbackQuietly() {
        // Not a cached statement: once a prepared ROLLBACK has failed with "no transaction is
        // active", sqlite-jdbc fails its next run too, inside a transaction, which then retired the
        // connection (SessionTest). Rollbacks are rare enough to prepare each time.
        try (Statement rollback = connection.createStatement()) {
            rollback.execute("ROLLBACK");
        } catch (SQLException e) {
            if (e.getMessage() == null || !e.getMessage().contains("no transaction is active")) {
                broken = true;
            }
        }
    }

    /** Whether this connection may go back to the pool. */
    boolean reusable() {
        return !broken;
    }

    static boolean isBusy(SQLException e) {
        return (e.getErrorCode() & 0xFF) == SQLITE_BUSY;
    }

    /**
     * Opens a transaction through JDBC rather than with a {@code BEGIN} statement: PgJDBC then sends
     * {@code BEGIN} together with the first statement, which saves a round trip, and the pool
     * knows that a transaction may be open.
     */
    void beginTransaction() throws SQLException {
        connection.setAutoCommit(false);
    }

    /** Statements run on a session, as one piece of work. */
    interface Work<T> {
        T run() throws SQLException;
    }

    /**
     * Runs the work in a transaction of {@link #beginTransaction()}: commits it when the work
     * returns, rolls it back ({@link #rollbackTransactionQuietly()}) and throws on when it throws.
     */
    <T> T inTransaction(Work<T> work) throws SQLException {
        beginTransaction();
        try {
            T result = work.run();
            commitTransaction();
            return result;
        } catch (SQLException | RuntimeException e) {
            rollbackTransactionQuietly();
            throw e;
        }
    }

    /** Commits the transaction of {@link #beginTransaction()} and goes back to autocommit. */
    void commitTransaction() throws SQLException {
        connection.commit();
        connection.setAutoCommit(true);
    }

    /**
     * Ends a transaction of {@link #beginTransaction()} that failed. If even the rollback fails
     * (the server is gone, the backend was terminated), the connection is marked unusable, so the
     * pool drops it instead of lending out a connection in an unknown state.
     */
    void rollbackTransactionQuietly() {
        try {
            connection.rollback();
            connection.setAutoCommit(true);
        } catch (SQLException e) {
            broken = true;
        }
    }

    private PreparedStatement bind(String sql, Object[] arguments) throws SQLException {
        Prepared prepared = prepare(sql);
        PreparedStatement statement = prepared.statement();
        int[] order = prepared.arguments();
        for (int i = 0; i < order.length; i++) {
            if (order[i] >= arguments.length) {
                throw new SQLException("the statement uses ?" + (order[i] + 1) + " but the operation has "
                        + arguments.length + " parameters: " + sql);
            }
            statement.setObject(i + 1, arguments[order[i]]);
        }
        return statement;
    }

    private Prepared prepare(String sql) throws SQLException {
        Prepared prepared = statements.get(sql);
        if (prepared == null) {
            prepared = parameters == Parameters.NUMBERED ? prepareNumbered(sql) : preparePositional(sql);
            statements.put(sql, prepared);
        }
        return prepared;
    }

    private Prepared prepareNumbered(String sql) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        // Fragments may leave out some of an operation's numbered parameters; SQLite only knows
        // the slots up to the highest number that the statement uses, and slot N takes argument N.
        int count = statement.getParameterMetaData().getParameterCount();
        int[] arguments = new int[count];
        for (int i = 0; i < count; i++) {
            arguments[i] = i;
        }
        return new Prepared(statement, arguments);
    }

    private Prepared preparePositional(String sql) throws SQLException {
        PositionalSql positional;
        try {
            positional = PositionalSql.of(sql);
        } catch (IllegalArgumentException e) {
            throw new SQLException(e.getMessage(), e);
        }
        return new Prepared(connection.prepareStatement(positional.sql()), positional.arguments());
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException ignored) {
            // Closing is best effort: the connection is gone either way.
        }
    }
}
