package dev.leaselab.lease;

import java.util.function.Function;

/**
 * The methods of {@link LeaseSql} that the generated mutants change: each operation's rule (a
 * {@code WHERE} fragment) and effect (a {@code SET} fragment). Each constant reads its fragment from
 * a {@link LeaseSql} and builds a {@link LeaseSql} whose one method returns another text, as the
 * hand-written variants of {@link BrokenStore} do.
 *
 * <p>{@code enqueue()} and {@code claimNextInOneStatement(engine)} are not here: the first has no
 * comparison, conjunct or increment to mutate, and the second is built from {@link #CLAIM_EFFECT}
 * and {@link #NEXT_CLAIMABLE}, so their mutants reach it (on SQLite it has no comparison of its own).
 */
enum SqlFragment {

    CLAIMABLE("claimable", Role.RULE, LeaseSql::claimable) {
        @Override
        LeaseSql returning(String fragment) {
            return new LeaseSql() {
                @Override
                String claimable() {
                    return fragment;
                }
            };
        }
    },
    NEXT_CLAIMABLE("nextClaimable", Role.RULE, LeaseSql::nextClaimable) {
        @Override
        LeaseSql returning(String fragment) {
            return new LeaseSql() {
                @Override
                String nextClaimable() {
                    return fragment;
                }
            };
        }
    },
    RENEWABLE("renewable", Role.RULE, LeaseSql::renewable) {
        @Override
        LeaseSql returning(String fragment) {
            return new LeaseSql() {
                @Override
                String renewable() {
                    return fragment;
                }
            };
        }
    },
    COMPLETABLE("completable", Role.RULE, LeaseSql::completable) {
        @Override
        LeaseSql returning(String fragment) {
            return new LeaseSql() {
                @Override
                String completable() {
                    return fragment;
                }
            };
        }
    },
    RELEASABLE("releasable", Role.RULE, LeaseSql::releasable) {
        @Override
        LeaseSql returning(String fragment) {
            return new LeaseSql() {
                @Override
                String releasable() {
                    return fragment;
                }
            };
        }
    },
    CLAIM_EFFECT("claimEffect", Role.EFFECT, LeaseSql::claimEffect) {
        @Override
        LeaseSql returning(String fragment) {
            return new LeaseSql() {
                @Override
                String claimEffect() {
                    return fragment;
                }
            };
        }
    },
    RENEW_EFFECT("renewEffect", Role.EFFECT, LeaseSql::renewEffect) {
        @Override
        LeaseSql returning(String fragment) {
            return new LeaseSql() {
                @Override
                String renewEffect() {
                    return fragment;
                }
            };
        }
    },
    COMPLETE_EFFECT("completeEffect", Role.EFFECT, LeaseSql::completeEffect) {
        @Override
        LeaseSql returning(String fragment) {
            return new LeaseSql() {
                @Override
                String completeEffect() {
                    return fragment;
                }
            };
        }
    },
    RELEASE_EFFECT("releaseEffect", Role.EFFECT, LeaseSql::releaseEffect) {
        @Override
        LeaseSql returning(String fragment) {
            return new LeaseSql() {
                @Override
                String releaseEffect() {
                    return fragment;
                }
            };
        }
    };

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
    abstract LeaseSql returning(String fragment);
}
