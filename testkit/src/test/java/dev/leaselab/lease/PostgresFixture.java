package dev.leaselab.lease;

import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.PostgresServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the PostgreSQL tests of this package ({@link PostgresStoreTest}, {@link PostgresFaultsTest},
 * {@link PostgresRestartTest}) share: the strategies they run over, and the resources a test opens,
 * closed when the test ends. A test class registers one per test on a field:
 * {@code @RegisterExtension final PostgresFixture postgres = new PostgresFixture();}
 *
 * <p>Resources close in the reverse order of registration, so a store closes before the schema it
 * was opened on is dropped, and a role is dropped only after the stores that logged in as it.
 */
final class PostgresFixture implements AfterEachCallback {

    /**
     * The factory of the PostgreSQL strategies, for {@code @MethodSource}: JUnit finds a method of
     * another class only by its fully qualified name.
     */
    static final String STRATEGIES = "dev.leaselab.lease.PostgresFixture#postgresStrategies";

    private final List<AutoCloseable> cleanup = new ArrayList<>();

    static List<LockingStrategy> postgresStrategies() {
        return LockingStrategy.of(LockingStrategy.Engine.POSTGRESQL);
    }

    /** Registers {@code resource} to be closed when the test ends; returns it. */
    <T extends AutoCloseable> T closeLater(T resource) {
        cleanup.add(resource);
        return resource;
    }

    /** A fresh schema on the tests' server ({@link PostgresServer#get()}), dropped when the test ends. */
    Database.PostgresSchema database() {
        Database.PostgresSchema db = PostgresServer.get().createSchema();
        cleanup.add(db::drop);
        return db;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }
}
