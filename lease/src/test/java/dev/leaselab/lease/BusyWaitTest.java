package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.StoreOptions.BusyWait;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.sqlite.BusyHandler;
import org.sqlite.SQLiteConfig;

/**
 * Both busy waits keep the busy timeout's two promises, checked on a real file with a second
 * connection holding the write lock: a writer waits for a lock that is released within the
 * timeout, and a writer shut out for longer gives up with {@code SQLITE_BUSY} (which the store
 * turns into a {@link LeaseStoreException}). The two checks are functions that return what went
 * wrong, so that they are also run against two broken handlers, one that gives up at once and one
 * that waits forever, and must catch each of them.
 */
class BusyWaitTest {

    /** How long the holder keeps the lock in the "released in time" check: well within the timeout. */
    private static final Duration HELD = Duration.ofMillis(300);
    private static final Duration LONG_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration SHORT_TIMEOUT = Duration.ofMillis(200);
    /** How long the "gives up" check waits for the writer to give up before it calls it stuck. */
    private static final Duration STUCK = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    /** Installs a way of waiting on a fresh connection. */
    interface Waiting {
        void install(Connection connection, Duration busyTimeout) throws SQLException;
    }

    /** Wrong ways of waiting: each must fail one of the checks. */
    enum BrokenWait implements Waiting {
        /** Never waits: the first busy answer is the last. */
        GIVES_UP_AT_ONCE {
            @Override
            public void install(Connection connection, Duration busyTimeout) throws SQLException {
                BusyHandler.setHandler(connection, new BusyHandler() {
                    @Override
                    protected int callback(int previousCalls) {
                        return 0;
                    }
                });
            }
        },
        /** Ignores the timeout: retries every millisecond for as long as the lock is held. */
        WAITS_FOREVER {
            @Override
            public void install(Connection connection, Duration busyTimeout) throws SQLException {
                BusyHandler.setHandler(connection, new BusyHandler() {
                    @Override
                    protected int callback(int previousCalls) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                        return 1;
                    }
                });
            }
        }
    }

    private Connection open(Path file) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        return config.createConnection("jdbc:sqlite:" + file);
    }

    private Path database() throws SQLException {
        Path file = dir.resolve("busy.db");
        try (Connection c = open(file); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS t (x INTEGER)");
        }
        return file;
    }

    /**
     * Another connection holds the write lock for {@link #HELD}; a writer that waits the given way
     * with a long timeout must get the lock. Returns null if it did, else what happened.
     */
    private String waitsForALockReleasedInTime(Waiting waiting) throws Exception {
        Path file = database();
        try (Connection holder = open(file); Statement h = holder.createStatement();
             Connection writer = open(file); Statement w = writer.createStatement()) {
            waiting.install(writer, LONG_TIMEOUT);
            h.execute("BEGIN IMMEDIATE");
            CompletableFuture<Void> release = CompletableFuture.runAsync(() -> {
                LockSupport.parkNanos(HELD.toNanos());
                try {
                    h.execute("COMMIT");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            try {
                w.execute("BEGIN IMMEDIATE");
                w.execute("INSERT INTO t VALUES (1)");
                w.execute("COMMIT");
                return null;
            } catch (SQLException e) {
                return "gave up on a lock released after " + HELD.toMillis() + " ms with a " + LONG_TIMEOUT.toSeconds()
                        + " s timeout: " + e.getMessage();
            } finally {
                release.get(STUCK.toSeconds(), TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Another connection holds the write lock for good; a writer that waits the given way with a
     * short timeout must give up with {@code SQLITE_BUSY} (within {@link #STUCK}, a bound far
     * beyond the timeout that only a writer that ignores it reaches). Returns null if it did.
     */
    private String givesUpOnceTheTimeoutIsSpent(Waiting waiting) throws Exception {
        Path file = database();
        try (Connection holder = open(file); Statement h = holder.createStatement();
             Connection writer = open(file)) {
            waiting.install(writer, SHORT_TIMEOUT);
            h.execute("BEGIN IMMEDIATE");
            CompletableFuture<SQLException> attempt = CompletableFuture.supplyAsync(() -> {
                try (Statement w = writer.createStatement()) {
                    w.execute("BEGIN IMMEDIATE");
                    w.execute("ROLLBACK");
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            try {
                SQLException e = attempt.get(STUCK.toSeconds(), TimeUnit.SECONDS);
                if (e == null) {
                    return "got a lock that was never released";
                }
                return Session.isBusy(e) ? null : "failed, but not with SQLITE_BUSY: " + e.getMessage();
            } catch (TimeoutException stuck) {
                return "still waiting " + STUCK.toSeconds() + " s into a " + SHORT_TIMEOUT.toMillis() + " ms timeout";
            } finally {
                // Lets a writer that waits forever through, so that the connections can close.
                h.execute("ROLLBACK");
                try {
                    attempt.get(STUCK.toSeconds(), TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException ignored) {
                    // already reported above
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(BusyWait.class)
    void aWriterWaitsForALockReleasedWithinTheTimeout(BusyWait wait) throws Exception {
        assertNull(waitsForALockReleasedInTime(wait::install));
    }

    @ParameterizedTest
    @EnumSource(BusyWait.class)
    void aWriterShutOutPastTheTimeoutGivesUpWithBusy(BusyWait wait) throws Exception {
        assertNull(givesUpOnceTheTimeoutIsSpent(wait::install));
    }

    /**
     * The jittered wait at the ends of its longest sleep's range keeps both promises: at 50 µs it
     * still waits the whole timeout, at 1 s it still gives up when the timeout (200 ms) is spent.
     */
    @ParameterizedTest
    @ValueSource(longs = {50_000, 1_000_000_000})
    void theJitteredWaitKeepsThePromisesAtEitherEndOfItsLongestSleep(long longestSleepNanos) throws Exception {
        StoreOptions jittered = StoreOptions.defaults().withLongestBusySleep(Duration.ofNanos(longestSleepNanos));
        Waiting waiting = (connection, busyTimeout) -> jittered.withBusyTimeout(busyTimeout).installBusyWait(connection);
        assertNull(waitsForALockReleasedInTime(waiting));
        assertNull(givesUpOnceTheTimeoutIsSpent(waiting));
    }

    @Test
    void aHandlerThatGivesUpAtOnceIsCaught() throws Exception {
        String verdict = waitsForALockReleasedInTime(BrokenWait.GIVES_UP_AT_ONCE);
        assertTrue(verdict != null && verdict.startsWith("gave up on a lock released after"), String.valueOf(verdict));
    }

    @Test
    void aHandlerThatWaitsForeverIsCaught() throws Exception {
        String verdict = givesUpOnceTheTimeoutIsSpent(BrokenWait.WAITS_FOREVER);
        assertTrue(verdict != null && verdict.startsWith("still waiting"), String.valueOf(verdict));
    }

    @ParameterizedTest
    @EnumSource(BusyWait.class)
    void aStoreShutOutPastTheTimeoutFailsAndChangesNothing(BusyWait wait) throws Exception {
        Path file = dir.resolve("store.db");
        StoreOptions options = StoreOptions.defaults().withBusyTimeout(SHORT_TIMEOUT).withBusyWait(wait);
        try (SqliteLeaseStore store = SqliteLeaseStore.open(file, LockingStrategy.CONDITIONAL_UPDATE, options)) {
            store.enqueue("j");
            try (Connection holder = DriverManager.getConnection("jdbc:sqlite:" + file);
                 Statement h = holder.createStatement()) {
                h.execute("BEGIN IMMEDIATE");
                LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> store.claim("j", "A", 100, 30));
                assertTrue(e.getCause() instanceof SQLException s && Session.isBusy(s), String.valueOf(e.getCause()));
                h.execute("ROLLBACK");
            }
            assertEquals(0, store.state("j").orElseThrow().fence());
            assertEquals(java.util.OptionalLong.of(1), store.claim("j", "A", 100, 30));
        }
    }

    @Test
    void theOptionIsRequiredAndInstallNamesItsArguments() throws Exception {
        StoreOptions defaults = StoreOptions.defaults();
        // The default since issue 17's measurements: no writer waited out the timeout, fairer, shorter tails across processes.
        assertEquals(BusyWait.JITTERED, defaults.busyWait());
        assertEquals("busyWait", assertThrows(NullPointerException.class, () -> defaults.withBusyWait(null)).getMessage());
        assertEquals("connection", assertThrows(NullPointerException.class,
                () -> BusyWait.JITTERED.install(null, Duration.ofSeconds(1))).getMessage());
        try (Connection c = open(database())) {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> BusyWait.JITTERED.install(c, Duration.ofMillis(-1)))
                    .getMessage().startsWith("busyTimeout "));
        }
        assertEquals("connection", assertThrows(NullPointerException.class, () -> defaults.installBusyWait(null)).getMessage());
        assertEquals(List.of(BusyWait.SQLITE_SLEEPS, BusyWait.JITTERED), List.of(BusyWait.values()));
    }
}
