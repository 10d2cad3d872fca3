package dev.leaselab.lease;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;

/**
 * Wrong versions of the real store, each with exactly one change that keeps the happy path
 * working: the negative controls of the contract tests (the kill matrix) and of the stress suite.
 * Each is built from the shipped store by replacing one SQL fragment, the transaction, or one
 * method; none copies the store. They live in test code and never in the library jar.
 *
 * <p>The first constants are the eight wrong changes listed in {@code docs/CONTRACT.md}; each
 * {@link #origin()} gives its number there ("CONTRACT 4" is wrong change 4).
 */
public enum BrokenStore {

    /** CONTRACT 1: re-opening an existing file fails. */
    TABLE_WITHOUT_IF_NOT_EXISTS("CONTRACT 1") {
        @Override
        LeaseSql sql() {
            return new LeaseSql() {
                @Override
                String createTable() {
                    return super.createTable().replace("IF NOT EXISTS ", "");
                }
            };
        }
    },

    /** CONTRACT 2: re-enqueueing wipes a live lease and its fence. */
    ENQUEUE_OR_REPLACE("CONTRACT 2") {
        @Override
        LeaseSql sql() {
            return new LeaseSql() {
                @Override
                String enqueue() {
                    return "INSERT OR REPLACE INTO jobs (id) VALUES (?1)";
                }
            };
        }
    },

    /** CONTRACT 3: the state of a missing job is an empty record instead of absent. */
    STATE_OF_MISSING_IS_EMPTY_RECORD("CONTRACT 3") {
        @Override
        LeaseStore wrap(LeaseStore store) {
            return new ForwardingLeaseStore(store) {
                @Override
                public Optional<JobState> state(String jobId) {
                    return Optional.of(delegate.state(jobId).orElse(new JobState(jobId, null, 0, 0, null, false)));
                }
            };
        }
    },

    /** CONTRACT 4: a lease is still held at now == until, so the boundary is not claimable. */
    CLAIM_HELD_AT_BOUNDARY("CONTRACT 4") {
        @Override
        LeaseSql sql() {
            return new LeaseSql() {
                @Override
                String claimable() {
                    return "done = 0 AND until < ?3";
                }
            };
        }
    },

    /** CONTRACT 5: renew compares the stored expiry against the new one instead of against now. */
    RENEW_AGAINST_NEW_EXPIRY("CONTRACT 5") {
        @Override
        LeaseSql sql() {
            return new LeaseSql() {
                @Override
                String renewable() {
                    return "owner = ?2 AND fence = ?3 AND done = 0 AND until >= ?5";
                }
            };
        }
    },

    /** CONTRACT 5: renew does not look at the expiry, so an expired lease comes back to life. */
    RENEW_EXPIRED_LEASE("CONTRACT 5") {
        @Override
        LeaseSql sql() {
            return new LeaseSql() {
                @Override
                String renewable() {
                    return "owner = ?2 AND fence = ?3 AND done = 0";
                }
            };
        }
    },

    /** CONTRACT 6: complete accepts {@code done >= 0}, so a done job is completed again. */
    COMPLETE_WHEN_DONE("CONTRACT 6") {
        @Override
        LeaseSql sql() {
            return new LeaseSql() {
                @Override
                String completable() {
                    return "owner = ?2 AND fence = ?3 AND done >= 0 AND until > ?4";
                }
            };
        }
    },

    /** CONTRACT 7: release resets the fence, so the next claim hands out an old token again. */
    RELEASE_RESETS_FENCE("CONTRACT 7") {
        @Override
        LeaseSql sql() {
            return new LeaseSql() {
                @Override
                String releaseEffect() {
                    return "owner = NULL, until = 0, fence = 0";
                }
            };
        }
    },

    /** CONTRACT 8: claimMany only lets the first owner claim: a race that is never raced. */
    CLAIM_MANY_FIRST_OWNER_ONLY("CONTRACT 8") {
        @Override
        LeaseStore wrap(LeaseStore store) {
            return new ForwardingLeaseStore(store) {
                @Override
                public List<OptionalLong> claimMany(String jobId, List<String> owners, double now, double ttl) {
                    List<OptionalLong> results = new ArrayList<>();
                    for (int i = 0; i < owners.size(); i++) {
                        results.add(i == 0 ? delegate.claim(jobId, owners.get(0), now, ttl) : OptionalLong.empty());
                    }
                    return results;
                }
            };
        }
    },

