package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The connection wrapper under every store, on an in-memory SQLite database: the paths that the
 * contract suite never takes, because every statement of the contract is right (a statement that
 * asks for an argument its operation lacks, a rollback with nothing to roll back, a connection that
 * is gone) and the error codes by which a busy database is told from a failed one.
 */
class SessionTest {

    private Connection connection;
    private Session session;

    @BeforeEach
    void open() throws SQLException {
        connection = DriverManager.getConnection("jdbc:sqlite::memory:");
        session = new Session(connection);
        session.execute("CREATE TABLE t (x INTEGER)");
    }

    @AfterEach
    void close() {
        session.close();
    }

    @Test
    void aStatementThatUsesAnArgumentTheOperationLacksFailsNamingIt() {
        SQLException e = assertThrows(SQLException.class, () -> session.update("INSERT INTO t VALUES (?1 + ?3)", 1, 2));
        assertEquals("the statement uses ?3 but the operation has 2 parameters: INSERT INTO t VALUES (?1 + ?3)", e.getMessage());
    }

    @Test
    void aPositionalStatementThatUsesAnArgumentTheOperationLacksFailsNamingIt() {
        Session positional = new Session(connection, Session.Parameters.POSITIONAL);
        SQLException e = assertThrows(SQLException.class, () -> positional.update("INSERT INTO t VALUES (?2)", 1));
        assertTrue(e.getMessage().startsWith("the statement uses ?2 but the operation has 1 parameters"), e.getMessage());
        // A bare ? is refused by the translation, and reaches the store as a database failure.
        SQLException bare = assertThrows(SQLException.class, () -> positional.update("INSERT INTO t VALUES (?)"));
        assertTrue(bare.getMessage().startsWith("unnumbered parameter"), bare.getMessage());
    }

    @Test
    void everyArgumentAStatementUsesIsBoundAndTheRestAreLeftOut() throws SQLException {
        assertEquals(1, session.update("INSERT INTO t VALUES (?2 * 10 + ?1)", 3, 4));
        Session positional = new Session(connection, Session.Parameters.POSITIONAL);
        assertEquals(1, positional.update("INSERT INTO t VALUES (?3 * 10 + ?3)", 1, 2, 5));
        assertEquals(List.of("43", "55"), session.strings("SELECT x FROM t ORDER BY x"));
    }

    @Test
    void firstLongReadsTheFirstRowOfSeveralOrNothing() throws SQLException {
        session.update("INSERT INTO t VALUES (7), (8), (9)");
        assertEquals(OptionalLong.of(7), session.firstLong("SELECT x FROM t ORDER BY x"));
        assertEquals(OptionalLong.empty(), session.firstLong("SELECT x FROM t WHERE x > ?1", 9));
        assertTrue(session.exists("SELECT 1 FROM t WHERE x = ?1", 8));
        assertFalse(session.exists("SELECT 1 FROM t WHERE x = ?1", 10));
    }

    @Test
    void firstBooleanIsFalseWithoutARowAndTheValueOfTheFirstRowOtherwise() throws SQLException {
        assertFalse(session.firstBoolean("SELECT 1 FROM t"));
        session.update("INSERT INTO t VALUES (0), (1)");
        assertFalse(session.firstBoolean("SELECT x FROM t ORDER BY x"));
        assertTrue(session.firstBoolean("SELECT x FROM t ORDER BY x DESC"));
    }

    @Test
    void aRollbackWithNoTransactionKeepsTheConnectionButOneThatFailsOtherwiseDoesNot() throws SQLException {
        session.execute("BEGIN IMMEDIATE");
        session.update("INSERT INTO t VALUES (1)");
        session.rollbackQuietly();
        assertTrue(session.reusable());
        assertEquals(List.of(), session.strings("SELECT x FROM t"));
        // What SQLite says when it has already rolled the transaction back by itself.
        session.rollbackQuietly();
        assertTrue(session.reusable());

        connection.close();
        session.rollbackQuietly();
        assertFalse(session.reusable());
    }

