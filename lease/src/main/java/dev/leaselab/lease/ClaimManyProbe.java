package dev.leaselab.lease;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The start and end of each claim inside a {@link LeaseStore#claimMany}, so that a test can tell
 * whether the claims really met in time. A {@code claimMany} that runs its owners one after another
 * still hands out exactly one fence, so its results alone cannot show that it never raced; and
 * {@code claimMany} is one call into the store, so only the store sees its claims.
 *
 * <p>A test records one call: {@code ClaimManyProbe.record(() -> store.claimMany(...))} returns the
 * results together with the stamped claims. A store stamps its claims: on the thread that called
 * {@code claimMany} it takes {@link #current()}, and runs each owner's claim through {@link #stamp}
 * on that claim's thread. Every store of this package does; a store that does not leaves the
 * recording without claims, which a test reports as "not measured".
 *
 * <p>The probe travels with the calling thread (a thread local), so it reaches the store through
 * any wrapper that calls {@code claimMany} on the same thread, and calls of other threads are never
 * mixed in. Outside {@link #record} the probe does nothing but run the claim.
 */
public final class ClaimManyProbe {

    /**
     * One claim inside a {@code claimMany}.
     *
     * @param owner the owner that claimed
     * @param start {@link System#nanoTime()} when the claim began
     * @param end {@link System#nanoTime()} when it returned or threw
     */
    public record Claim(String owner, long start, long end) {}

    /**
     * What {@link #record} saw.
     *
     * @param result what the call returned
     * @param claims the claims the store stamped during the call, in the order they ended; empty
     *     if the store does not stamp its claims
     */
    public record Recording<T>(T result, List<Claim> claims) {}

    private static final ThreadLocal<ClaimManyProbe> RECORDING = new ThreadLocal<>();

    /** The probe outside {@link #record}: it stamps nothing. */
    private static final ClaimManyProbe NONE = new ClaimManyProbe(null);

    private final List<Claim> claims;

    private ClaimManyProbe(List<Claim> claims) {
        this.claims = claims;
    }

    /**
     * Runs {@code call} (a {@code claimMany}, perhaps through wrappers) on this thread and returns
     * its result with the claims the store stamped meanwhile.
     */
    public static <T> Recording<T> record(Supplier<T> call) {
        Objects.requireNonNull(call, "call");
        ClaimManyProbe probe = new ClaimManyProbe(Collections.synchronizedList(new ArrayList<>()));
        ClaimManyProbe outer = RECORDING.get();
        RECORDING.set(probe);
        try {
            T result = call.get();
            synchronized (probe.claims) {
                return new Recording<>(result, List.copyOf(probe.claims));
            }
        } finally {
            if (outer == null) {
                RECORDING.remove();
            } else {
                RECORDING.set(outer);
            }
        }
    }

    /**
     * For a store's {@code claimMany}: the probe of the call running on this thread, to be handed to
     * the threads of its claims. Outside {@link #record}, a probe that stamps nothing.
     */
    public static ClaimManyProbe current() {
        ClaimManyProbe probe = RECORDING.get();
        return probe == null ? NONE : probe;
    }

    /** Runs one owner's claim, on whatever thread runs it, and stamps when it began and ended. */
    public <T> T stamp(String owner, Supplier<T> claim) {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(claim, "claim");
        if (claims == null) {
            return claim.get();
        }
        long start = System.nanoTime();
        try {
            return claim.get();
        } finally {
            claims.add(new Claim(owner, start, System.nanoTime()));
        }
    }
}
