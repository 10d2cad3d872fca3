package dev.leaselab.lease;

import java.util.function.UnaryOperator;

/**
 * The statements of the strategies that read before they write, for one store: each rule of
 * {@link LeaseSql} as a check, each effect as an unconditional write (the check, under the
 * strategy's lock, has decided). A claim's write returns the new fence.
 */
record CheckedWrites(String claimCheck, String claimWrite, String renewCheck, String renewWrite,
        String completeCheck, String completeWrite, String releaseCheck, String releaseWrite) {

    /** The statements of {@code sql}, each rule turned into a check by {@code check}. */
    static CheckedWrites of(LeaseSql sql, UnaryOperator<String> check) {
        return new CheckedWrites(
                check.apply(sql.claimable()), LeaseSql.write(sql.claimEffect()) + " RETURNING fence",
                check.apply(sql.renewable()), LeaseSql.write(sql.renewEffect()),
                check.apply(sql.completable()), LeaseSql.write(sql.completeEffect()),
                check.apply(sql.releasable()), LeaseSql.write(sql.releaseEffect()));
    }
}