    @Test
    void aRollbackAfterOneThatFoundNoTransactionStillRollsBack() throws SQLException {
        // SQLite rolls a transaction back by itself after some errors; the store's own ROLLBACK then
        // fails with "no transaction is active", and the next transaction must still roll back.
        session.rollbackQuietly();
        assertTrue(session.reusable());

        session.execute("BEGIN IMMEDIATE");
        session.update("INSERT INTO t VALUES (1)");
        session.rollbackQuietly();

        assertTrue(session.reusable());
        assertEquals(List.of(), session.strings("SELECT x FROM t"));
        assertTrue(connection.getAutoCommit());
    }

    @Test
    void aRollbackThatFailsWithoutAMessageRetiresTheConnection() {
        // A driver may throw an SQLException without a message; only SQLite's own "no transaction
        // is active" keeps the connection.
        Connection refusing = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    throw new SQLException();
                });
        Session failing = new Session(refusing);
        failing.rollbackQuietly();
        assertFalse(failing.reusable());
    }

    @Test
    void aBatchThatFailsAndCannotBeClearedThrowsItsOwnErrorAndRetiresTheConnection() {
        SQLException batchFailed = new SQLException("the batch failed");
        SQLException notCleared = new SQLException("clearBatch failed");
        // The in-memory database's own statements, but for the batch's last two steps.
        Connection failingBatches = delegate(Connection.class, (method, args) -> {
            Object real = method.invoke(connection, args);
            return method.getName().equals("prepareStatement")
                    ? delegate(PreparedStatement.class, (statementMethod, statementArgs) -> switch (statementMethod.getName()) {
                        case "executeBatch" -> throw batchFailed;
                        case "clearBatch" -> throw notCleared;
                        default -> statementMethod.invoke(real, statementArgs);
                    })
                    : real;
        });
        Session failing = new Session(failingBatches);

        SQLException thrown = assertThrows(SQLException.class,
                () -> failing.updateEach("UPDATE t SET x = ?1", List.<Object[]>of(new Object[] {1}, new Object[] {2})));

        assertSame(batchFailed, thrown, "the batch's own error, not the clearBatch's");
        assertArrayEquals(new Throwable[] {notCleared}, thrown.getSuppressed());
        assertFalse(failing.reusable(), "its cached statement may still hold the half-built batch");
    }

    private interface Call {
        Object answer(Method method, Object[] args) throws Throwable;
    }

    /** A {@code type} that answers each call with {@code call}, which may pass it on to a real one. */
    private static <T> T delegate(Class<T> type, Call call) {
        return type.cast(Proxy.newProxyInstance(SessionTest.class.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            try {
                return call.answer(method, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }

    @Test
    void aJdbcTransactionCommitsOrRollsBackAndAFailedRollbackRetiresTheConnection() throws SQLException {
        session.beginTransaction();
        session.update("INSERT INTO t VALUES (1)");
        session.commitTransaction();
        assertTrue(connection.getAutoCommit());
        session.beginTransaction();
        session.update("INSERT INTO t VALUES (2)");
        session.rollbackTransactionQuietly();
        assertTrue(connection.getAutoCommit());
        assertTrue(session.reusable());
        assertEquals(List.of("1"), session.strings("SELECT x FROM t"));

        session.beginTransaction();
        connection.close();
        session.rollbackTransactionQuietly();
        assertFalse(session.reusable());
    }

    @Test
    void busyIsTheErrorCodeFiveWithOrWithoutAnExtendedCode() {
        assertTrue(Session.isBusy(new SQLException("busy", null, 5)));
        // SQLITE_BUSY_SNAPSHOT and SQLITE_BUSY_RECOVERY: extended codes of SQLITE_BUSY.
        assertTrue(Session.isBusy(new SQLException("busy", null, 517)));
        assertTrue(Session.isBusy(new SQLException("busy", null, 261)));
        // SQLITE_LOCKED (6), SQLITE_IOERR_SHORT_READ (522, low byte 10) and no code at all.
        assertFalse(Session.isBusy(new SQLException("locked", null, 6)));
        assertFalse(Session.isBusy(new SQLException("io", null, 522)));
        assertFalse(Session.isBusy(new SQLException("other")));
    }
}
