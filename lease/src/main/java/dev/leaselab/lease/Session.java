package dev.leaselab.lease;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One SQLite connection with its prepared statements, used by one thread at a time (the pool
 * lends it out). Statements are prepared once per connection and kept, because preparing costs
 * about as much as running the small statements of this store.
 */
final class Session implements AutoCloseable {

    /** SQLite's primary result code for "the database is locked". */
    private static final int SQLITE_BUSY = 5;

    private final Connection connection;
    private final Map<String, Prepared> statements = new HashMap<>();
    private boolean broken;

    private record Prepared(PreparedStatement statement, int parameterCount) {}

    Session(Connection connection) {
        this.connection = connection;
    }

    Connection connection() {
        return connection;
    }

    /** Runs a statement with no result, such as {@code BEGIN IMMEDIATE} or a pragma. */
    void execute(String sql) throws SQLException {
        prepare(sql).statement().execute();
    }

    /** Runs an {@code INSERT}, {@code UPDATE} or {@code DELETE}; returns the number of rows changed. */
    int update(String sql, Object... parameters) throws SQLException {
        return bind(sql, parameters).executeUpdate();
    }

    /** Whether the query finds a row. */
    boolean exists(String sql, Object... parameters) throws SQLException {
        try (ResultSet rows = bind(sql, parameters).executeQuery()) {
            return rows.next();
        }
    }

    /**
     * Runs a query (or a statement with {@code RETURNING}) and reads the first column of its first
     * row. The result set is closed before returning: until then SQLite keeps the write lock of a
     * {@code RETURNING} statement.
     */
    OptionalLong firstLong(String sql, Object... parameters) throws SQLException {
        try (ResultSet rows = bind(sql, parameters).executeQuery()) {
            return rows.next() ? OptionalLong.of(rows.getLong(1)) : OptionalLong.empty();
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
        try {
            execute("ROLLBACK");
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

    private PreparedStatement bind(String sql, Object[] parameters) throws SQLException {
        Prepared prepared = prepare(sql);
        PreparedStatement statement = prepared.statement();
        // Fragments may leave out some of an operation's numbered parameters; SQLite only knows
        // the slots up to the highest number that the statement uses.
        int count = Math.min(prepared.parameterCount(), parameters.length);
        for (int i = 0; i < count; i++) {
            statement.setObject(i + 1, parameters[i]);
        }
        return statement;
    }

    private Prepared prepare(String sql) throws SQLException {
        Prepared prepared = statements.get(sql);
        if (prepared == null) {
            PreparedStatement statement = connection.prepareStatement(sql);
            prepared = new Prepared(statement, statement.getParameterMetaData().getParameterCount());
            statements.put(sql, prepared);
        }
        return prepared;
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
