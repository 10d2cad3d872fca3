package dev.leaselab.stress;

import dev.leaselab.lease.Completion;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.testkit.Database;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;

/**
 * One worker of the {@link ProcessDrainDriver}, as the users of a job queue run them: it takes the
 * next jobs with {@code claimNext} (1 to {@link #MAX_BATCH} at a time, chosen at random), works on
 * each for a moment, renews it now and then, and completes it with a result that names the
 * worker and the fence ({@code w3:f7}): job by job, or (half the batches of more than one job) the
 * whole batch in one {@code completeAll} after its last job's work. Its lease clock is the wall clock in seconds and its
 * history is stamped with {@link HostClock}, which every JVM on the host reads alike.
 *
 * <p>While it works on a batch, a heartbeat renews every lease of the batch not yet completed each
 * third of a lease. A renew refused means the lease is lost (the worker was paused past it, and
 * someone else took the job): the worker still completes the job, as the late writer of the
 * contract does, and the fence must refuse it.
 *
 * <p>A job handed out with a fence above 1 has come round again: its previous holder died, or is
 * only paused. The worker then holds the batch for {@code takeoverHold} before working on it, so
 * that when a paused holder wakes up its late writes meet a live lease of another owner: the case
 * in which only the fence can refuse them (a done job refuses them anyway).
 *
 * <p>In a worker process it prints {@code READY} once its store is open and warm, {@code HOLD job fence ...}
 * while it works on a batch, and {@code FREE} before each write and when the batch is done, so the
 * driver can pause it while it holds leases and not inside a call to the store; it stops when the
 * stop file appears (or after {@code maxMillis}, should the driver be gone).
 *
 * <p>Usage: {@code DrainWorker database history store name seed ttlMillis stopFile maxMillis queueIsEmpty}
 */
public final class DrainWorker {

    /** The largest batch a worker asks claimNext for. */
    static final int MAX_BATCH = 3;

    /** How long a worker holds a batch, announced, right before completing it in one completeAll. */
    static final long BEFORE_BATCH_WRITE_MILLIS = 5;

    private final RecordedStore store;
    private final String name;
    private final Random random;
    private final long ttlMillis;
    private final long maxWorkMillis;
    private final Path pauseMarker;
    private final PrintStream announce;

    /** A lease of the batch in hand. */
    private static final class Held {
        final Op claim;
        boolean lost;
        boolean finished;

        Held(Op claim) {
            this.claim = claim;
        }
    }

    /**
     * @param maxWorkMillis the longest work on one job (each takes a random time up to it)
     * @param pauseMarker the file that exists while the driver has a worker paused, or null
     * @param announce where {@code HOLD} and {@code FREE} go, or null
     */
    DrainWorker(RecordedStore store, String name, long seed, long ttlMillis, long maxWorkMillis, Path pauseMarker,
            PrintStream announce) {
        this.store = Objects.requireNonNull(store, "store");
        this.name = Objects.requireNonNull(name, "name");
        if (ttlMillis < 10) {
            throw new IllegalArgumentException("ttlMillis must be at least 10: " + ttlMillis);
        }
        if (maxWorkMillis < 0 || maxWorkMillis > Integer.MAX_VALUE - 1) {
            throw new IllegalArgumentException("maxWorkMillis must be 0.." + (Integer.MAX_VALUE - 1) + ": " + maxWorkMillis);
        }
        this.random = new Random(seed);
        this.ttlMillis = ttlMillis;
        this.maxWorkMillis = maxWorkMillis;
        this.pauseMarker = pauseMarker;
        this.announce = announce;
    }

    /** The longest work on a job in a race with this lease: a batch of them fits well within one. */
    static long workMillis(long ttlMillis) {
        return ttlMillis / 10;
    }

