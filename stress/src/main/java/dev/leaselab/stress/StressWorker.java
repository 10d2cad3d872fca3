package dev.leaselab.stress;

import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.testkit.Database;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;

/**
 * One worker process of the {@link ProcessRaceDriver}: claims jobs on the shared database,
 * holds each for a while ("works", sometimes past the lease), renews, then completes or releases
 * it or lets it expire, and
 * writes every operation to its history file. Its lease clock is the wall clock in milliseconds,
 * which every process on the host reads alike.
 *
 * <p>It prints {@code HOLD job fence} while it works under a lease and {@code FREE} before each call
 * to the store, so that the driver can pause it with {@code SIGSTOP} while it works, and lets a
 * pause that lands inside a call go at once (as {@link DrainWorker} does): a call begun before a
 * takeover proves nothing when it is refused, and one that holds the write lock stops every other
 * worker as well. After a pause longer than the lease, its renew and its complete or release carry
 * a stale fence.
 *
 * <p>Now and then, between two attempts, it runs a contract probe ({@link #probe}) on jobs of its
 * own, which no other worker touches: moments of the contract that the race on the hot job
 * brings about rarely or never (a claim at the exact expiry, a second complete, the state of a
 * job that does not exist, claimMany). Probes go into the same history, so the checker judges
 * them like every other operation; they take a small share of the worker's time.
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
    private final PrintStream announce;

    /**
     * The mean time between two claimMany probes of a worker, in milliseconds of the wall clock:
     * often, since rule 11 needs {@value HistoryChecker#FIRST_OWNER_CALLS} calls of a store in a
     * race (a quick race of 6 s has one or two guest workers next to the Java ones).
     */
    static final long MANY_PROBE_MILLIS = 50;
    /** The mean time between two of the other probes, which each show their wrong change at once. */
    static final long PROBE_MILLIS = 500;
    /**
     * A probe is followed by at least this many times its own duration without one, so that
     * probes take a small share of a worker's time however slow its store is (the exact-expiry
     * probe of a Python worker takes about 20 ms next to Java workers and 360 ms among Python
     * workers alone). The claimMany probe, which rule 11 needs often, is spaced by
     * {@value #MANY_PROBE_SPACING} times its duration.
     */
    static final int PROBE_SPACING = 8;
    static final int MANY_PROBE_SPACING = 3;
    /**
     * The longest pause that spacing imposes, in milliseconds: a probe that a {@code SIGSTOP} or a
     * busy database made last half a second must not keep the next one out of the race.
     */
    static final long MAX_PROBE_PAUSE_MILLIS = 1500;
    /** The lease time of a probe's jobs, in the milliseconds of the lease clock. */
    static final long PROBE_TTL = 3;
    /** The owners of a probe's claimMany. */
    static final int PROBE_OWNERS = 3;
    /** The owners of this worker's claimMany probes, named by its store, as rule 11 groups the calls. */
    private final List<String> manyOwners = new ArrayList<>();
    private long probes;
    private boolean expiryProbeNext;
    private long nextManyProbe;
    private long nextProbe;

    /** @param announce where {@code HOLD} and {@code FREE} go */
    StressWorker(RecordedStore store, String storeName, String name, long seed, int slots, long ttl, long work,
            PrintStream announce) {
        this.store = store;
        this.announce = Objects.requireNonNull(announce, "announce");
        this.name = name;
        this.random = new Random(seed);
        this.slots = slots;
        this.ttl = ttl;
        this.work = work;
        for (int i = 0; i < PROBE_OWNERS; i++) {
            manyOwners.add(storeName + "-many-" + i);
        }
        long started = System.nanoTime();
        nextManyProbe = started + probeGap(MANY_PROBE_MILLIS);
        nextProbe = started + probeGap(PROBE_MILLIS);
    }

    /** A seeded time to the next probe: uniform around {@code mean} milliseconds, in nanoseconds. */
    private long probeGap(long mean) {
        return (long) (mean * 1e6 * (0.5 + random.nextDouble()));
    }

    /** The pause after a probe that took {@code nanos}: {@code times} its duration, at most {@link #MAX_PROBE_PAUSE_MILLIS}. */
    private static long spacing(int times, long nanos) {
        return Math.min(times * nanos, MAX_PROBE_PAUSE_MILLIS * 1_000_000);
    }

    /** How a worker names its store in its claimMany owners: a guest's command is "guest". */
    static String storeName(String storeArgument) {
        return storeArgument.startsWith("guest:") ? "guest" : storeArgument;
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
            StressWorker worker = new StressWorker(new RecordedStore(lease, args[3], history), storeName(args[2]), args[3],
                    Long.parseLong(args[4]), Integer.parseInt(args[5]), Long.parseLong(args[6]), Long.parseLong(args[7]),
                    System.out);
            System.out.println("READY");
            System.out.flush();
            while (System.nanoTime() < deadline && !Files.exists(stop)) {
                worker.step();
            }
        }
    }

    /** One attempt: claim a random slot's job, and if it is won, work under the lease; or a probe, when one is due. */
    void step() throws InterruptedException {
        long began = System.nanoTime();
        if (began >= nextManyProbe) {
            claimManyProbe();
            long ended = System.nanoTime();
            nextManyProbe = ended + Math.max(probeGap(MANY_PROBE_MILLIS), spacing(MANY_PROBE_SPACING, ended - began));
            return;
        }
        if (began >= nextProbe) {
            probe();
            long ended = System.nanoTime();
            nextProbe = ended + Math.max(probeGap(PROBE_MILLIS), spacing(PROBE_SPACING, ended - began));
            return;
        }
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
        String held = "HOLD " + job + " " + fence;
        say(held);
        // Now and then the work overruns the lease, as after a long GC pause: the renew and the
        // complete that follow carry a stale fence, and another worker may hold the job by then.
        boolean overrun = random.nextInt(6) == 0;
        Thread.sleep(overrun ? ttl + random.nextInt((int) ttl + 1) : random.nextInt((int) work + 1));
        say("FREE");
        Op renew = store.renew(job, name, fence, System.currentTimeMillis(), ttl);
        say(held);
        Thread.sleep(random.nextInt((int) work / 4 + 1));
        say("FREE");
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
    }

    private void say(String line) {
        announce.println(line);
        announce.flush();
    }

    private void moveOnIfDone(int slot, String job) {
        Optional<JobState> state = store.store().state(job);
        if (state.isPresent() && state.get().done()) {
            moveOn(slot);
        }
    }

    private void moveOn(int slot) {
        int epoch = epochs.merge(slot, 1, Integer::sum);
        store.enqueue(jobId(slot, epoch));
    }

    /**
     * claimMany of a fresh job of this worker's ({@code probe-<worker>-<n>}) by
     * {@value #PROBE_OWNERS} owners: one winner (rules 1 and 9), and not always the first owner
     * (rule 11, over the calls of every worker of this store in the race).
     */
    private void claimManyProbe() {
        String job = Op.PROBE_JOB + name + "-" + probes++;
        store.enqueue(job);
        store.claimMany(job, manyOwners, System.currentTimeMillis(), PROBE_TTL);
    }

    /**
     * One contract probe, on jobs that only this worker touches, in turn:
     * <ul>
     *   <li>a job never enqueued ({@code never-<worker>-<n>}): its state is absent and a claim of
     *       it is refused (rule 10);
     *   <li>exact expiry ({@code probe-<worker>-<n>}): a claim at {@code now = t}; an enqueue of
     *       the job again, which must leave it as it is (a reset fence shows as fence 1 handed out
     *       twice, rule 1); at {@code now = t + ttl} exactly a renew by its holder, which must be
     *       refused (rule 8: a renew needs {@code until > now}), and a claim by another owner,
     *       which must be granted (rule 9); the new holder releases the lease and claims again,
     *       which must take the next fence (rule 1: a release keeps the fence), completes the
     *       job, then completes it again with the same fence, which must be refused (rule 4).
     * </ul>
     * The lease clock of the exact-expiry probe runs ahead only as far as the wall clock has: it
     * waits until {@code t + ttl} has passed, so this worker's {@code now} never goes back.
     */
    private void probe() throws InterruptedException {
        long n = probes++;
        String job = Op.PROBE_JOB + name + "-" + n;
        expiryProbeNext = !expiryProbeNext;
        if (!expiryProbeNext) {
            store.enqueue(job);
            long t = System.currentTimeMillis();
            Op first = store.claim(job, name, t, PROBE_TTL);
            if (!first.ok()) {
                return;
            }
            while (System.currentTimeMillis() < t + PROBE_TTL) {
                Thread.sleep(1);
            }
            store.enqueue(job);
            double expiry = t + PROBE_TTL;
            store.renew(job, name, first.fence(), expiry, PROBE_TTL);
            String next = name + "-next";
            Op second = store.claim(job, next, expiry, PROBE_TTL);
            if (!second.ok()) {
                return;
            }
            store.release(job, next, second.fence());
            Op third = store.claim(job, next, expiry, PROBE_TTL);
            if (!third.ok()) {
                return;
            }
            String result = "result-" + next + "-" + third.fence();
            if (store.complete(job, next, third.fence(), expiry, result).ok()) {
                store.complete(job, next, third.fence(), expiry, result);
            }
        } else {
            String never = Op.NEVER_ENQUEUED + name + "-" + n;
            store.state(never);
            store.claim(never, name, System.currentTimeMillis(), PROBE_TTL);
        }
    }
}
