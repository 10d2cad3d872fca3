package dev.leaselab.stress;

import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.testkit.PostgresServer;
import dev.leaselab.testkit.PostgresUrl;
import java.util.List;
import org.opentest4j.TestAbortedException;

/**
 * The engines the stress tests race. PostgreSQL races on the server that {@code ./with-postgres.sh}
 * (the README's test command, and so CI) names in {@code LEASELAB_POSTGRES_URL}, or else on a
 * throwaway server that the testkit's {@link PostgresServer} starts for this JVM. Without PostgreSQL's
 * binaries the tests fail and say what to install, unless {@code -Dleaselab.postgres=skip} is set:
 * then only SQLite races, and {@link PostgresServer} prints a banner that PostgreSQL was not tested.
 */
final class TestEngines {

    private TestEngines() {
    }

    static synchronized List<Engine> all() {
        if (PostgresUrl.configured().isEmpty()) {
            try {
                // Every driver reads the server from this property (PostgresUrl).
                System.setProperty(PostgresUrl.PROPERTY, PostgresServer.get().url());
            } catch (TestAbortedException skipped) {
                return List.of(Engine.SQLITE);
            }
        }
        return List.of(Engine.SQLITE, Engine.POSTGRESQL);
    }
}
