package dev.leaselab.testkit;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy.Engine;
import java.util.Objects;
import java.util.function.Function;

/**
 * One store that {@link LeaseStoreContract} tests: a name that every test of it is shown under,
 * the engine of the database it runs on, and how to open it on such a database (as often as a test
 * asks: some tests open two stores on one database, or re-open it).
 */
public interface ContractSubject {

    /** The display name of this subject's tests, e.g. a strategy's name. */
    String name();

    /** The engine whose {@link Database} the subject runs on. */
    Engine engine();

    /** Opens a new store on {@code db}, a database of {@link #engine()}. */
    LeaseStore open(Database db);

    /**
     * A subject from its parts.
     *
     * @param open opens the store on a database of {@code engine}: a {@link Database.SqliteFile}
     *     for SQLite, a {@link Database.PostgresSchema} (open its {@code url()}) for PostgreSQL
     */
    static ContractSubject of(String name, Engine engine, Function<Database, LeaseStore> open) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(open, "open");
        return new ContractSubject() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Engine engine() {
                return engine;
            }

            @Override
            public LeaseStore open(Database db) {
                if (db.engine() != engine) {
                    throw new IllegalArgumentException("db: " + name + " runs on " + engine + ", not on " + db);
                }
                return open.apply(db);
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }
}
