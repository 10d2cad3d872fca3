package dev.leaselab.stress.jcstress;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.StoreOptions;
import dev.leaselab.stress.StoreUnderTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The stores of one jcstress JVM, all on one database file, and fresh job ids for the states.
 * jcstress creates states by the hundred thousand, so a state costs one new row, not a new file.
 */
public final class SharedStores {

    /** The system property that picks the store: a strategy, or {@code BROKEN_VARIANT/STRATEGY}. */
    public static final String PROPERTY = "leaselab.store";

    private static final Path FILE = createFile();
    private static final List<StoreUnderTest> CHOSEN = choose();
    private static final LeaseStore[] STORES = openAndWarmUp();
    private static final AtomicLong JOBS = new AtomicLong();

    private SharedStores() {
    }

    /** A state's job and the store it is raced on. */
    public record Job(String id, LeaseStore store) {}

    /** Enqueues a new job on the next store in turn. */
    public static Job freshJob() {
        long n = JOBS.incrementAndGet();
        LeaseStore store = store((int) (n % CHOSEN.size()));
        String id = "j" + n;
        store.enqueue(id);
        return new Job(id, store);
    }

    /** A new job that {@code owner} claimed at {@code now=0} until {@code until}: it holds fence 1. */
    public static Job heldJob(String owner, double until) {
        Job job = freshJob();
        job.store().claim(job.id(), owner, 0, until);
        return job;
    }

    private static LeaseStore store(int index) {
        return STORES[index];
    }

    /**
     * Every chosen store, opened, and its claim run once on a job of its own. jcstress sizes its
     * strides by tries of a few states, each of which must fit in {@code -time}; a store opened
     * lazily paid its first open or its first write (sqlite-jdbc's native library, a strategy's
     * first batch: 80-354 ms here) inside such a try, and the run was left a hundred samples
     * instead of thousands. This runs when the first state is made, in jcstress's API check, which
     * is not timed.
     */
    private static LeaseStore[] openAndWarmUp() {
        LeaseStore[] stores = new LeaseStore[CHOSEN.size()];
        for (int i = 0; i < stores.length; i++) {
            // synchronous=NORMAL: durability across power loss is not what these tests look at,
            // and an fsync per commit would starve the actors of samples.
            stores[i] = CHOSEN.get(i).open(FILE, StoreOptions.defaults().withSynchronous(StoreOptions.Synchronous.NORMAL));
            String job = "warm-up-" + i;
            stores[i].enqueue(job);
            stores[i].claim(job, "warm-up", 0, 1);
        }
        return stores;
    }

    private static List<StoreUnderTest> choose() {
        String chosen = System.getProperty(PROPERTY);
        return chosen == null || chosen.isBlank() ? StoreUnderTest.allCorrect(LockingStrategy.Engine.SQLITE) : List.of(StoreUnderTest.parse(chosen));
    }

    private static Path createFile() {
        try {
            Path dir = Files.createTempDirectory("leaselab-jcstress");
            Path file = dir.resolve("jobs.db");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
                    file.resolveSibling("jobs.db" + suffix).toFile().delete();
                }
                dir.toFile().delete();
            }));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the jcstress database", e);
        }
    }
}
