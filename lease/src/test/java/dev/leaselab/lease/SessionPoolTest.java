package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The SQLite store's connections: opened with the store's settings, lent to one operation at a
 * time, kept between operations unless they broke, bounded by the pool size within the busy
 * timeout, and closed with the store. The contract suite only sees the answers of the store;
 * these are the settings and the pool behind them, read back from the connections themselves.
 */
class SessionPoolTest {

    @TempDir
    Path dir;

    private SessionPool pool(StoreOptions options) {
        return new SessionPool(dir.resolve("pool.db"), options);
    }

    @ParameterizedTest
    @EnumSource(StoreOptions.Synchronous.class)
    void aConnectionRunsWithTheSynchronousSettingOfTheOptions(StoreOptions.Synchronous synchronous) throws SQLException {
        SessionPool pool = pool(StoreOptions.defaults().withSynchronous(synchronous));
        // PRAGMA synchronous answers 0 (OFF), 1 (NORMAL), 2 (FULL) or 3 (EXTRA): the enum's order.
        assertEquals(OptionalLong.of(synchronous.ordinal()), pool.withSession(s -> s.firstLong("PRAGMA synchronous")));
        pool.close();
    }

    @ParameterizedTest
    @EnumSource(StoreOptions.JournalMode.class)
    void aConnectionRunsInTheJournalModeOfTheOptions(StoreOptions.JournalMode mode) throws SQLException {
        SessionPool pool = pool(StoreOptions.defaults().withJournalMode(mode));
        assertEquals(List.of(mode.name().toLowerCase()), pool.withSession(s -> s.strings("PRAGMA journal_mode")));
        pool.close();
    }

    @Test
    void sqlitesOwnBusyWaitRunsWithTheBusyTimeoutOfTheOptions() throws SQLException {
        SessionPool pool = pool(StoreOptions.defaults().withBusyTimeout(Duration.ofMillis(1234))
                .withBusyWait(StoreOptions.BusyWait.SQLITE_SLEEPS));
        assertEquals(OptionalLong.of(1234), pool.withSession(s -> s.firstLong("PRAGMA busy_timeout")));
        pool.close();
    }

    @Test
    void theJitteredBusyWaitReplacesSqlitesBusyTimeout() throws SQLException {
        // SQLite's busy_timeout is its own busy handler: installing another one sets it to 0.
        SessionPool pool = pool(StoreOptions.defaults().withBusyTimeout(Duration.ofMillis(1234))
                .withBusyWait(StoreOptions.BusyWait.JITTERED));
        assertEquals(OptionalLong.of(0), pool.withSession(s -> s.firstLong("PRAGMA busy_timeout")));
        pool.close();
    }

    @Test
    void aSessionIsLentAgainAfterItsOperationButOneThatBrokeIsNot() throws SQLException {
        SessionPool pool = pool(StoreOptions.defaults());
        Session first = pool.withSession(s -> s);
        assertSame(first, pool.withSession(s -> s));
        pool.withSession(s -> {
            s.connection().close();
            s.rollbackQuietly();
            return null;
        });
        Session next = pool.withSession(s -> s);
        assertNotSame(first, next);
        assertEquals(OptionalLong.of(1), pool.withSession(s -> s.firstLong("SELECT 1")));
        pool.close();
    }

    @Test
    void aSessionWhoseOperationFailedWithoutBreakingItIsLentAgain() throws SQLException {
        SessionPool pool = pool(StoreOptions.defaults());
        Session first = pool.withSession(s -> s);
        assertThrows(SQLException.class, () -> pool.withSession(s -> s.firstLong("SELECT * FROM no_such_table")));
        assertSame(first, pool.withSession(s -> s));
        pool.close();
    }

    @Test
    void aSessionThatBrokeInAFailedOperationIsNotLentAgain() throws SQLException {
        SessionPool pool = pool(StoreOptions.defaults());
        Session first = pool.withSession(s -> s);
        assertThrows(SQLException.class, () -> pool.withSession(s -> {
            s.connection().close();
            s.rollbackQuietly();
            throw new SQLException("the operation failed");
        }));
        assertNotSame(first, pool.withSession(s -> s));
        pool.close();
    }

