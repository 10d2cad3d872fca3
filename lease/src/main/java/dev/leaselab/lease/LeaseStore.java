package dev.leaselab.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A store of job leases with fencing tokens, as specified in {@code docs/CONTRACT.md}.
 *
 * <p>A worker {@linkplain #claim claims} a job and receives a fence: a number that grows with every
 * claim of that job and is never handed out twice. {@link #renew}, {@link #complete} and
 * {@link #release} are accepted only with the owner and fence of the current generation, so a
 * worker that stalled past its lease cannot overwrite the result of the worker that replaced it.
 *
 * <p>Time is whatever the caller says: {@code now} must not decrease between calls and {@code ttl}
 * is in the same unit. The store never reads a clock for lease decisions.
 *
 * <p>{@code false} and empty results mean "the store looked and the rule says no". A failure of
 * the database (busy past the timeout, I/O error, corrupt file) is a {@link LeaseStoreException}.
 * Implementations are safe to share between threads; several stores may share one database.
 */
public interface LeaseStore extends AutoCloseable {

    /**
     * Adds a job that nobody holds.
     *
     * @return true if the job was inserted; false if a job with that id exists (it is left as is)
     */
    boolean enqueue(String jobId);

    /** Reads the job as it is stored right now, or empty if there is no such job. */
    Optional<JobState> state(String jobId);

    /**
     * Takes the lease of a job that is not done and whose lease has expired ({@code until <= now}).
     *
     * @return the new fence, one larger than the previous one; empty if the job is missing, done,
     *     or held by a live lease
     */
    OptionalLong claim(String jobId, String owner, double now, double ttl);

    /**
     * Takes the lease of the next job in the queue: the oldest job that {@link #claim} would
     * grant ({@code done = 0 AND until <= now}), so a lease that expired under a stalled or dead
     * worker is simply the next job for someone else. Same as {@code claimNext(owner, now, ttl, 1)}.
     *
     * @return the lease, or empty if no job is claimable right now
     */
    default Optional<Lease> claimNext(String owner, double now, double ttl) {
        return claimNext(owner, now, ttl, 1).stream().findFirst();
    }

    /**
     * Takes the leases of up to {@code max} claimable jobs at once, oldest first, in one atomic
     * step of the store's strategy: no job is handed to two workers, and each job's fence grows by
     * one. "Oldest" is insertion order on SQLite; on PostgreSQL, which keeps no insertion order, it
     * is the job whose lease ran out first ({@code until}, never-claimed jobs first), then the id.
     * A job whose row another transaction holds locked at that moment may be passed over on
     * PostgreSQL: that transaction is claiming or writing it.
     *
     * @return the leases in queue order, fewer than {@code max} (or none) when fewer jobs are claimable
     * @throws IllegalArgumentException if {@code max} is not positive, or {@code now} or {@code ttl}
     *     are not as for {@link #claim}
     */
    List<Lease> claimNext(String owner, double now, double ttl, int max);

    /** Extends a live lease held by {@code owner} with {@code fence} to {@code now + ttl}. */
    boolean renew(String jobId, String owner, long fence, double now, double ttl);

    /**
     * Stores {@code result} and marks the job done, if {@code owner} holds a live lease with
     * {@code fence}. When refused, the stored result is kept.
     */
    boolean complete(String jobId, String owner, long fence, double now, String result);

    /**
     * Completes several leases in one atomic step: each completion is accepted or refused by the
     * rule of {@link #complete}, as if the completes ran one after another, and the accepted ones
     * are stored together, in one transaction and one commit, so a worker that finished a batch of
     * jobs pays for one commit instead of one per job. If the database fails, none of them is
     * stored. A job named twice is decided in list order: the first accepted completion wins and
     * the later ones are refused.
     *
     * <p>The default implementation calls {@link #complete} for each completion in turn, which is
     * not atomic: on a failure the ones before it stay stored. The stores of this library override
     * it, and apply the completions in job-id order, so that two batches that share a row lock it
     * in the same order.
     *
     * @return for each completion, in the order given, whether it was accepted
     * @throws NullPointerException naming {@code completions}, or {@code completions[i]} for a null element
     * @throws IllegalArgumentException if {@code now} is not as for {@link #complete}
     */
    default List<Boolean> completeAll(List<Completion> completions, double now) {
        Objects.requireNonNull(completions, "completions");
        for (int i = 0; i < completions.size(); i++) {
            Objects.requireNonNull(completions.get(i), "completions[" + i + "]");
        }
        List<Boolean> accepted = new ArrayList<>(completions.size());
        for (Completion c : completions) {
            accepted.add(complete(c.jobId(), c.owner(), c.fence(), now, c.result()));
        }
        return List.copyOf(accepted);
    }

    /**
     * Gives the lease back, if {@code owner} with {@code fence} is still the current generation
     * and the job is not done. The lease need not be live: a holder whose lease ran out may still
     * release it as long as nobody has claimed the job since (a claim would have moved the fence).
     * The fence is kept, so it is never handed out again.
     */
    boolean release(String jobId, String owner, long fence);

    /**
     * Lets every owner claim the job at the same time, each on its own thread, and returns their
     * results in the order of {@code owners}. For a claimable job exactly one result holds a fence.
     *
     * @throws LeaseStoreException if a claim fails (the first failure, the others suppressed), or if
     *     the caller is interrupted, which keeps its interrupt: interrupted before the claims were
     *     let go, none of them runs; interrupted later, a claim already at the database may still
     *     win the job although no result reports it
     */
    List<OptionalLong> claimMany(String jobId, List<String> owners, double now, double ttl);

    /** Releases the connections and threads of this store. Idempotent. */
    @Override
    void close();
}
