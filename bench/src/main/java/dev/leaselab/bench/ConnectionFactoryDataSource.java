package dev.leaselab.bench;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} whose connections come from the benchmarks' own connect methods, so that the
 * pool in front of db-scheduler ({@link DbSchedulerDrain}) opens exactly the connections the lease
 * store's benchmarks open: on SQLite {@link Storage#connect(java.nio.file.Path)} (journal mode,
 * {@code synchronous}, 1 s busy timeout, busy wait), on PostgreSQL
 * {@link PostgresTarget#connect} (1 s statement timeout). HikariCP only ever calls
 * {@link #getConnection()}.
 */
final class ConnectionFactoryDataSource implements DataSource {

    /** Opens one new connection. */
    @FunctionalInterface
    interface Factory {
        Connection open() throws SQLException;
    }

    private final Factory factory;
    private PrintWriter logWriter;
    private int loginTimeoutSeconds;

    ConnectionFactoryDataSource(Factory factory) {
        this.factory = factory;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return factory.open();
    }

    /** The factory's connections carry their own credentials (a file, or the URL's user). */
    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("the benchmark's connections take no user or password");
    }

    @Override
    public PrintWriter getLogWriter() {
        return logWriter;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        logWriter = out;
    }

    @Override
    public void setLoginTimeout(int seconds) {
        loginTimeoutSeconds = seconds;
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeoutSeconds;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no java.util.logging here");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
