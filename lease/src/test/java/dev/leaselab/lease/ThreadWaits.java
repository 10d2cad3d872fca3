package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * How the {@code GROUP_COMMIT} tests wait for a thread to reach a point inside the store (a frame
 * of its stack, a thread state) before they go on, for at most 30 s each.
 */
final class ThreadWaits {

    private ThreadWaits() {}

    /** Waits until a frame of the thread's stack matches; fails if it ends first. */
    static void awaitFrame(Thread thread, Predicate<StackTraceElement> frame) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Arrays.stream(thread.getStackTrace()).noneMatch(frame)) {
            assertTrue(thread.isAlive() && System.nanoTime() < deadline, thread.getName() + " never reached the frame");
            Thread.sleep(1);
        }
    }

    /** Waits until the thread is in the state. */
    static void awaitState(Thread thread, Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != state) {
            assertTrue(System.nanoTime() < deadline, thread.getName() + " is " + thread.getState() + ", never " + state);
            Thread.sleep(1);
        }
    }

    /** Waits until the thread has queued its write with {@link GroupCommitProtocol} and parked behind a leader at work. */
    static void awaitParkedInSubmit(Thread thread) throws InterruptedException {
        awaitFrame(thread, f -> f.getClassName().equals(GroupCommitProtocol.class.getName()) && f.getMethodName().equals("submit"));
        awaitState(thread, Thread.State.WAITING);
    }
}
