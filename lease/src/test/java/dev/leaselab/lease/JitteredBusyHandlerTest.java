package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The handler's answers to SQLite, called directly: try again (1) while the busy timeout of the
 * current lock event lasts, give up (0) once it is spent or the thread is interrupted, and wait
 * between tries for a time that grows with the number of calls up to its cap. {@link BusyWaitTest}
 * checks the same promises end to end on a locked file; this pins the arithmetic behind them.
 */
class JitteredBusyHandlerTest {

    @Test
    void aZeroTimeoutGivesUpAtOnce() {
        assertEquals(0, new JitteredBusyHandler(Duration.ZERO).callback(0));
    }

    @Test
    void itTriesAgainWithinTheTimeoutAndGivesUpOnceItIsSpent() {
        JitteredBusyHandler handler = new JitteredBusyHandler(Duration.ofMillis(50));
        assertEquals(1, handler.callback(0));
        assertEquals(1, handler.callback(1));
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(80));
        assertEquals(0, handler.callback(2));
    }

    @Test
    void theTimeoutStartsAgainWithEachLockEvent() {
        JitteredBusyHandler handler = new JitteredBusyHandler(Duration.ofMillis(50));
        assertEquals(1, handler.callback(0));
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(80));
        // SQLite counts the calls of one lock event from 0: a new event has its own timeout.
        assertEquals(1, handler.callback(0));
    }

    @Test
    void anInterruptedThreadGivesUpAndKeepsItsInterrupt() {
        JitteredBusyHandler handler = new JitteredBusyHandler(Duration.ofSeconds(10));
        Thread.currentThread().interrupt();
        try {
            assertEquals(0, handler.callback(0));
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void theWaitGrowsWithTheCallsToBetweenHalfAndAllOfTheLongestStep() {
        JitteredBusyHandler handler = new JitteredBusyHandler(Duration.ofSeconds(10));
        assertEquals(1, handler.callback(0));
        // From the 7th call on, the step (50 µs doubled per call) is capped at 4 ms, and each wait
        // is at least half of its step: ten waits take at least 20 ms, however the dice fall.
        long start = System.nanoTime();
        for (int call = 1; call <= 10; call++) {
            assertEquals(1, handler.callback(6 + call));
        }
        long tenWaits = System.nanoTime() - start;
        assertTrue(tenWaits >= 10 * JitteredBusyHandler.LONGEST_STEP_NANOS / 2, tenWaits + " ns");
    }
}
