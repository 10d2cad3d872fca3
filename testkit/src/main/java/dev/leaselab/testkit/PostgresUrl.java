package dev.leaselab.testkit;

import dev.leaselab.lease.PostgresLeaseStore;
import java.util.Objects;
import java.util.Optional;

/**
 * The PostgreSQL server that the tests, the stress races and the benchmarks are given: the system
 * property {@value #PROPERTY}, else the environment variable {@value #ENVIRONMENT} (which
 * {@code ./with-postgres.sh} sets for the command it wraps). A blank value names no server, so a
 * blank property falls through to the environment variable. Every harness looks the server up
 * here, and shows its URL only {@linkplain #redacted() without the password}.
 *
 * @param url the JDBC URL, stripped
 * @param source where it came from: {@code -Dleaselab.postgres.url} or {@code LEASELAB_POSTGRES_URL}
 */
public record PostgresUrl(String url, String source) {

    /** The system property naming the server. */
    public static final String PROPERTY = "leaselab.postgres.url";
    /** The environment variable naming the server. */
    public static final String ENVIRONMENT = "LEASELAB_POSTGRES_URL";
    /** How to get a server, for the messages of whoever needs one and has none. */
    public static final String HOW_TO = "run through ./with-postgres.sh (it starts a throwaway server) or set "
            + ENVIRONMENT + " (or -D" + PROPERTY + ") to jdbc:postgresql://HOST:PORT/DATABASE?user=USER";

    public PostgresUrl {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(source, "source");
        if (url.isBlank()) {
            throw new IllegalArgumentException("url must not be blank (source " + source + ")");
        }
    }

    /** The server this JVM is given, if any. */
    public static Optional<PostgresUrl> configured() {
        return configured(System.getProperty(PROPERTY), System.getenv(ENVIRONMENT));
    }

    /** The server named by the property's value, else by the environment variable's; a blank value names none. */
    public static Optional<PostgresUrl> configured(String property, String environment) {
        if (property != null && !property.isBlank()) {
            return Optional.of(new PostgresUrl(property.strip(), "-D" + PROPERTY));
        }
        if (environment != null && !environment.isBlank()) {
            return Optional.of(new PostgresUrl(environment.strip(), ENVIRONMENT));
        }
        return Optional.empty();
    }

    /** The URL with any password masked ({@link PostgresLeaseStore#redact}): for messages and reports. */
    public String redacted() {
        return PostgresLeaseStore.redact(url);
    }

    @Override
    public String toString() {
        return redacted() + " (from " + source + ")";
    }
}
