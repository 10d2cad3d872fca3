package dev.leaselab.stress;

import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.PostgresUrl;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Where a race runs: a new {@link Database} for the store under test, a SQLite file or a schema of
 * its own on the PostgreSQL server named by {@link PostgresUrl} ({@code -Dleaselab.postgres.url}
 * or {@code LEASELAB_POSTGRES_URL}, which {@code ./with-postgres.sh} sets). The drivers read the
 * database back with plain JDBC ({@link Database#rows()}), not through a store, so that what the
 * checker sees does not depend on the code under test.
 */
final class StressDatabase {

    private StressDatabase() {
    }

    /**
     * The configured PostgreSQL server's URL, after checking that it answers.
     *
     * @throws IllegalArgumentException saying how to configure one, when none is or it does not answer
     */
    static String requirePostgres() {
        PostgresUrl url = PostgresUrl.configured().orElseThrow(() -> new IllegalArgumentException(
                "the PostgreSQL strategies need a server: " + PostgresUrl.HOW_TO + "; or test SQLite only with --engine sqlite"));
        try (Connection c = DriverManager.getConnection(url.url())) {
            return url.url();
        } catch (SQLException e) {
            throw new IllegalArgumentException("the PostgreSQL server " + url + " does not answer: " + e.getMessage(), e);
        }
    }

    /**
     * A new, empty database for {@code sut}: the SQLite file {@code sqliteFile}, or a new schema on
     * the PostgreSQL server named after that file.
     */
    static Database create(StoreUnderTest sut, Path sqliteFile) {
        Objects.requireNonNull(sut, "sut");
        Objects.requireNonNull(sqliteFile, "sqliteFile");
        return switch (sut.engine()) {
            case SQLITE -> new Database.SqliteFile(sqliteFile);
            case POSTGRESQL -> Database.PostgresSchema.create(requirePostgres(), "stress", sqliteFile.getFileName().toString());
        };
    }
}
