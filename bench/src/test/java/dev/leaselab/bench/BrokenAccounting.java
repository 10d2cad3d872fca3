package dev.leaselab.bench;

import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStoreException;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * The negative controls of {@link AccountingTest}: each constant is an {@link Outcomes} whose
 * classification is wrong in one place, written the way a benchmark's own if/else/catch could
 * have been wrong, and names the scenario of {@link AccountingTest#checkAccounting} that must
 * reject it. They live in test code only; nothing in the benchmarks can reach them.
 */
enum BrokenAccounting {

    /** A queue turn that counts every job it was handed as done, without looking at the complete's answer. */
    HANDED_OUT_JOB_COUNTS_AS_WON(AccountingTest.QUEUE_REFUSED) {
        @Override
        Outcomes outcomes() {
            return new Outcomes() {
                @Override
                int drained(NextCall next, LeaseCall work) {
                    List<Lease> leases;
                    try {
                        leases = next.call();
                    } catch (LeaseStoreException e) {
                        failed++;
                        return -1;
                    }
                    if (leases.isEmpty()) {
                        lost++;
                        return 0;
                    }
                    int finished = 0;
                    for (Lease lease : leases) {
                        finished += work.call(lease) ? 1 : 0;
                        won++;
                    }
                    return finished;
                }
            };
        }
    },

    /** A completeAll that failed counted once, as if it were one job: the batch's other jobs vanish from the counts. */
    FAILED_COMPLETE_ALL_COUNTED_ONCE(AccountingTest.QUEUE_TOGETHER_UNDER_LOCK) {
        @Override
        Outcomes outcomes() {
            return new Outcomes() {
                @Override
                int drainedTogether(NextCall next, LeasesCall finish) {
                    List<Lease> leases = next.call();
                    int finished = 0;
                    try {
                        for (boolean accepted : finish.call(leases)) {
                            if (accepted) {
                                won++;
                                finished++;
                            } else {
                                refused++;
                            }
                        }
                    } catch (LeaseStoreException e) {
                        failed++;
                    }
                    return finished;
                }
            };
        }
    },

    /** A store that gave up (busy past the timeout) would show as throughput. */
    FAILED_CLAIM_COUNTS_AS_WON(AccountingTest.CLAIM_UNDER_LOCK) {
        @Override
        Outcomes outcomes() {
            return new Outcomes() {
                @Override
                long claimed(ClaimCall claim) {
                    try {
                        OptionalLong fence = claim.call();
                        if (fence.isPresent()) {
                            won++;
                            return fence.getAsLong();
                        }
                        lost++;
                        return LOST;
                    } catch (LeaseStoreException e) {
                        won++;
                        return FAILED;
                    }
                }
            };
        }
    },

    /** Every answered claim is a win: the check of the fence forgotten. */
    LOST_CLAIM_COUNTS_AS_WON(AccountingTest.CLAIM_OF_HELD_JOB) {
        @Override
        Outcomes outcomes() {
            return new Outcomes() {
                @Override
                long claimed(ClaimCall claim) {
                    OptionalLong fence;
                    try {
                        fence = claim.call();
                    } catch (LeaseStoreException e) {
                        failed++;
                        return FAILED;
                    }
                    won++;
                    return fence.orElse(LOST);
                }
            };
        }
    },

    /** A missing return: a won claim falls through and is counted lost as well. */
    WON_CLAIM_ALSO_COUNTS_AS_LOST(AccountingTest.CLAIM_OF_FREE_JOB) {
        @Override
        Outcomes outcomes() {
            return new Outcomes() {
                @Override
                long claimed(ClaimCall claim) {
                    try {
                        OptionalLong fence = claim.call();
                        if (fence.isPresent()) {
                            won++;
                        }
                        lost++;
                        return fence.orElse(LOST);
                    } catch (LeaseStoreException e) {
                        failed++;
                        return FAILED;
                    }
                }
            };
        }
    },

    /** Catching every exception turns a bug in the benchmark into a measurement of failures. */
    EVERY_EXCEPTION_COUNTS_AS_FAILED(AccountingTest.CLAIM_BUG) {
        @Override
        Outcomes outcomes() {
            return new Outcomes() {
                @Override
                long claimed(ClaimCall claim) {
                    try {
                        OptionalLong fence = claim.call();
                        if (fence.isPresent()) {
                            won++;
                            return fence.getAsLong();
                        }
                        lost++;
                        return LOST;
                    } catch (RuntimeException e) {
                        failed++;
                        return FAILED;
                    }
                }
            };
        }
    },

    /** A refused renew or complete is counted as the store having answered, so as a win. */
    REFUSED_COUNTS_AS_WON(AccountingTest.RENEW_BY_WRONG_OWNER) {
        @Override
        Outcomes outcomes() {
            return new Outcomes() {
                @Override
                boolean accepted(BooleanCall call) {
                    try {
                        boolean accepted = call.call();
                        won++;
                        return accepted;
                    } catch (LeaseStoreException e) {
                        failed++;
                        return false;
                    }
                }
            };
        }
    },

    /** A failure in the wrong counter: the report's failed column would read 0. */
    FAILED_RENEW_COUNTS_AS_REFUSED(AccountingTest.RENEW_UNDER_LOCK) {
        @Override
        Outcomes outcomes() {
            return new Outcomes() {
                @Override
                boolean accepted(BooleanCall call) {
                    try {
                        if (call.call()) {
                            won++;
                            return true;
                        }
                        refused++;
                        return false;
                    } catch (LeaseStoreException e) {
                        refused++;
                        return false;
                    }
                }
            };
        }
    },

    /** A cycle whose renew or complete was refused is counted as a finished job. */
    REFUSED_CYCLE_COUNTS_AS_WON(AccountingTest.CYCLE_REFUSED) {
        @Override
        Outcomes outcomes() {
            return new Outcomes() {
                @Override
                boolean cycled(ClaimCall claim, FencedCall rest) {
                    try {
                        OptionalLong fence = claim.call();
                        if (fence.isEmpty()) {
                            lost++;
                            return false;
                        }
                        boolean finished = rest.call(fence.getAsLong());
                        won++;
                        return finished;
                    } catch (LeaseStoreException e) {
                        failed++;
                        return false;
                    }
                }
            };
        }
    },

    /** The floor's busy failures would raise the floor, and so lower every ratio to it. */
    FAILED_UPDATE_COUNTS_AS_WON(AccountingTest.FLOOR_UNDER_LOCK) {
        @Override
        Outcomes outcomes() {
            return new Outcomes() {
                @Override
                int updated(UpdateCall update) {
                    try {
                        int changed = update.call();
                        if (changed == 1) {
                            won++;
                        } else {
                            refused++;
                        }
                        return changed;
                    } catch (SQLException e) {
                        won++;
                        return -1;
                    }
                }
            };
        }
    },

    /** Any update count is a win, even one that changed no row. */
    ZERO_ROW_UPDATE_COUNTS_AS_WON(AccountingTest.FLOOR_MISSING_ROW) {
        @Override
        Outcomes outcomes() {
            return new Outcomes() {
                @Override
                int updated(UpdateCall update) {
                    try {
                        int changed = update.call();
                        won++;
                        return changed;
                    } catch (SQLException e) {
                        failed++;
                        return -1;
                    }
                }
            };
        }
    };

    /** The scenario whose message the rejection must carry. */
    final String caughtBy;

    BrokenAccounting(String caughtBy) {
        this.caughtBy = caughtBy;
    }

    /** A fresh, broken counter set, as JMH would make one per thread. */
    abstract Outcomes outcomes();
}
