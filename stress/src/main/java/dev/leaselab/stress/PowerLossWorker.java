package dev.leaselab.stress;

import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.PostgresOptions;
import dev.leaselab.testkit.Database;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * One worker process of the {@link PowerLossDriver}: claims, renews, completes and releases jobs
 * as fast as it can on a database inside the forgetful file system, and writes every operation,
 * before it is called and once it is answered, to its history file outside it. An operation
 * answered OK is one the store acknowledged: the power cut must not take it back.
 *
 * <p>Usage: {@code PowerLossWorker database history store storage name seed slots ttlMillis
 * stopFile maxMillis}, {@code database} as {@link Database#argument()} gives it (a SQLite file on
 * the mount, or a PostgreSQL schema whose server's data directory is on it) and {@code storage} as
 * {@link PowerLossDriver.Storage#name()}; prints {@code READY} once its store is open.
 */
public final class PowerLossWorker {

    private final RecordedStore store;
    private final String name;
    private final Random random;
    private final int slots;
    private final long ttl;
    private final Map<Integer, Integer> epochs = new HashMap<>();

    private PowerLossWorker(RecordedStore store, String name, long seed, int slots, long ttl) {
        this.store = store;
        this.name = name;
        this.random = new Random(seed);
        this.slots = slots;
        this.ttl = ttl;
    }

    /** The result a worker completes a job with: it names who wrote it under which fence. */
    static String result(String owner, long fence) {
        return "result-" + owner + "-" + fence;
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 10) {
            throw new IllegalArgumentException("usage: PowerLossWorker database history store storage"
                    + " name seed slots ttlMillis stopFile maxMillis");
        }
        Database db = Database.parse(args[0]);
        StoreUnderTest sut = StoreUnderTest.parse(args[2]);
        PowerLossDriver.Storage storage = PowerLossDriver.Storage.parse(args[3]);
        Path stop = Path.of(args[8]);
        long deadline = System.nanoTime() + Long.parseLong(args[9]) * 1_000_000;
        try (LeaseStore lease = open(sut, db, storage);
                JsonLinesHistory history = JsonLinesHistory.create(Path.of(args[1]))) {
            PowerLossWorker worker = new PowerLossWorker(new RecordedStore(lease, args[4], history, HostClock::nanos),
                    args[4], Long.parseLong(args[5]), Integer.parseInt(args[6]), Long.parseLong(args[7]));
            System.out.println("READY");
            System.out.flush();
            while (System.nanoTime() < deadline && !Files.exists(stop)) {
                worker.step();
            }
        }
    }

    /**
     * One connection: SQLite in the storage setting raced; PostgreSQL with short timeouts, so that
     * a worker whose server died with the power gives up on a call at once (it is killed soon).
     */
    private static LeaseStore open(StoreUnderTest sut, Database db, PowerLossDriver.Storage storage) {
        if (storage instanceof PowerLossDriver.SqliteStorage sqlite) {
            return sut.open(((Database.SqliteFile) db).file(), sqlite.options());
        }
        return sut.open(((Database.PostgresSchema) db).url(), PostgresOptions.defaults().withPoolSize(1)
                .withConnectTimeout(Duration.ofSeconds(1)).withStatementTimeout(Duration.ofSeconds(5)));
    }

    /** Claim a random slot's job; if it is won, renew it or not, then complete, release or abandon it. */
    private void step() throws InterruptedException {
        int slot = random.nextInt(slots);
        String job = StressWorker.jobId(slot, epochs.getOrDefault(slot, 0));
        Op claim = store.claim(job, name, System.currentTimeMillis(), ttl);
        if (!claim.ok()) {
            if (claim.outcome() == Op.Outcome.REJECTED) {
                moveOnIfDone(slot, job);
            } else {
                Thread.sleep(1);
            }
            return;
        }
        long fence = claim.fence();
        if (random.nextBoolean()) {
            store.renew(job, name, fence, System.currentTimeMillis(), ttl);
        }
        int choice = random.nextInt(10);
        if (choice < 4) {
            if (store.complete(job, name, fence, System.currentTimeMillis(), result(name, fence)).ok()) {
                moveOn(slot);
            }
        } else if (choice < 8) {
            store.release(job, name, fence);
        }
        // Otherwise the lease is left to expire, as a worker that crashed would leave it.
    }

    private void moveOnIfDone(int slot, String job) {
        Optional<JobState> state = store.store().state(job);
        if (state.isEmpty()) {
            // Its enqueue was lost in a cut (enqueues are not acknowledged operations of the history).
            store.store().enqueue(job);
        } else if (state.get().done()) {
            moveOn(slot);
        }
    }

    private void moveOn(int slot) {
        int epoch = epochs.merge(slot, 1, Integer::sum);
        store.store().enqueue(StressWorker.jobId(slot, epoch));
    }
}