    /**
     * A claimMany that never races: its owners claim one after another, each on a thread of its own
     * and in a random order, so exactly one wins and any of them may, and every result is right.
     * Only the start and end of its claims (stamped through {@link ClaimManyProbe}, as the real
     * store stamps them) show that no two ever met: before the stamps, this claimMany, as a new user
     * wrote it (issue 16), passed the contract suite and the stress gate.
     */
    CLAIM_MANY_ONE_AT_A_TIME("CONTRACT 17 (claimMany overlap)") {
        @Override
        LeaseStore wrap(LeaseStore store) {
            return new ForwardingLeaseStore(store) {
                @Override
                public List<OptionalLong> claimMany(String jobId, List<String> owners, double now, double ttl) {
                    // The real store's argument checks, so that only the missing race tells it apart.
                    Objects.requireNonNull(jobId, "jobId");
                    Objects.requireNonNull(owners, "owners");
                    for (int i = 0; i < owners.size(); i++) {
                        Objects.requireNonNull(owners.get(i), "owners[" + i + "]");
                    }
                    JdbcLeaseStore.expiry(now, ttl);
                    ClaimManyProbe probe = ClaimManyProbe.current();
                    List<Integer> order = new ArrayList<>(IntStream.range(0, owners.size()).boxed().toList());
                    Collections.shuffle(order, ThreadLocalRandom.current());
                    OptionalLong[] results = new OptionalLong[owners.size()];
                    for (int i : order) {
                        String owner = owners.get(i);
                        FutureTask<OptionalLong> claim = new FutureTask<>(
                                () -> probe.stamp(owner, () -> delegate.claim(jobId, owner, now, ttl)));
                        Thread thread = new Thread(claim, "one-at-a-time-claim");
                        thread.setDaemon(true);
                        thread.start();
                        try {
                            results[i] = claim.get();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new LeaseStoreException("interrupted while claiming " + jobId, e);
                        } catch (ExecutionException e) {
                            throw e.getCause() instanceof RuntimeException r
                                    ? r : new LeaseStoreException("claimMany failed", e.getCause());
                        }
                    }
                    return Arrays.asList(results);
                }
            };
        }
    },

    /**
     * CONTRACT 8: check-then-act. Every write reads the row in one autocommit statement and writes in
     * another, so two claimants can both see the lease expired and both win
     * ({@link CheckThenActWithoutLock}).
     */
    CLAIM_READ_THEN_WRITE("CONTRACT 8") {
        @Override
        WriteProtocol protocol(LockingStrategy strategy, LeaseSql sql, StoreOptions options) {
            return new CheckThenActWithoutLock(sql, LockingStrategy.Engine.SQLITE);
        }
    },

    /**
     * A database failure passed off as a refusal: {@code SQLITE_BUSY} past the timeout becomes
     * {@code false} or an empty claim, so the caller cannot tell "no" from "could not ask".
     */
    BUSY_IS_A_REFUSAL("CONTRACT 9 (added here)") {
        @Override
        WriteProtocol protocol(LockingStrategy strategy, LeaseSql sql, StoreOptions options) {
            return new BusyAsRefusal(strategy.protocol(sql, options));
        }
    },

    /**
     * A claim's {@code RETURNING} row read, its statement closed before running to its end: the
     * answers are right, but SQLite never checkpoints the WAL after such a commit.
     */
    CLAIM_ROWS_NOT_READ_TO_THE_END("CONTRACT 10 (found by the benchmarks)") {
        @Override
        WriteProtocol protocol(LockingStrategy strategy, LeaseSql sql, StoreOptions options) {
            return new ClaimRowsNotReadToTheEnd(strategy.protocol(sql, options), sql);
        }
    },

    /** A stale writer's complete: neither owner nor fence is checked, only that the job is live. */
    COMPLETE_WITHOUT_FENCE_CHECK("CONTRACT 11 (stress control)") {
        @Override
        LeaseSql sql() {
            return new LeaseSql() {
                @Override
                String completable() {
                    return "done = 0 AND until > ?4";
                }
            };
        }
    },

    /** The queue without its {@code done} check: claimNext hands out a job that is already done. */
    CLAIM_NEXT_HANDS_OUT_DONE_JOBS("CONTRACT 13 (claimNext)") {
        @Override
        LeaseSql sql() {
            return new LeaseSql() {
                @Override
                String nextClaimable() {
                    return "until <= ?3";
                }
            };
        }
    },

