package dev.leaselab.lease;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.sqlite.BusyHandler;

/**
 * {@link StoreOptions.BusyWait#JITTERED}: SQLite calls {@link #callback} each time its lock is
 * busy, with the number of calls before this one for the same lock event; the handler waits a
 * short, random time and asks SQLite to try again, until the busy timeout is spent. The step
 * doubles from {@link #FIRST_STEP_NANOS} per call up to {@link StoreOptions#longestBusySleep()}.
 * One handler per connection, and a connection is used by one thread at a time, so its fields
 * need no guard.
 */
class JitteredBusyHandler extends BusyHandler {

    static final long FIRST_STEP_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** The default longest step; {@link StoreOptions#longestBusySleep()} may set another. */
    static final long LONGEST_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(4);
    /** 50 µs doubled 20 times is 52 s, beyond the longest step allowed ({@link StoreOptions}). */
    private static final int MOST_DOUBLINGS = 20;

    private final long timeoutNanos;
    private final long longestStepNanos;
    private long firstCallNanos;

    JitteredBusyHandler(Duration busyTimeout) {
        this(busyTimeout, Duration.ofNanos(LONGEST_STEP_NANOS));
    }

    JitteredBusyHandler(Duration busyTimeout, Duration longestStep) {
        this.timeoutNanos = busyTimeout.toNanos();
        this.longestStepNanos = longestStep.toNanos();
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
        long step = stepNanos(previousCalls);
        LockSupport.parkNanos(Math.min(left, ThreadLocalRandom.current().nextLong(step / 2, step)));
        return 1;
    }

    /** The step after {@code previousCalls} calls: each wait is a random time between half and all of it. */
    long stepNanos(int previousCalls) {
        return Math.min(longestStepNanos, FIRST_STEP_NANOS << Math.min(previousCalls, MOST_DOUBLINGS));
    }
}
