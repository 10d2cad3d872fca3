package dev.leaselab.lease;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;

/**
 * One generated mutant of the contract's SQL: {@link LeaseSql} with one method's fragment changed
 * in one place. Made by {@link GeneratedMutants} from the fragments as they are written now.
 *
 * @param id what the mutant changed, as {@code method: the changed piece as it now reads}
 *     ({@code renewable: owner >= ?2}, {@code claimEffect: drop fence = fence + 1}); stable as long
 *     as the fragment's piece is, so the list of equivalents can name it
 * @param fragment the {@link LeaseSql} method it changes
 * @param kind the kind of change
 * @param original the method's fragment as the contract writes it
 * @param mutated the fragment the mutant's method returns instead
 */
record SqlMutant(String id, SqlFragment fragment, Kind kind, String original, String mutated) {

    /** The kinds of change the generator makes. */
    enum Kind {
        /** A comparison operator replaced by another one. */
        COMPARISON_REPLACED,
        /** One conjunct of a rule left out. */
        CONJUNCT_DROPPED,
        /** A {@code + 1} of an effect changed to {@code + 0}, {@code + 2} or {@code - 1}. */
        INCREMENT_CHANGED,
        /** One assignment of an effect left out. */
        ASSIGNMENT_DROPPED,
        /** {@code done = 0} written as {@code done = 1}, or the other way round. */
        DONE_FLIPPED,
        /** No change at all: the negative control of the matrix, never generated. */
        UNCHANGED
    }

    /** The "mutant" that changes nothing: the matrix must report it as surviving. */
    static SqlMutant unchanged(SqlFragment fragment) {
        String original = fragment.of(LeaseSql.CONTRACT);
        return new SqlMutant(fragment.methodName() + ": unchanged", fragment, Kind.UNCHANGED, original, original);
    }

    /** The contract's SQL with this mutant's change. */
    LeaseSql sql() {
        return fragment.returning(mutated);
    }

    /**
     * Why SQLite refuses the statements the strategies build from this mutant, if it does: every
     * statement that embeds a rule or an effect is prepared on an empty in-memory database. A
     * mutant that does not compile is killed by any test that reaches its statement, and the
     * report says that it was the syntax, not a rule, that failed.
     */
    Optional<String> sqliteCompileError() {
        LeaseSql sql = sql();
        List<String> statements = List.of(
                LeaseSql.check(sql.claimable()), LeaseSql.compareAndSet(sql.claimEffect(), sql.claimable()),
                LeaseSql.check(sql.renewable()), LeaseSql.compareAndSet(sql.renewEffect(), sql.renewable()),
                LeaseSql.check(sql.completable()), LeaseSql.compareAndSet(sql.completeEffect(), sql.completable()),
                LeaseSql.check(sql.releasable()), LeaseSql.compareAndSet(sql.releaseEffect(), sql.releasable()),
                LeaseSql.write(sql.claimEffect()), LeaseSql.write(sql.renewEffect()),
                LeaseSql.write(sql.completeEffect()), LeaseSql.write(sql.releaseEffect()),
                sql.nextClaimableIds(LockingStrategy.Engine.SQLITE), sql.claimNextInOneStatement(LockingStrategy.Engine.SQLITE));
        try (Connection db = DriverManager.getConnection("jdbc:sqlite::memory:")) {
            try (Statement create = db.createStatement()) {
                create.execute(LeaseSql.CONTRACT.createTable());
            }
            for (String statement : statements) {
                try (PreparedStatement prepared = db.prepareStatement(statement)) {
                    prepared.getParameterMetaData();
                } catch (SQLException e) {
                    return Optional.of(e.getMessage() + " in: " + statement);
                }
            }
            return Optional.empty();
        } catch (SQLException e) {
            throw new AssertionError("cannot open an in-memory SQLite database", e);
        }
    }
}
