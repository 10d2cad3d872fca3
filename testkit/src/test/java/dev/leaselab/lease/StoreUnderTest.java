package dev.leaselab.lease;

import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.PostgresServer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
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
    static final String SQL_MUTANT = "leaselab.sqlMutant";
    static final String STRATEGIES = "leaselab.strategies";

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
        SqlMutant mutant = context.getConfigurationParameter(SQL_MUTANT).map(GeneratedMutants::byId).orElse(null);
        Set<LockingStrategy> only = context.getConfigurationParameter(STRATEGIES).map(StoreUnderTest::strategies).orElse(null);
        Stores stores = new Stores(brokenSqlite, brokenPostgres, mutant, only);
        context.getStore(NAMESPACE).put(stores, stores);
        return stores;
    }

    private static Set<LockingStrategy> strategies(String names) {
        Set<LockingStrategy> only = EnumSet.noneOf(LockingStrategy.class);
        for (String name : names.split(",")) {
            only.add(LockingStrategy.valueOf(name.strip()));
        }
        return only;
    }

    /** The factory of one test, which removes the test's databases when JUnit closes it. */
    private static final class Stores implements StoreFactory, AutoCloseable {

        private final BrokenStore brokenSqlite;
        private final BrokenPostgresStore brokenPostgres;
        /** The generated mutant under test, or null. */
        private final SqlMutant mutant;
        /** The only strategies this run tests, or null for all. */
        private final Set<LockingStrategy> only;
        private final List<Database> databases = new ArrayList<>();
        private Path dir;

        Stores(BrokenStore brokenSqlite, BrokenPostgresStore brokenPostgres, SqlMutant mutant, Set<LockingStrategy> only) {
            this.brokenSqlite = brokenSqlite;
            this.brokenPostgres = brokenPostgres;
            this.mutant = mutant;
            this.only = only;
        }

        @Override
        public boolean covers(LockingStrategy strategy) {
            if (only != null && !only.contains(strategy)) {
                return false;
            }
            return switch (strategy.engine()) {
                case SQLITE -> brokenPostgres == null;
                case POSTGRESQL -> brokenSqlite == null;
            };
        }

        private void assumeCovered(LockingStrategy strategy) {
            Assumptions.assumeTrue(covers(strategy), () -> only != null && !only.contains(strategy)
                    ? "this run tests only " + only
                    : "this run tests the broken variant " + (brokenSqlite != null ? brokenSqlite : brokenPostgres)
                            + ", which has no " + strategy.engine() + " store");
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
            if (mutant != null) {
                LeaseSql sql = mutant.sql();
                return new PostgresLeaseStore(url, strategy, PostgresOptions.defaults(), sql, strategy.postgresProtocol(sql));
            }
            return brokenPostgres != null
                    ? brokenPostgres.open(url, strategy, PostgresOptions.defaults())
                    : PostgresLeaseStore.open(url, strategy, PostgresOptions.defaults());
        }

        @Override
        public LeaseStore openSqlite(Path file, LockingStrategy strategy, StoreOptions options) {
            assumeCovered(strategy);
            // The matrix asks whether a variant breaks the rules, not whether it survives a power
            // loss, so its runs skip the fsync of every commit: that makes them several times faster.
            if (mutant != null) {
                StoreOptions unsynced = options.withSynchronous(StoreOptions.Synchronous.NORMAL);
                LeaseSql sql = mutant.sql();
                return new SqliteLeaseStore(file, strategy, unsynced, sql, strategy.protocol(sql, unsynced));
            }
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
