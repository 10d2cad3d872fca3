package dev.leaselab.lease;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.sqlite.BusyHandler;

/**
 * {@link StoreOptions.BusyWait#JITTERED}: SQLite calls {@link #callback} each time its lock is
 * busy, with the number of calls before this one for the same lock event; the handler waits a
 * short, random time and asks SQLite to try again, until the busy timeout is spent. One handler
 * per connection, and a connection is used by one thread at a time, so its fields need no guard.
 */
class JitteredBusyHandler extends BusyHandler {

    static final long FIRST_STEP_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    static final long LONGEST_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(4);

    private final long timeoutNanos;
    private long firstCallNanos;

    JitteredBusyHandler(Duration busyTimeout) {
        this.timeoutNanos = busyTimeout.toNanos();
    }

    /** 0 tells SQLite to give up (it returns {@code SQLITE_BUSY}), anything else to try again. */
    @Override
    protected int callback(int previousCalls) {
        long now = System.nanoTime();
        if (previousCalls == 0) {
            firstCallNanos = now;
        }
        long left = timeoutNanos - (now - firstCallNanos);
        // An interrupted thread would not park at all and spin until the timeout: give up instead.
        if (left <= 0 || Thread.currentThread().isInterrupted()) {
            return 0;
        }
        long step = Math.min(LONGEST_STEP_NANOS, FIRST_STEP_NANOS << Math.min(previousCalls, 10));
        LockSupport.parkNanos(Math.min(left, ThreadLocalRandom.current().nextLong(step / 2, step)));
        return 1;
    }
}
