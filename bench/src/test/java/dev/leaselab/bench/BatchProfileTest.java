package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.SqliteLeaseStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code BenchMain batches}: a Flight Recorder recording of a {@code GROUP_COMMIT} store, written
 * to by several threads at once, summed up. Every write the threads made is in exactly one batch,
 * so the summary's writes equal them; a file that is not there, or a recording without batch
 * events, is an error that names it.
 */
class BatchProfileTest {

    private static final int THREADS = 4;
    private static final int WRITES_PER_THREAD = 300;

    @TempDir
    Path dir;

    @Test
    void everyWriteOfTheThreadsIsInTheSummaryOnceAndTheCommandPrintsIt() throws Exception {
        Path file = dir.resolve("batches.jfr");
        try (Recording recording = new Recording()) {
            // By name, as the summary reads it: a name that differs from the store's records nothing.
            recording.enable(BatchProfile.EVENT);
            recording.start();
            writeFromThreads(dir.resolve("jobs.db"));
            recording.stop();
            recording.dump(file);
        }

        List<BatchProfile.Stretch> stretches = BatchProfile.summarize(BatchProfile.read(file));
        BatchProfile.Stretch all = stretches.get(stretches.size() - 1);
        assertEquals("all", all.label());
        assertEquals(THREADS * WRITES_PER_THREAD, all.writes(), "writes over all batches");
        assertEquals(0, all.failed());
        assertEquals(all.batches(), stretches.subList(0, stretches.size() - 1).stream().mapToLong(BatchProfile.Stretch::batches).sum(),
                "the seconds' batches add up to all of them");
        assertTrue(all.commitNanos() > 0, "batches of several writes commit");
        assertTrue(all.statementsNanos() > 0);
        // Batches run one at a time: with the hand-offs between them they fill the whole stretch.
        assertEquals(all.span().toNanos(), all.handOffNanos() + all.batchNanos(), 1_000_000,
                "hand-offs and batches against the stretch from the first batch's start to the last one's end");
        assertTrue(all.beginNanos() > 0, "batches of several writes begin");
        assertTrue(all.gatheringNanos() + all.beginNanos() + all.statementsNanos() + all.commitNanos() <= all.batchNanos() * 1.01,
                "a batch's phases lie within it");

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, BenchMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8), "batches", file.toString()));
        String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("hand-off"), printed);
        assertTrue(printed.lines().anyMatch(line -> line.trim().startsWith("all ")
                && line.contains(String.format(Locale.ROOT, "%,d", all.batches()))), printed);
    }

    @Test
    void aMissingFileIsAnErrorNamingIt() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path missing = dir.resolve("missing.jfr");
        assertEquals(BenchMain.ERROR, BenchMain.execute(System.out, new PrintStream(err, true, StandardCharsets.UTF_8),
                "batches", missing.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("recording: no such file: " + missing), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aRecordingWithoutBatchesIsAnErrorNamingIt() throws Exception {
        Path file = dir.resolve("empty.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("jdk.JVMInformation");
            recording.start();
            recording.stop();
            recording.dump(file);
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(BenchMain.ERROR, BenchMain.execute(System.out, new PrintStream(err, true, StandardCharsets.UTF_8),
                "batches", file.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no " + BatchProfile.EVENT + " events in " + file),
                err.toString(StandardCharsets.UTF_8));
    }

    /** Each thread enqueues jobs of its own, one write each, all threads started together. */
    private static void writeFromThreads(Path database) throws Exception {
        try (LeaseStore store = SqliteLeaseStore.open(database, LockingStrategy.GROUP_COMMIT)) {
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                threads.add(new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < WRITES_PER_THREAD; i++) {
                            assertTrue(store.enqueue("job-" + thread + "-" + i));
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            threads.forEach(Thread::start);
            start.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            assertEquals(List.of(), failures);
        }
    }
}
