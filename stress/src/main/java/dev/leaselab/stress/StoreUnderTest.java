package dev.leaselab.stress;

import dev.leaselab.lease.BrokenPostgresStore;
import dev.leaselab.lease.BrokenStore;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.PostgresLeaseStore;
import dev.leaselab.lease.PostgresOptions;
import dev.leaselab.lease.SqliteLeaseStore;
import dev.leaselab.lease.StoreOptions;
import dev.leaselab.testkit.Database;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A store the gate runs: a correct {@link LockingStrategy}, or a negative control built on one (a
 * {@link BrokenStore} on SQLite, a {@link BrokenPostgresStore} on PostgreSQL). A correct store must
 * show no violation; a control must show one.
 *
 * @param strategy the locking strategy
 * @param broken the broken variant ({@link BrokenStore} or {@link BrokenPostgresStore}, matching the
 *     strategy's engine), or null for the shipped store
 */
public record StoreUnderTest(LockingStrategy strategy, Enum<?> broken) {

    /** The broken SQLite variants the stress suite must catch: each breaks a guard that races exercise. */
    public static final List<BrokenStore> CONTROLS = List.of(
            BrokenStore.CLAIM_READ_THEN_WRITE,
            BrokenStore.COMPLETE_WITHOUT_FENCE_CHECK,
            BrokenStore.RELEASE_RESETS_FENCE,
            BrokenStore.CLAIM_MANY_FIRST_OWNER_ONLY,
            BrokenStore.CLAIM_MANY_ONE_AT_A_TIME);

    /** The broken PostgreSQL variants: every one there is, each on the strategy it breaks. */
    public static final List<StoreUnderTest> POSTGRES_CONTROLS = List.of(
            new StoreUnderTest(LockingStrategy.PG_ROW_LOCK, BrokenPostgresStore.CHECK_THEN_ACT_WITHOUT_LOCK),
            new StoreUnderTest(LockingStrategy.PG_CONDITIONAL_UPDATE, BrokenPostgresStore.COMPLETE_WITHOUT_FENCE_CHECK));

    public StoreUnderTest {
        Objects.requireNonNull(strategy, "strategy");
        Class<?> expected = switch (strategy.engine()) {
            case SQLITE -> BrokenStore.class;
            case POSTGRESQL -> BrokenPostgresStore.class;
        };
        if (broken != null && !expected.isInstance(broken)) {
            throw new IllegalArgumentException("broken must be a " + expected.getSimpleName() + " for " + strategy
                    + ": " + broken);
        }
    }

    /** The shipped store with {@code strategy}. */
    public static StoreUnderTest correct(LockingStrategy strategy) {
        return new StoreUnderTest(strategy, null);
    }

    /** Every shipped strategy of {@code engine}, in declaration order. */
    public static List<StoreUnderTest> allCorrect(Engine engine) {
        List<StoreUnderTest> all = new ArrayList<>();
        for (LockingStrategy strategy : LockingStrategy.of(engine)) {
            all.add(correct(strategy));
        }
        return all;
    }

    /** The negative controls of {@code engine}: SQLite's on {@link LockingStrategy#IMMEDIATE}. */
    public static List<StoreUnderTest> controls(Engine engine) {
        return switch (engine) {
            case SQLITE -> CONTROLS.stream().map(b -> new StoreUnderTest(LockingStrategy.IMMEDIATE, b)).toList();
            case POSTGRESQL -> POSTGRES_CONTROLS;
        };
    }

    /**
     * Parses {@link #name()}: {@code IMMEDIATE} or {@code CLAIM_READ_THEN_WRITE/IMMEDIATE}. The
     * strategy's engine says which enum of broken variants the prefix names.
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
            LockingStrategy strategy = LockingStrategy.valueOf(name.substring(slash + 1));
            String variant = name.substring(0, slash);
            return new StoreUnderTest(strategy, switch (strategy.engine()) {
                case SQLITE -> BrokenStore.valueOf(variant);
                case POSTGRESQL -> BrokenPostgresStore.valueOf(variant);
            });
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("store must be a LockingStrategy or BROKEN_VARIANT/STRATEGY: " + name, e);
        }
    }

    /** Whether this is a negative control, which the gate must catch. */
    public boolean isControl() {
        return broken != null;
    }

    /** Whether this control writes a stale complete: the one the process driver's pauses must catch. */
    public boolean isStaleWriterControl() {
        return broken == BrokenStore.COMPLETE_WITHOUT_FENCE_CHECK
                || broken == BrokenPostgresStore.COMPLETE_WITHOUT_FENCE_CHECK;
    }

    /** The engine the store runs on. */
    public Engine engine() {
        return strategy.engine();
    }

    /** {@code IMMEDIATE}, or {@code CLAIM_READ_THEN_WRITE/IMMEDIATE} for a control. */
    public String name() {
        return broken == null ? strategy.name() : broken.name() + "/" + strategy.name();
    }

    /** Opens this store on {@code db}, a database of its engine, with at most {@code poolSize} connections. */
    public LeaseStore open(Database db, int poolSize) {
        return switch (db.engine()) {
            case SQLITE -> open(((Database.SqliteFile) db).file(), StoreOptions.defaults().withPoolSize(poolSize));
            case POSTGRESQL -> open(((Database.PostgresSchema) db).url(), PostgresOptions.defaults().withPoolSize(poolSize));
        };
    }

    /** Opens this SQLite store on {@code file}. */
    public LeaseStore open(Path file, StoreOptions options) {
        requireEngine(Engine.SQLITE);
        return broken == null ? SqliteLeaseStore.open(file, strategy, options)
                : ((BrokenStore) broken).open(file, strategy, options);
    }

    /** Opens this PostgreSQL store on the database (and schema) of {@code jdbcUrl}. */
    public LeaseStore open(String jdbcUrl, PostgresOptions options) {
        requireEngine(Engine.POSTGRESQL);
        return broken == null ? PostgresLeaseStore.open(jdbcUrl, strategy, options)
                : ((BrokenPostgresStore) broken).open(jdbcUrl, strategy, options);
    }

    private void requireEngine(Engine engine) {
        if (engine() != engine) {
            throw new IllegalArgumentException(name() + " runs on " + engine() + ", not on " + engine);
        }
    }

    @Override
    public String toString() {
        return name();
    }
}
