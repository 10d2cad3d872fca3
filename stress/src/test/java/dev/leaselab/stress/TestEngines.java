package dev.leaselab.stress;

import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.TestPostgres;
import java.util.List;
import org.opentest4j.TestAbortedException;

/**
 * The engines the stress tests race. PostgreSQL races on the server that {@code ./with-postgres.sh}
 * (the README's test command, and so CI) names in {@code LEASELAB_POSTGRES_URL}, or else on a
 * throwaway server that the lease module's test code starts for this JVM. Without PostgreSQL's
 * binaries the tests fail and say what to install, unless {@code -Dleaselab.postgres=skip} is set:
 * then only SQLite races, and the lease test code prints a banner that PostgreSQL was not tested.
 */
final class TestEngines {

    private TestEngines() {
    }

    static synchronized List<Engine> all() {
        if (StressDatabase.postgresUrl().isEmpty()) {
            try {
                // StressDatabase, and so every driver, reads the server from this property.
                System.setProperty(StressDatabase.URL_PROPERTY, TestPostgres.url());
            } catch (TestAbortedException skipped) {
                return List.of(Engine.SQLITE);
            }
        }
        return List.of(Engine.SQLITE, Engine.POSTGRESQL);
    }
}
