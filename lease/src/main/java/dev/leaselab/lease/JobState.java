package dev.leaselab.lease;

/**
 * One row of the {@code jobs} table as stored at the moment it was read.
 *
 * @param id the job id
 * @param owner the holder of the current lease, or null when nobody holds it
 * @param until the time at which the current lease expires (0 when never claimed or released)
 * @param fence the generation of the lease: the number of claims so far
 * @param result the stored result, or null before the job is completed
 * @param done whether the job has been completed
 */
public record JobState(String id, String owner, double until, long fence, String result, boolean done) {}
