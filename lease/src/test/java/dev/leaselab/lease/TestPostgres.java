package dev.leaselab.lease;

/**
 * The tests' PostgreSQL server, for the tests of the other modules (stress, bench), which reach it
 * through this module's test jar: the server named by {@code -Dleaselab.postgres.url} or
 * {@code LEASELAB_POSTGRES_URL}, else a throwaway server started for this JVM and stopped with it.
 */
public final class TestPostgres {

    private TestPostgres() {
    }

    /**
     * The server's JDBC URL, starting a server if none is given.
     *
     * @throws org.opentest4j.TestAbortedException if there is none and {@code -Dleaselab.postgres=skip} is set
     * @throws AssertionError if there is none, saying how to get one
     */
    public static String url() {
        return PostgresServer.get().url();
    }
}
