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

    @Test
    void theStepDoublesFromFiftyMicrosecondsToTheLongestStepOfTheOptions() {
        JitteredBusyHandler byDefault = StoreOptions.defaults().jitteredBusyHandler();
        assertEquals(TimeUnit.MICROSECONDS.toNanos(50), byDefault.stepNanos(0));
        assertEquals(TimeUnit.MICROSECONDS.toNanos(3200), byDefault.stepNanos(6));
        assertEquals(JitteredBusyHandler.LONGEST_STEP_NANOS, byDefault.stepNanos(7));
        assertEquals(JitteredBusyHandler.LONGEST_STEP_NANOS, byDefault.stepNanos(Integer.MAX_VALUE));
        JitteredBusyHandler oneMilli = StoreOptions.defaults().withLongestBusySleep(Duration.ofMillis(1)).jitteredBusyHandler();
        assertEquals(TimeUnit.MICROSECONDS.toNanos(800), oneMilli.stepNanos(4));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(1), oneMilli.stepNanos(5));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(1), oneMilli.stepNanos(Integer.MAX_VALUE));
        // The longest allowed (1 s) is reached too: the doubling does not stop short of it.
        JitteredBusyHandler oneSecond = StoreOptions.defaults().withLongestBusySleep(Duration.ofSeconds(1)).jitteredBusyHandler();
        assertEquals(TimeUnit.MICROSECONDS.toNanos(50) << 14, oneSecond.stepNanos(14));
        assertEquals(TimeUnit.SECONDS.toNanos(1), oneSecond.stepNanos(15));
        assertEquals(TimeUnit.SECONDS.toNanos(1), oneSecond.stepNanos(Integer.MAX_VALUE));
    }

    @Test
    void aLongerLongestStepMakesTheWaitsLonger() {
        // A handler that kept the default 4 ms would take 20-40 ms for these ten waits.
        JitteredBusyHandler handler = new JitteredBusyHandler(Duration.ofSeconds(10), Duration.ofMillis(20));
        assertEquals(1, handler.callback(0));
        long start = System.nanoTime();
        for (int call = 1; call <= 10; call++) {
            assertEquals(1, handler.callback(20 + call));
        }
        long tenWaits = System.nanoTime() - start;
        assertTrue(tenWaits >= TimeUnit.MILLISECONDS.toNanos(100), tenWaits + " ns");
    }
}
