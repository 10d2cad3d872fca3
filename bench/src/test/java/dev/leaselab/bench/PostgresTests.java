package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.fail;

import dev.leaselab.testkit.PostgresServer;
import org.junit.jupiter.api.Assumptions;
import org.opentest4j.TestAbortedException;

/**
 * What a bench test that needs PostgreSQL does without a server, as in the lease module: it fails
 * and says how to run it, unless {@code -Dleaselab.postgres=skip} is set; then it is aborted, after a
 * banner on stderr (once per test JVM), so that nobody mistakes the skip for a pass.
 */
final class PostgresTests {

    private static boolean announced;

    private PostgresTests() {}

    /**
     * Without a server given by {@code -Dleaselab.postgres.url} or {@code LEASELAB_POSTGRES_URL},
     * names the lease tests' throwaway server (started for this JVM) in the property, which the
     * runner passes on to its forks. Without PostgreSQL's binaries nothing is named, and
     * {@link #require} then fails or skips the PostgreSQL tests.
     */
    static synchronized void useTestServerUnlessOneIsGiven() {
        if (PostgresTarget.configured().isPresent()) {
            return;
        }
        try {
            System.setProperty(PostgresTarget.URL_PROPERTY, PostgresServer.get().url());
        } catch (TestAbortedException | AssertionError noServer) {
            System.err.println("no PostgreSQL server for the bench tests: " + noServer.getMessage());
        }
    }

    /** Returns if {@code available}; else fails the test with how to run it, or aborts it with {@code -Dleaselab.postgres=skip}. */
    static synchronized void require(boolean available, String reason) {
        if (available) {
            return;
        }
        if ("skip".equals(System.getProperty(PostgresTarget.MODE_PROPERTY))) {
            if (!announced) {
                announced = true;
                System.err.print(PostgresTarget.banner("PostgreSQL part of the bench tests SKIPPED (-D"
                        + PostgresTarget.MODE_PROPERTY + "=skip): the PostgreSQL benchmarks are NOT tested.", reason));
            }
            Assumptions.abort("PostgreSQL skipped (-D" + PostgresTarget.MODE_PROPERTY + "=skip): " + reason);
        }
        fail("the bench tests measure PostgreSQL too, and " + reason + ". Run them as CI does, "
                + "./with-postgres.sh mvn -B verify (a throwaway server), or set " + PostgresTarget.URL_ENVIRONMENT
                + " (or -D" + PostgresTarget.URL_PROPERTY + ") to jdbc:postgresql://HOST:PORT/DATABASE?user=USER; -D"
                + PostgresTarget.MODE_PROPERTY + "=skip runs them without PostgreSQL");
    }
}