    /** The result a worker completes a job with: who, with which fence. */
    static String result(String owner, long fence) {
        return owner + ":f" + fence;
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 10) {
            throw new IllegalArgumentException("usage: DrainWorker database history store name seed ttlMillis stopFile "
                    + "maxMillis queueIsEmpty pauseMarker");
        }
        Database db = Database.parse(args[0]);
        Path historyFile = Path.of(args[1]);
        long ttlMillis = Long.parseLong(args[5]);
        Path stop = Path.of(args[6]);
        long deadline = System.nanoTime() + Long.parseLong(args[7]) * 1_000_000;
        try (LeaseStore lease = Guest.open(args[2], db);
                JsonLinesHistory history = JsonLinesHistory.create(historyFile)) {
            DrainWorker worker = new DrainWorker(new RecordedStore(lease, args[3], history, HostClock::nanos), args[3],
                    Long.parseLong(args[4]), ttlMillis, workMillis(ttlMillis), Path.of(args[9]), System.out);
            warmUp(lease, args[3], ttlMillis, Boolean.parseBoolean(args[8]));
            System.out.println("READY");
            System.out.flush();
            while (System.nanoTime() < deadline && !Files.exists(stop)) {
                worker.step();
            }
        }
    }

    /**
     * The first calls of a JVM are slow (class loading, the interpreter): a fresh worker's first
     * lease ran out under it before it could renew. So the worker runs each path of the store a
     * few times first, in ways that change nothing: writes to a job that does not exist, and,
     * while the driver has not filled the queue yet ({@code queueIsEmpty}), claimNext.
     */
    private static void warmUp(LeaseStore store, String name, long ttlMillis, boolean queueIsEmpty) {
        double ttl = ttlMillis / 1000.0;
        for (int i = 0; i < 30; i++) {
            if (queueIsEmpty && !store.claimNext(name, HostClock.seconds(), ttl, MAX_BATCH).isEmpty()) {
                throw new IllegalStateException("the queue was not empty while " + name + " warmed up");
            }
            store.state("warm-up-" + name);
            store.renew("warm-up-" + name, name, 1, HostClock.seconds(), ttl);
            store.complete("warm-up-" + name, name, 1, HostClock.seconds(), "warm-up");
            store.completeAll(List.of(new Completion("warm-up-" + name, name, 1, "warm-up")), HostClock.seconds());
        }
    }

    /**
     * One claimNext, and the work on the batch it handed out.
     *
     * @return how many leases it handed out (0 when the queue had none or the call failed)
     */
    int step() throws InterruptedException {
        List<Op> claims = store.claimNext(name, HostClock.seconds(), ttlSeconds(), 1 + random.nextInt(MAX_BATCH));
        if (claims == null || claims.isEmpty()) {
            // Nothing to do, or a database failure (recorded as a claim of unknown outcome): ask again soon.
            Thread.sleep(2 + random.nextInt(4));
            return 0;
        }
        List<Held> batch = claims.stream().map(Held::new).toList();
        // The lease runs from the now the call was given: a call that waited long for the lock
        // brings back a lease partly spent, which the first beat renews at once.
        long lastBeat = claims.get(0).start() / 1_000_000;
        if (claims.stream().anyMatch(c -> c.fence() > 1)) {
            lastBeat = holdWhileAWorkerIsPaused(batch, lastBeat);
        }
        // Half the batches of more than one job are completed in one completeAll once all their
        // work is done; until then the heartbeat keeps renewing every lease of the batch.
        boolean together = batch.size() > 1 && random.nextBoolean();
        for (Held held : batch) {
            Op claim = held.claim;
            say(holding(batch));
            lastBeat = work(batch, random.nextInt((int) maxWorkMillis + 1), lastBeat);
            say("FREE");
            if (!held.lost && random.nextBoolean()) {
                renew(held);
            }
            if (!together) {
                store.complete(claim.job(), name, claim.fence(), HostClock.seconds(), result(name, claim.fence()));
                held.finished = true;
            }
        }
        if (together) {
            // Held for a moment, announced, so the driver may pause the worker right before the
            // batch's one write: resumed past the leases, it sends every stale fence in one call.
            // FREE comes before the call, as before every write: a pause that lands in a call is
            // let go at once, for a call begun before the takeover proves nothing when it is
            // refused, and one that holds the write lock stops every other worker as well.
            say(holding(batch));
            work(batch, BEFORE_BATCH_WRITE_MILLIS, lastBeat);
            say("FREE");
            store.completeAll(batch.stream().map(h -> new Completion(h.claim.job(), name, h.claim.fence(),
                    result(name, h.claim.fence()))).toList(), HostClock.seconds());
            batch.forEach(h -> h.finished = true);
        }
        return claims.size();
    }

    /** Holds the batch, renewing it, while a worker that held one of its jobs is paused, and half a lease after. */
    private long holdWhileAWorkerIsPaused(List<Held> batch, long lastBeat) throws InterruptedException {
        if (pauseMarker == null || batch.stream().noneMatch(h -> pausedJobs().contains(h.claim.job()))) {
            return lastBeat;
        }
        say(holding(batch));
        while (Files.exists(pauseMarker)) {
            lastBeat = work(batch, 5, lastBeat);
        }
        lastBeat = work(batch, ttlMillis / 2, lastBeat);
        say("FREE");
        return lastBeat;
    }

    /** The jobs the paused worker held, or none when no worker is paused. */
    private Set<String> pausedJobs() {
        try {
            return Set.copyOf(Files.readAllLines(pauseMarker));
        } catch (NoSuchFileException e) {
            return Set.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + pauseMarker, e);
        }
    }

    /** {@code HOLD job fence ...}: the leases of the batch not yet completed or lost; {@code FREE} when none is left. */
    private static String holding(List<Held> batch) {
        StringBuilder line = new StringBuilder("HOLD");
        for (Held held : batch) {
            if (!held.finished && !held.lost) {
                line.append(' ').append(held.claim.job()).append(' ').append(held.claim.fence());
            }
        }
        return line.length() == "HOLD".length() ? "FREE" : line.toString();
    }

    /** Works for {@code millis}, renewing the batch's open leases each third of a lease; returns the last beat. */
    private long work(List<Held> batch, long millis, long lastBeat) throws InterruptedException {
        long beat = Math.max(1, ttlMillis / 3);
        long done = System.currentTimeMillis() + millis;
        for (long now = System.currentTimeMillis(); now < done || now - lastBeat >= beat; now = System.currentTimeMillis()) {
            if (now - lastBeat >= beat) {
                say("FREE");
                // After a pause past the lease this is the first write: with a stale fence.
                for (Held held : batch) {
                    if (!held.finished && !held.lost) {
                        renew(held);
                    }
                }
                say(holding(batch));
                lastBeat = System.currentTimeMillis();
                continue;
            }
            Thread.sleep(Math.max(1, Math.min(done - now, lastBeat + beat - now)));
        }
        return lastBeat;
    }

    private void renew(Held held) {
        Op renew = store.renew(held.claim.job(), name, held.claim.fence(), HostClock.seconds(), ttlSeconds());
        held.lost = renew.outcome() == Op.Outcome.REJECTED;
    }

    private double ttlSeconds() {
        return ttlMillis / 1000.0;
    }

    private void say(String line) {
        if (announce != null) {
            announce.println(line);
            announce.flush();
        }
    }
}
