package dev.leaselab.stress;

import java.time.Instant;

/**
 * The wall clock, the one clock that separate JVMs on a host are guaranteed to read alike:
 * {@link System#nanoTime()} has an origin of its own in each JVM (the same one on Linux today,
 * but that is HotSpot's choice, not Java's promise). Its resolution is a microsecond or better.
 * A step of the system clock during a run (an NTP jump) would bend the order of the operations,
 * so a run is only as good as a host clock that is slewed, not stepped.
 */
final class HostClock {

    private HostClock() {
    }

    /** Nanoseconds since the epoch, from {@link Instant#now()}: the stamps of a history that JVMs share. */
    static long nanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** Seconds since the epoch: the lease clock ({@code now}) of workers in separate JVMs. */
    static double seconds() {
        return nanos() / 1e9;
    }
}