    /**
     * The queue of fresh jobs only ({@code until = 0}): a lease that expired under a dead worker
     * is never handed out again, so its job is skipped forever.
     */
    CLAIM_NEXT_SKIPS_EXPIRED_LEASES("CONTRACT 14 (claimNext)") {
        @Override
        LeaseSql sql() {
            return new LeaseSql() {
                @Override
                String nextClaimable() {
                    return "done = 0 AND until = 0";
                }
            };
        }
    },

    /** claimNext picks in one statement and writes in another: two workers are handed one job. */
    CLAIM_NEXT_READ_THEN_WRITE("CONTRACT 15 (claimNext)") {
        @Override
        WriteProtocol protocol(LockingStrategy strategy, LeaseSql sql, StoreOptions options) {
            return new ClaimNextReadThenWrite(strategy.protocol(sql, options), sql);
        }
    },

    /**
     * A batch that hands one job out twice: the last lease of a batch of two or more is the
     * first one again, as a batch loop that claims a job it already claimed would return.
     */
    CLAIM_NEXT_BATCH_REPEATS_A_JOB("CONTRACT 16 (claimNext)") {
        @Override
        LeaseStore wrap(LeaseStore store) {
            return new ForwardingLeaseStore(store) {
                @Override
                public List<Lease> claimNext(String owner, double now, double ttl, int max) {
                    List<Lease> batch = new ArrayList<>(delegate.claimNext(owner, now, ttl, max));
                    if (batch.size() >= 2) {
                        batch.set(batch.size() - 1, batch.get(0));
                    }
                    return batch;
                }
            };
        }
    },

    /**
     * completeAll with a commit per completion ({@link CompletesOneCommitEach}): the answers are
     * right, but a batch that fails half-way leaves the completes before the failure stored.
     */
    COMPLETE_ALL_ONE_COMMIT_EACH("CONTRACT 20 (completeAll)") {
        @Override
        WriteProtocol protocol(LockingStrategy strategy, LeaseSql sql, StoreOptions options) {
            return new CompletesOneCommitEach(strategy.protocol(sql, options));
        }
    },

    /**
     * completeAll answers in the order it applied the completions (job-id order), not in the
     * order the caller gave them: a worker then takes another job's answer for its own.
     */
    COMPLETE_ALL_ANSWERS_IN_JOB_ID_ORDER("CONTRACT 21 (completeAll)") {
        @Override
        LeaseStore wrap(LeaseStore store) {
            return new ForwardingLeaseStore(store) {
                @Override
                public List<Boolean> completeAll(List<Completion> completions, double now) {
                    List<Completion> sorted = new ArrayList<>(completions);
                    sorted.sort(java.util.Comparator.comparing(Completion::jobId));
                    return delegate.completeAll(sorted, now);
                }
            };
        }
    },

    /**
     * A queue whose lock is never free: every claimNext fails as SQLite's busy past the timeout
     * does. The negative control of the drain test's bounded retry of a failed claimNext, which
     * must give up and fail instead of trying forever.
     */
    CLAIM_NEXT_ALWAYS_BUSY("the drain test's retry bound (added here)") {
        @Override
        LeaseStore wrap(LeaseStore store) {
            return new ForwardingLeaseStore(store) {
                @Override
                public Optional<Lease> claimNext(String owner, double now, double ttl) {
                    throw busy();
                }

                @Override
                public List<Lease> claimNext(String owner, double now, double ttl, int max) {
                    throw busy();
                }

                private LeaseStoreException busy() {
                    return new LeaseStoreException("the queue is locked",
                            new java.sql.SQLException("[SQLITE_BUSY] The database file is locked (a broken variant)"));
                }
            };
        }
    };

    private final String origin;

    BrokenStore(String origin) {
        this.origin = origin;
    }

    /** Where this variant comes from: its number in docs/CONTRACT.md's list of wrong changes. */
    public String origin() {
        return origin;
    }

    /** Opens this broken variant of the store with default options. */
    public LeaseStore open(Path file, LockingStrategy strategy) {
        return open(file, strategy, StoreOptions.defaults());
    }

    /** Opens this broken variant of the store on {@code file}. */
    public LeaseStore open(Path file, LockingStrategy strategy, StoreOptions options) {
        LeaseSql sql = sql();
        return wrap(new SqliteLeaseStore(file, strategy, options, sql, protocol(strategy, sql, options)));
    }

    LeaseSql sql() {
        return LeaseSql.CONTRACT;
    }

    WriteProtocol protocol(LockingStrategy strategy, LeaseSql sql, StoreOptions options) {
        return strategy.protocol(sql, options);
    }

    LeaseStore wrap(LeaseStore store) {
        return store;
    }
}
