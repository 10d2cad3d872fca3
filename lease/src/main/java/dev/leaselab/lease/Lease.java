package dev.leaselab.lease;

import java.util.Objects;

/**
 * A lease that {@link LeaseStore#claimNext} handed out: which job, to whom, with which fence, and
 * until when. The owner renews, completes or releases it with {@code jobId}, {@code owner} and
 * {@code fence}, exactly as after a {@link LeaseStore#claim}.
 *
 * @param jobId the job that was claimed
 * @param owner the owner that claimed it
 * @param fence the job's new fence, one larger than its previous one
 * @param until when the lease expires: the claim's {@code now + ttl}
 */
public record Lease(String jobId, String owner, long fence, double until) {

    /** @throws NullPointerException naming {@code jobId} or {@code owner} */
    public Lease {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(owner, "owner");
    }
}
