package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The edges of the options' ranges: the last value inside each range is taken as given, the first
 * one outside is refused by name. The error tests of each engine check values far outside; an
 * off-by-one in a bound only shows here.
 */
class OptionsBoundariesTest {

    private static final Duration LONGEST = Duration.ofMillis(Integer.MAX_VALUE);
    private static final Duration TOO_LONG = LONGEST.plusMillis(1);
    /** Past what {@link Duration#toMillis()} can return: a range check that converts first overflows. */
    private static final Duration HUGE = Duration.ofSeconds(Long.MAX_VALUE);

    @Test
    void sqliteOptionsTakeOneConnectionAndBusyTimeoutsFromZeroToIntMaxMilliseconds() {
        StoreOptions defaults = StoreOptions.defaults();
        assertEquals(1, defaults.withPoolSize(1).poolSize());
        assertEquals("poolSize must be at least 1: 0",
                assertThrows(IllegalArgumentException.class, () -> defaults.withPoolSize(0)).getMessage());
        assertEquals(Duration.ZERO, defaults.withBusyTimeout(Duration.ZERO).busyTimeout());
        assertEquals(LONGEST, defaults.withBusyTimeout(LONGEST).busyTimeout());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> defaults.withBusyTimeout(TOO_LONG))
                .getMessage().startsWith("busyTimeout must be between 0 and 2147483647 ms"));
        assertEquals("busyTimeout", assertThrows(NullPointerException.class, () -> defaults.withBusyTimeout(null)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> defaults.withBusyTimeout(HUGE))
                .getMessage().startsWith("busyTimeout must be between 0 and 2147483647 ms"));
    }

    @Test
    void theJitteredWaitsLongestSleepRunsFromItsFirstStepToOneSecondAndBelongsToItAlone() {
        StoreOptions defaults = StoreOptions.defaults();
        assertEquals(Duration.ofMillis(4), defaults.longestBusySleep());
        Duration first = Duration.ofNanos(JitteredBusyHandler.FIRST_STEP_NANOS);
        assertEquals(first, defaults.withLongestBusySleep(first).longestBusySleep());
        assertEquals("longestBusySleep must be between 50 µs and 1000 ms: PT0.000049999S",
                assertThrows(IllegalArgumentException.class, () -> defaults.withLongestBusySleep(first.minusNanos(1))).getMessage());
        assertEquals(Duration.ofSeconds(1), defaults.withLongestBusySleep(Duration.ofSeconds(1)).longestBusySleep());
        assertEquals("longestBusySleep must be between 50 µs and 1000 ms: PT1.000000001S",
                assertThrows(IllegalArgumentException.class, () -> defaults.withLongestBusySleep(Duration.ofSeconds(1).plusNanos(1)))
                        .getMessage());
        assertEquals("longestBusySleep",
                assertThrows(NullPointerException.class, () -> defaults.withLongestBusySleep(null)).getMessage());
        // SQLite's own handler has its own sleeps: a longest sleep set with it would change nothing,
        // in whichever order the two are set.
        StoreOptions sqlites = defaults.withBusyWait(StoreOptions.BusyWait.SQLITE_SLEEPS);
        assertEquals(Duration.ofMillis(4), sqlites.withLongestBusySleep(Duration.ofMillis(4)).longestBusySleep());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> sqlites.withLongestBusySleep(Duration.ofMillis(1)))
                .getMessage().startsWith("longestBusySleep is a setting of the JITTERED busy wait"));
        StoreOptions short1ms = defaults.withLongestBusySleep(Duration.ofMillis(1));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> short1ms.withBusyWait(StoreOptions.BusyWait.SQLITE_SLEEPS))
                .getMessage().endsWith("must stay at the default 4 ms: PT0.001S"));
    }

    @Test
    void postgresOptionsTakeOneConnectionAStatementTimeoutOfOneMillisecondAndAConnectTimeoutOf250() {
        PostgresOptions defaults = PostgresOptions.defaults();
        assertEquals(1, defaults.withPoolSize(1).poolSize());
        assertEquals("poolSize must be at least 1: 0",
                assertThrows(IllegalArgumentException.class, () -> defaults.withPoolSize(0)).getMessage());
        assertEquals(Duration.ofMillis(1), defaults.withStatementTimeout(Duration.ofMillis(1)).statementTimeout());
        assertEquals(LONGEST, defaults.withStatementTimeout(LONGEST).statementTimeout());
        assertEquals("statementTimeout must be between 1 and 2147483647 ms: PT0S",
                assertThrows(IllegalArgumentException.class, () -> defaults.withStatementTimeout(Duration.ZERO)).getMessage());
        assertEquals("statementTimeout must be between 1 and 2147483647 ms: PT-0.001S",
                assertThrows(IllegalArgumentException.class, () -> defaults.withStatementTimeout(Duration.ofMillis(-1))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> defaults.withStatementTimeout(TOO_LONG))
                .getMessage().startsWith("statementTimeout must be between 1 and 2147483647 ms"));
        // In whole milliseconds this is 0, and SET statement_timeout = 0 would switch the timeout off.
        assertEquals("statementTimeout must be between 1 and 2147483647 ms: PT0.000999999S",
                assertThrows(IllegalArgumentException.class, () -> defaults.withStatementTimeout(Duration.ofNanos(999_999)))
                        .getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> defaults.withStatementTimeout(HUGE))
                .getMessage().startsWith("statementTimeout must be between 1 and 2147483647 ms"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> defaults.withConnectTimeout(HUGE))
                .getMessage().startsWith("connectTimeout must be between 1 and 2147483647 ms"));
        assertEquals(Duration.ofMillis(250), defaults.withConnectTimeout(Duration.ofMillis(250)).connectTimeout());
        assertEquals("connectTimeout must be at least 250 ms: PT0.249S",
                assertThrows(IllegalArgumentException.class, () -> defaults.withConnectTimeout(Duration.ofMillis(249))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> defaults.withConnectTimeout(TOO_LONG))
                .getMessage().startsWith("connectTimeout must be between 1 and 2147483647 ms"));
        assertEquals("connectTimeout", assertThrows(NullPointerException.class, () -> defaults.withConnectTimeout(null)).getMessage());
    }
}
