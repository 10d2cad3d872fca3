/**
 * The concurrency gate of leaselab: a race driver that repeats claim races across threads and
 * across worker processes (with {@code kill -9} and {@code SIGSTOP} faults), a checker that judges
 * the recorded histories against the lease contract, and the negative controls that the gate
 * must catch every time. {@link dev.leaselab.stress.StressMain} runs it all; power-loss races on a
 * file system that forgets unsynced writes are {@link dev.leaselab.stress.PowerLossMain}'s.
 */
package dev.leaselab.stress;
