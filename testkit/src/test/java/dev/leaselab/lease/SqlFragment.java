package dev.leaselab.lease;

import java.util.function.Function;

/**
 * The methods of {@link LeaseSql} that the generated mutants change: each operation's rule (a
 * {@code WHERE} fragment) and effect (a {@code SET} fragment). Each constant reads its fragment from
 * a {@link LeaseSql} and builds a {@link LeaseSql} whose one method returns another text.
 *
 * <p>{@code enqueue()} and {@code claimNextInOneStatement(engine)} are not here: the first has no
 * comparison, conjunct or increment to mutate, and the second is built from {@link #CLAIM_EFFECT}
 * and {@link #NEXT_CLAIMABLE}, so their mutants reach it (on SQLite it has no comparison of its own).
 */
enum SqlFragment {

    CLAIMABLE("claimable", Role.RULE, LeaseSql::claimable),
    NEXT_CLAIMABLE("nextClaimable", Role.RULE, LeaseSql::nextClaimable),
    RENEWABLE("renewable", Role.RULE, LeaseSql::renewable),
    COMPLETABLE("completable", Role.RULE, LeaseSql::completable),
    RELEASABLE("releasable", Role.RULE, LeaseSql::releasable),
    CLAIM_EFFECT("claimEffect", Role.EFFECT, LeaseSql::claimEffect),
    RENEW_EFFECT("renewEffect", Role.EFFECT, LeaseSql::renewEffect),
    COMPLETE_EFFECT("completeEffect", Role.EFFECT, LeaseSql::completeEffect),
    RELEASE_EFFECT("releaseEffect", Role.EFFECT, LeaseSql::releaseEffect);

    /** What a fragment is: a conjunction of comparisons, or a list of assignments. */
    enum Role {
        RULE,
        EFFECT
    }

    private final String methodName;
    private final Role role;
    private final Function<LeaseSql, String> reader;

    SqlFragment(String methodName, Role role, Function<LeaseSql, String> reader) {
        this.methodName = methodName;
        this.role = role;
        this.reader = reader;
    }

    /** The name of the {@link LeaseSql} method, as the report and the mutant ids show it. */
    String methodName() {
        return methodName;
    }

    Role role() {
        return role;
    }

    /** The fragment as {@code sql} writes it. */
    String of(LeaseSql sql) {
        return reader.apply(sql);
    }

    /** The contract's SQL with this one method returning {@code fragment} instead. */
    LeaseSql returning(String fragment) {
        return new OneFragmentReplaced(this, fragment);
    }

    /** {@link LeaseSql} with the method of one constant returning another text; every other method is the contract's. */
    private static final class OneFragmentReplaced extends LeaseSql {
        private final SqlFragment replaced;
        private final String fragment;

        OneFragmentReplaced(SqlFragment replaced, String fragment) {
            this.replaced = replaced;
            this.fragment = fragment;
        }

        private String or(SqlFragment method, String contract) {
            return method == replaced ? fragment : contract;
        }

        @Override
        String claimable() {
            return or(CLAIMABLE, super.claimable());
        }

        @Override
        String nextClaimable() {
            return or(NEXT_CLAIMABLE, super.nextClaimable());
        }

        @Override
        String renewable() {
            return or(RENEWABLE, super.renewable());
        }

        @Override
        String completable() {
            return or(COMPLETABLE, super.completable());
        }

        @Override
        String releasable() {
            return or(RELEASABLE, super.releasable());
        }

        @Override
        String claimEffect() {
            return or(CLAIM_EFFECT, super.claimEffect());
        }

        @Override
        String renewEffect() {
            return or(RENEW_EFFECT, super.renewEffect());
        }

        @Override
        String completeEffect() {
            return or(COMPLETE_EFFECT, super.completeEffect());
        }

        @Override
        String releaseEffect() {
            return or(RELEASE_EFFECT, super.releaseEffect());
        }
    }
}
