package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.bench.OpenLoop.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The open loop's timeline ({@link OpenLoop#run(OpenLoop.Op, Path)}) and its reading across
 * processes ({@link OpenLoopTimeline}): every measured request is in the file once with times that
 * are in order, a stall of the operation shows as the longest stretch without a completion, a stall
 * that all processes share is told apart from stalls each had alone, and a timeline that lost
 * requests is refused.
 */
class OpenLoopTimelineTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @TempDir
    Path dir;

    @Test
    void everyMeasuredRequestIsWrittenOnceInOrderAndAStallShowsAsTheLongestStretch() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        OpenLoop.Op op = worker -> {
            // The 150th call (the 50th measured) holds the one worker for 250 ms; the requests due meanwhile queue.
            if (calls.incrementAndGet() == 150) {
                OpenLoopTest.serve(250 * MS);
            } else {
                OpenLoopTest.serve(TimeUnit.MICROSECONDS.toNanos(100));
            }
            return calls.get() % 10 == 0 ? Outcome.LOST : Outcome.WON;
        };
        Path file = dir.resolve("t.tsv");
        // 200/s on 1 worker: 100 warmup requests, then 200 measured.
        OpenLoop.Result r = new OpenLoop(200, 1, Duration.ofMillis(500), Duration.ofSeconds(1)).run(op, file);

        List<String> lines = Files.readAllLines(file);
        assertEquals(OpenLoop.TIMELINE_HEADER, lines.get(0));
        assertEquals(r.sent() + 1, lines.size(), "one line per measured request after the header");
        long won = 0;
        long lost = 0;
        long previousIntended = Long.MIN_VALUE;
        for (int k = 1; k < lines.size(); k++) {
            String[] f = lines.get(k).split("\t");
            assertEquals(k - 1, Long.parseLong(f[0]));
            long intended = Long.parseLong(f[1]);
            long start = Long.parseLong(f[2]);
            long end = Long.parseLong(f[3]);
            assertTrue(intended > previousIntended && start >= intended && end > start, lines.get(k));
            previousIntended = intended;
            won += f[4].equals("WON") ? 1 : 0;
            lost += f[4].equals("LOST") ? 1 : 0;
        }
        assertEquals(r.won(), won);
        assertEquals(r.lost(), lost);

        OpenLoopTimeline.Gaps gaps = OpenLoopTimeline.read(List.of(file), List.of(r.sent()));
        assertTrue(gaps.longestMs() >= 245, "the 250 ms stall: " + gaps.describe());
        assertTrue(gaps.longestMs() < 1000, "nothing else stalled that long: " + gaps.describe());
        // It began at about the 49th measured request's end, 245 ms into the window.
        assertTrue(gaps.longestFromSeconds() > 0.2 && gaps.longestFromSeconds() < 0.4, gaps.describe());
        assertEquals(List.of(gaps.longestMs()), gaps.perProcessLongestMs());
    }

    @Test
    void aRequestThatNeverCompletedIsWrittenTimedOutWithNoEnd() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        OpenLoop.Op op = OpenLoopTest.stuckAtCall(60, release);
        Path file = dir.resolve("stuck.tsv");
        try {
            OpenLoop loop = new OpenLoop(200, 2, Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofMillis(200));
            OpenLoop.Result r = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> loop.run(op, file));
            assertEquals(1, r.timedOut());
        } finally {
            release.countDown();
        }
        List<String> timedOut = Files.readAllLines(file).stream().filter(l -> l.endsWith(OpenLoop.TIMED_OUT)).toList();
        assertEquals(1, timedOut.size());
        String[] f = timedOut.get(0).split("\t");
        assertTrue(Long.parseLong(f[2]) >= Long.parseLong(f[1]), "it started: " + timedOut.get(0));
        assertEquals(-1, Long.parseLong(f[3]), "and never ended: " + timedOut.get(0));
    }

    @Test
    void aTimelineOfMoreRequestsThanItKeepsIsRefusedBeforeTheRun() {
        AtomicInteger calls = new AtomicInteger();
        OpenLoop loop = new OpenLoop(1_000_000, 1, Duration.ZERO, Duration.ofSeconds(11));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> loop.run(worker -> {
                    calls.incrementAndGet();
                    return Outcome.WON;
                }, dir.resolve("x")));
        assertTrue(e.getMessage().contains("timeline"), e.getMessage());
        assertEquals(0, calls.get(), "refused before any request ran");
        assertThrows(NullPointerException.class, () -> loop.run(worker -> Outcome.WON, null));
    }

    /** Two processes, every 1 ms a completion each, with stretches of silence as the test plants them. */
    private Path process(String name, long origin, long[]... silences) throws Exception {
        List<String> lines = new ArrayList<>(List.of(OpenLoop.TIMELINE_HEADER));
        for (int k = 0; k < 1000; k++) {
            long intended = origin + k * MS;
            long end = intended + MS / 2;
            for (long[] s : silences) {
                if (end >= origin + s[0] * MS && end < origin + s[1] * MS) {
                    end = origin + s[1] * MS; // held back to the end of the silence
                }
            }
            lines.add(k + "\t" + intended + "\t" + intended + "\t" + end + "\tWON");
        }
        return Files.write(dir.resolve(name), lines);
    }

    @Test
    void aStallThatAllProcessesShareIsToldApartFromStallsEachHadAlone() throws Exception {
        long origin = 1_000_000_000L;
        OpenLoopTimeline.Gaps together = OpenLoopTimeline.read(
                List.of(process("a1", origin, new long[] {300, 450}), process("b1", origin, new long[] {300, 450})),
                List.of(1000L, 1000L));
        assertEquals(150, together.longestMs(), 1.0, together.describe());
        assertEquals(0.30, together.longestFromSeconds(), 0.002, together.describe());
        assertEquals(150, together.perProcessLongestMs().get(0), 1.0);
        assertEquals(150, together.perProcessLongestMs().get(1), 1.0);

        OpenLoopTimeline.Gaps apart = OpenLoopTimeline.read(
                List.of(process("a2", origin, new long[] {300, 450}), process("b2", origin, new long[] {600, 750})),
                List.of(1000L, 1000L));
        assertTrue(apart.longestMs() < 2, "one process always completed something: " + apart.describe());
        assertEquals(150, apart.perProcessLongestMs().get(0), 1.0);
        assertEquals(150, apart.perProcessLongestMs().get(1), 1.0);
    }

    /** The negative control of the completeness check: a timeline that dropped requests would hide a stall. */
    @Test
    void aTimelineThatDoesNotHoldEveryRequestItsProcessSentIsRefused() throws Exception {
        Path full = process("full", 0, new long[] {300, 450});
        List<String> lines = Files.readAllLines(full);
        Path dropped = Files.write(dir.resolve("dropped"), lines.subList(0, 301)); // the header and requests 0-299
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> OpenLoopTimeline.read(List.of(dropped), List.of(1000L)));
        assertTrue(e.getMessage().contains("holds 300 requests, but its process sent 1000"), e.getMessage());

        List<String> skipping = new ArrayList<>(lines);
        skipping.remove(500);
        Path gap = Files.write(dir.resolve("skipping"), skipping);
        assertThrows(IllegalStateException.class, () -> OpenLoopTimeline.read(List.of(gap), List.of(999L)));

        Path notATimeline = Files.writeString(dir.resolve("other"), "something else\n");
        assertThrows(IllegalStateException.class, () -> OpenLoopTimeline.read(List.of(notATimeline), List.of(0L)));
        assertThrows(IllegalArgumentException.class, () -> OpenLoopTimeline.read(List.of(full), List.of()));
    }

    @Test
    void theLongestStretchCountsTheEdgesOfTheSchedule() {
        assertEquals(10, OpenLoopTimeline.longest(new long[] {}, 0, 10)[0], "nothing completed at all");
        assertEquals(6, OpenLoopTimeline.longest(new long[] {6, 7, 8}, 0, 10)[0], "from the first intended start");
        assertEquals(7, OpenLoopTimeline.longest(new long[] {1, 2, 3, 20}, 0, 10)[0], "up to the last intended start");
        assertEquals(2, OpenLoopTimeline.longest(new long[] {2, 6, 9, 10}, 0, 10)[1], "where it began");
    }
}
