package dev.leaselab.lease;

import java.util.Objects;

/**
 * One complete of a {@link LeaseStore#completeAll}: the lease's job, owner and fence, exactly as
 * {@link LeaseStore#complete} takes them, and the result to store.
 *
 * @param jobId the job to complete
 * @param owner the owner that holds its lease
 * @param fence the fence of that lease
 * @param result the result to store
 */
public record Completion(String jobId, String owner, long fence, String result) {

    /** @throws NullPointerException naming {@code jobId}, {@code owner} or {@code result} */
    public Completion {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(result, "result");
    }

    /** The complete of a lease that {@link LeaseStore#claimNext} handed out. */
    public static Completion of(Lease lease, String result) {
        Objects.requireNonNull(lease, "lease");
        return new Completion(lease.jobId(), lease.owner(), lease.fence(), result);
    }
}