    @Test
    void anOperationThatFindsNoFreeConnectionWithinTheBusyTimeoutFailsNamingThePool() throws Exception {
        SessionPool pool = pool(StoreOptions.defaults().withPoolSize(1).withBusyTimeout(Duration.ofMillis(100)));
        LeaseStoreException e = pool.withSession(s -> CompletableFuture.supplyAsync(
                () -> assertThrows(LeaseStoreException.class, () -> pool.withSession(inner -> null))).join());
        assertTrue(e.getMessage().startsWith("no connection to " + dir.resolve("pool.db") + " came free within 100 ms (poolSize 1)"),
                e.getMessage());
        // The permit came back: the pool lends its connection again.
        assertEquals(OptionalLong.of(1), pool.withSession(s -> s.firstLong("SELECT 1")));
        pool.close();
    }

    @Test
    void aZeroBusyTimeoutStillWaitsAMillisecondForAConnection() throws Exception {
        SessionPool pool = pool(StoreOptions.defaults().withPoolSize(1).withBusyTimeout(Duration.ZERO));
        LeaseStoreException e = pool.withSession(s -> CompletableFuture.supplyAsync(
                () -> assertThrows(LeaseStoreException.class, () -> pool.withSession(inner -> null))).join());
        assertTrue(e.getMessage().contains(" came free within 1 ms "), e.getMessage());
        pool.close();
    }

    @Test
    void aWaitForAConnectionThatIsInterruptedFailsAndKeepsTheInterrupt() throws Exception {
        SessionPool pool = pool(StoreOptions.defaults().withPoolSize(1));
        String message = pool.withSession(s -> CompletableFuture.supplyAsync(() -> {
            Thread.currentThread().interrupt();
            LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> pool.withSession(inner -> null));
            assertTrue(Thread.interrupted(), "the interrupt is kept");
            assertTrue(e.getCause() instanceof InterruptedException, String.valueOf(e.getCause()));
            return e.getMessage();
        }).join());
        assertEquals("interrupted while waiting for a connection to " + dir.resolve("pool.db"), message);
        pool.close();
    }

    @Test
    void aClosedPoolRefusesOperationsAndClosesTheConnectionsItLentOnceTheyComeBack() throws Exception {
        SessionPool pool = pool(StoreOptions.defaults());
        Session lent = pool.withSession(s -> {
            // A second connection, opened while the first is lent, and idle when the pool closes.
            Session idle = pool.withSession(inner -> inner);
            assertNotSame(s, idle);
            pool.close();
            assertTrue(idle.connection().isClosed(), "an idle connection closes with the pool");
            assertTrue(!s.connection().isClosed(), "a lent one stays open until its operation ends");
            return s;
        });
        assertTrue(lent.connection().isClosed());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.withSession(s -> null));
        assertEquals("the store on " + dir.resolve("pool.db") + " is closed", e.getMessage());
    }

    @Test
    void anOperationWaitingForAConnectionWhenThePoolClosesIsRefused() throws Exception {
        SessionPool pool = pool(StoreOptions.defaults().withPoolSize(1));
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        AtomicReference<Session> lentAfterClose = new AtomicReference<>();
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
            try {
                pool.withSession(s -> {
                    holding.countDown();
                    try {
                        closed.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return null;
                });
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(holding.await(10, TimeUnit.SECONDS));
        CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(
                () -> assertThrows(IllegalStateException.class, () -> pool.withSession(s -> {
                    lentAfterClose.set(s);
                    return null;
                })));
        // The waiter is parked on the pool's only permit; the pool closes under it.
        Thread.sleep(200);
        pool.close();
        closed.countDown();
        holder.get(10, TimeUnit.SECONDS);
        assertTrue(waiter.get(10, TimeUnit.SECONDS).getMessage().endsWith(" is closed"));
        assertNull(lentAfterClose.get(), "no connection is lent by a closed pool");
    }
}
