package dev.leaselab.lease;

import dev.leaselab.testkit.Database;

import java.nio.file.Path;

/**
 * Gives a test its databases and opens the store under test on them: the real store, or a broken
 * variant when the kill matrix asks for one. A test asks for "a database for this strategy" and
 * gets one of the strategy's engine; it never needs to know which.
 */
interface StoreFactory {

    /**
     * A fresh, empty database of the strategy's engine, removed after the test.
     *
     * @throws org.opentest4j.TestAbortedException if this run does not cover the strategy (a kill
     *     matrix run of a variant of the other engine, or PostgreSQL tests that are skipped)
     */
    Database database(LockingStrategy strategy);

    /** Opens the store under test on {@code db} with the default options of its engine. */
    LeaseStore open(Database db, LockingStrategy strategy);

    /**
     * Opens the store under test on a SQLite file with the given options: for the tests of SQLite's
     * files and settings, which have no PostgreSQL counterpart.
     */
    LeaseStore openSqlite(Path file, LockingStrategy strategy, StoreOptions options);

    /** Whether this run tests the strategy (kill matrix runs cover the engine of their variant). */
    boolean covers(LockingStrategy strategy);
}
