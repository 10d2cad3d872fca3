package dev.leaselab.stress;

import dev.leaselab.lease.BrokenStore;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.SqliteLeaseStore;
import dev.leaselab.lease.StoreOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A store the gate runs: a correct {@link LockingStrategy}, or a {@link BrokenStore} negative
 * control built on one. A correct store must show no violation; a control must show one.
 *
 * @param strategy the locking strategy
 * @param broken the broken variant, or null for the shipped store
 */
public record StoreUnderTest(LockingStrategy strategy, BrokenStore broken) {

    /** The broken variants the stress suite must catch: each breaks a guard that races exercise. */
    public static final List<BrokenStore> CONTROLS = List.of(
            BrokenStore.CLAIM_READ_THEN_WRITE,
            BrokenStore.COMPLETE_WITHOUT_FENCE_CHECK,
            BrokenStore.RELEASE_RESETS_FENCE,
            BrokenStore.CLAIM_MANY_FIRST_OWNER_ONLY);

    public StoreUnderTest {
        Objects.requireNonNull(strategy, "strategy");
    }

    /** The shipped store with {@code strategy}. */
    public static StoreUnderTest correct(LockingStrategy strategy) {
        return new StoreUnderTest(strategy, null);
    }

    /** Every shipped strategy, in declaration order. */
    public static List<StoreUnderTest> allCorrect() {
        List<StoreUnderTest> all = new ArrayList<>();
        for (LockingStrategy strategy : LockingStrategy.of(LockingStrategy.Engine.SQLITE)) {
            all.add(correct(strategy));
        }
        return all;
    }

    /** The negative controls, each on {@link LockingStrategy#IMMEDIATE}. */
    public static List<StoreUnderTest> controls() {
        return CONTROLS.stream().map(b -> new StoreUnderTest(LockingStrategy.IMMEDIATE, b)).toList();
    }

    /**
     * Parses {@link #name()}: {@code IMMEDIATE} or {@code CLAIM_READ_THEN_WRITE/IMMEDIATE}.
     *
     * @throws IllegalArgumentException naming the text when it names no strategy or variant
     */
    public static StoreUnderTest parse(String name) {
        Objects.requireNonNull(name, "name");
        try {
            int slash = name.indexOf('/');
            if (slash < 0) {
                return correct(LockingStrategy.valueOf(name));
            }
            return new StoreUnderTest(LockingStrategy.valueOf(name.substring(slash + 1)),
                    BrokenStore.valueOf(name.substring(0, slash)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("store must be a LockingStrategy or BROKEN_VARIANT/STRATEGY: " + name, e);
        }
    }

    /** Whether this is a negative control, which the gate must catch. */
    public boolean isControl() {
        return broken != null;
    }

    /** {@code IMMEDIATE}, or {@code CLAIM_READ_THEN_WRITE/IMMEDIATE} for a control. */
    public String name() {
        return broken == null ? strategy.name() : broken.name() + "/" + strategy.name();
    }

    /** Opens this store on {@code file}. */
    public LeaseStore open(Path file, StoreOptions options) {
        return broken == null ? SqliteLeaseStore.open(file, strategy, options) : broken.open(file, strategy, options);
    }

    @Override
    public String toString() {
        return name();
    }
}
