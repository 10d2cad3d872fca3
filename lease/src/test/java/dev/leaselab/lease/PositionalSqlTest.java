package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The translation of {@link LeaseSql}'s numbered parameters for PgJDBC: a wrong binding order would
 * compare the owner with the fence, so every statement of the contract is checked here too.
 */
class PositionalSqlTest {

    @Test
    void numberedParametersBecomePlainOnesBoundInTheOrderTheyAppear() {
        PositionalSql sql = PositionalSql.translate("UPDATE jobs SET until = ?5 WHERE id = ?1 AND (owner = ?2 AND fence = ?3 AND until > ?4)");
        assertEquals("UPDATE jobs SET until = ? WHERE id = ? AND (owner = ? AND fence = ? AND until > ?)", sql.sql());
        assertArrayEquals(new int[] {4, 0, 1, 2, 3}, sql.arguments());
    }

    @Test
    void aParameterUsedTwiceIsBoundTwiceAndOneLeftOutIsNotBound() {
        PositionalSql sql = PositionalSql.translate("SELECT 1 FROM jobs WHERE id = ?1 AND (until <= ?3 OR until = ?3)");
        assertEquals("SELECT 1 FROM jobs WHERE id = ? AND (until <= ? OR until = ?)", sql.sql());
        assertArrayEquals(new int[] {0, 2, 2}, sql.arguments());
    }

    @Test
    void questionMarksInsideQuotesAreText() {
        PositionalSql sql = PositionalSql.translate("SELECT '?1 it''s ?2', \"odd?3\" FROM jobs WHERE id = ?12");
        assertEquals("SELECT '?1 it''s ?2', \"odd?3\" FROM jobs WHERE id = ?", sql.sql());
        assertArrayEquals(new int[] {11}, sql.arguments());
    }

    @Test
    void aBareQuestionMarkIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PositionalSql.translate("SELECT ? FROM jobs"));
        assertTrue(e.getMessage().startsWith("unnumbered parameter"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PositionalSql.translate("SELECT ?0 FROM jobs"));
    }

    @Test
    void eachStatementIsTranslatedOnceAndTheTranslationReused() {
        String statement = "SELECT id FROM jobs WHERE owner = ?2 AND id = ?1";
        PositionalSql first = PositionalSql.of(statement);
        assertSame(first, PositionalSql.of(statement));
        assertEquals(PositionalSql.translate(statement).sql(), first.sql());
        assertArrayEquals(new int[] {1, 0}, first.arguments());
    }

    @Test
    void moreThanEightPlaceholdersAreAllBound() {
        PositionalSql sql = PositionalSql.translate("SELECT ?1, ?2, ?3, ?4, ?5, ?1, ?2, ?3, ?4, ?5");
        assertEquals("SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?", sql.sql());
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 0, 1, 2, 3, 4}, sql.arguments());
    }

    @Test
    void everyStatementOfTheContractTranslatesWithTheOperationsArguments() {
        LeaseSql sql = LeaseSql.CONTRACT;
        // Each rule and effect may only use the parameters its operation has (see LeaseSql).
        assertMaxArgument(1, sql.enqueue());
        assertMaxArgument(1, sql.selectState());
        assertMaxArgument(4, LeaseSql.compareAndSet(sql.claimEffect(), sql.claimable()));
        assertMaxArgument(4, LeaseSql.lockAndCheck(sql.claimable()));
        assertMaxArgument(5, LeaseSql.compareAndSet(sql.renewEffect(), sql.renewable()));
        assertMaxArgument(5, LeaseSql.compareAndSet(sql.completeEffect(), sql.completable()));
        assertMaxArgument(3, LeaseSql.compareAndSet(sql.releaseEffect(), sql.releasable()));
        assertMaxArgument(1, LeaseSql.advisoryLock());
    }

    private static void assertMaxArgument(int parameters, String statement) {
        for (int argument : PositionalSql.of(statement).arguments()) {
            assertTrue(argument < parameters, statement);
        }
    }
}
