package dev.leaselab.stress;

import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.testkit.Database;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * One worker process of the {@link ProcessRaceDriver}: claims jobs on the shared database,
 * holds each for a while ("works", sometimes past the lease), renews, then completes or releases
 * it or lets it expire, and
 * writes every operation to its history file. Its lease clock is the wall clock in milliseconds,
 * which every process on the host reads alike.
 *
 * <p>It prints {@code HOLD job fence} when it starts working under a lease and {@code FREE} when
 * it is done with it, so that the driver can pause it with {@code SIGSTOP} while it holds one.
 * After a pause longer than the lease, its renew and its complete or release carry a stale fence.
 *
 * <p>It prints {@code READY} once its store is open, and stops when the stop file appears (or after
 * {@code maxMillis}, should the driver be gone).
 *
 * <p>Usage: {@code StressWorker database history store name seed slots ttlMillis workMillis stopFile maxMillis},
 * where {@code store} names a {@link StoreUnderTest} or a {@link Guest} served over the worker protocol.
 */
public final class StressWorker {

    private final RecordedStore store;
    private final String name;
    private final Random random;
    private final int slots;
    private final long ttl;
    private final long work;
    private final Map<Integer, Integer> epochs = new HashMap<>();

    private StressWorker(RecordedStore store, String name, long seed, int slots, long ttl, long work) {
        this.store = store;
        this.name = name;
        this.random = new Random(seed);
        this.slots = slots;
        this.ttl = ttl;
        this.work = work;
    }

    /** The id of a job: a slot, and the epoch that grows each time the slot's job is completed. */
    static String jobId(int slot, int epoch) {
        return "job-" + slot + "-" + epoch;
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 10) {
            throw new IllegalArgumentException(
                    "usage: StressWorker db history store name seed slots ttlMillis workMillis stopFile maxMillis");
        }
        Database db = Database.parse(args[0]);
        Path historyFile = Path.of(args[1]);
        Path stop = Path.of(args[8]);
        long deadline = System.nanoTime() + Long.parseLong(args[9]) * 1_000_000;
        try (LeaseStore lease = Guest.open(args[2], db);
                JsonLinesHistory history = JsonLinesHistory.create(historyFile)) {
            StressWorker worker = new StressWorker(new RecordedStore(lease, args[3], history), args[3],
                    Long.parseLong(args[4]), Integer.parseInt(args[5]), Long.parseLong(args[6]), Long.parseLong(args[7]));
            System.out.println("READY");
            System.out.flush();
            while (System.nanoTime() < deadline && !Files.exists(stop)) {
                worker.step();
            }
        }
    }

    /** One attempt: claim a random slot's job, and if it is won, work under the lease. */
    private void step() throws InterruptedException {
        int slot = random.nextInt(slots);
        String job = jobId(slot, epochs.getOrDefault(slot, 0));
        Op claim = store.claim(job, name, System.currentTimeMillis(), ttl);
        if (!claim.ok()) {
            if (claim.outcome() == Op.Outcome.REJECTED) {
                moveOnIfDone(slot, job);
            }
            Thread.sleep(random.nextInt(3));
            return;
        }
        long fence = claim.fence();
        System.out.println("HOLD " + job + " " + fence);
        System.out.flush();
        // Now and then the work overruns the lease, as after a long GC pause: the renew and the
        // complete that follow carry a stale fence, and another worker may hold the job by then.
        boolean overrun = random.nextInt(6) == 0;
        Thread.sleep(overrun ? ttl + random.nextInt((int) ttl + 1) : random.nextInt((int) work + 1));
        Op renew = store.renew(job, name, fence, System.currentTimeMillis(), ttl);
        Thread.sleep(random.nextInt((int) work / 4 + 1));
        int choice = random.nextInt(10);
        // A refused renew means the lease was lost (the worker was paused past it); the worker
        // writes its result anyway, as the late writer of the SPEC does: the fence must stop it.
        if (choice < 2 || renew.outcome() == Op.Outcome.REJECTED) {
            Op complete = store.complete(job, name, fence, System.currentTimeMillis(), "result-" + name + "-" + fence);
            if (complete.ok()) {
                moveOn(slot);
            }
        } else if (choice < 7) {
            store.release(job, name, fence);
        }
        // Otherwise the lease is left to expire, as a worker that crashed would leave it.
        System.out.println("FREE");
        System.out.flush();
    }

    private void moveOnIfDone(int slot, String job) {
        Optional<JobState> state = store.store().state(job);
        if (state.isPresent() && state.get().done()) {
            moveOn(slot);
        }
    }

    private void moveOn(int slot) {
        int epoch = epochs.merge(slot, 1, Integer::sum);
        store.store().enqueue(jobId(slot, epoch));
    }
}
