package dev.leaselab.lease;

import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.PostgresServer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves the {@link StoreFactory} of the contract tests, one per test. Normally it opens the real
 * stores: SQLite files in a temporary directory, and PostgreSQL schemas on the tests' server
 * ({@link PostgresServer}). The kill matrix sets the configuration parameter {@value #BROKEN_STORE}
 * to the name of a {@link BrokenStore}, or {@value #BROKEN_POSTGRES_STORE} to the name of a
 * {@link BrokenPostgresStore}, and runs the same tests against that variant; the tests of the
 * other engine's strategies are then aborted before they touch a database.
 *
 * <p>The databases a test asked for are removed when the test ends, after its {@code @AfterEach}
 * methods have closed its stores.
 */
final class StoreUnderTest implements ParameterResolver {

    static final String BROKEN_STORE = "leaselab.brokenStore";
    static final String BROKEN_POSTGRES_STORE = "leaselab.brokenPostgresStore";

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(StoreUnderTest.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == StoreFactory.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        BrokenStore brokenSqlite = context.getConfigurationParameter(BROKEN_STORE).map(BrokenStore::valueOf).orElse(null);
        BrokenPostgresStore brokenPostgres = context.getConfigurationParameter(BROKEN_POSTGRES_STORE)
                .map(BrokenPostgresStore::valueOf).orElse(null);
        Stores stores = new Stores(brokenSqlite, brokenPostgres);
        context.getStore(NAMESPACE).put(stores, stores);
        return stores;
    }

    /** The factory of one test, which removes the test's databases when JUnit closes it. */
    private static final class Stores implements StoreFactory, AutoCloseable {

        private final BrokenStore brokenSqlite;
        private final BrokenPostgresStore brokenPostgres;
        private final List<Database> databases = new ArrayList<>();
        private Path dir;

        Stores(BrokenStore brokenSqlite, BrokenPostgresStore brokenPostgres) {
            this.brokenSqlite = brokenSqlite;
            this.brokenPostgres = brokenPostgres;
        }

        @Override
        public boolean covers(LockingStrategy strategy) {
            return switch (strategy.engine()) {
                case SQLITE -> brokenPostgres == null;
                case POSTGRESQL -> brokenSqlite == null;
            };
        }

        private void assumeCovered(LockingStrategy strategy) {
            Assumptions.assumeTrue(covers(strategy), () -> "this run tests the broken variant "
                    + (brokenSqlite != null ? brokenSqlite : brokenPostgres) + ", which has no " + strategy.engine() + " store");
        }

        @Override
        public synchronized Database database(LockingStrategy strategy) {
            assumeCovered(strategy);
            Database db = switch (strategy.engine()) {
                case SQLITE -> new Database.SqliteFile(dir().resolve("jobs-" + (databases.size() + 1) + ".db"));
                case POSTGRESQL -> PostgresServer.get().createSchema();
            };
            databases.add(db);
            return db;
        }

        @Override
        public LeaseStore open(Database db, LockingStrategy strategy) {
            assumeCovered(strategy);
            return switch (db.engine()) {
                case SQLITE -> openSqlite(((Database.SqliteFile) db).file(), strategy, StoreOptions.defaults());
                case POSTGRESQL -> openPostgres(((Database.PostgresSchema) db).url(), strategy);
            };
        }

        private LeaseStore openPostgres(String url, LockingStrategy strategy) {
            return brokenPostgres != null
                    ? brokenPostgres.open(url, strategy, PostgresOptions.defaults())
                    : PostgresLeaseStore.open(url, strategy, PostgresOptions.defaults());
        }

        @Override
        public LeaseStore openSqlite(Path file, LockingStrategy strategy, StoreOptions options) {
            assumeCovered(strategy);
            // The matrix asks whether a variant breaks the rules, not whether it survives a power
            // loss, so its runs skip the fsync of every commit: that makes them several times faster.
            return brokenSqlite != null
                    ? brokenSqlite.open(file, strategy, options.withSynchronous(StoreOptions.Synchronous.NORMAL))
                    : SqliteLeaseStore.open(file, strategy, options);
        }

        private Path dir() {
            if (dir == null) {
                try {
                    dir = Files.createTempDirectory("leaselab-test-");
                } catch (IOException e) {
                    throw new AssertionError("cannot create a temporary directory", e);
                }
            }
            return dir;
        }

        @Override
        public synchronized void close() throws IOException {
            databases.forEach(Database::drop);
            if (dir != null) {
                try (Stream<Path> paths = Files.walk(dir)) {
                    for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }
}
