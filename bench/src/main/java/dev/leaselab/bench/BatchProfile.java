package dev.leaselab.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a {@code GROUP_COMMIT} batch's time goes, from a Flight Recorder recording of the store's
 * batch events ({@code dev.leaselab.GroupCommitBatch}, one per batch): per second of the recording
 * and over all of it, the batches, the writes they held, and the mean of each phase of a batch, the
 * leader's wait for its writers (gathering), the {@code BEGIN} (with its wait for another
 * connection's write lock), the statements, the {@code COMMIT}, and the hand-off:
 * from one batch's end to the next one's start, the time no batch was running. Batches run one at a
 * time, so the hand-offs and the batches together fill the recording's stretch: the columns show
 * what sets the pace. Any JVM that runs a {@code GROUP_COMMIT} store records them:
 * <pre>
 * java -XX:StartFlightRecording=filename=batches.jfr -cp bench/target/benchmarks.jar dev.leaselab.bench.OpenLoopMain --strategy GROUP_COMMIT --storage WAL_FULL
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.BenchMain batches batches.jfr
 * </pre>
 */
final class BatchProfile {

    /** The store's event type (the lease module's {@code GroupCommitBatchEvent}, package-private there). */
    static final String EVENT = "dev.leaselab.GroupCommitBatch";

    private BatchProfile() {}

    /** The batches of one stretch of a recording, summed. */
    record Stretch(String label, long batches, long writes, long failed, long handOffNanos, long batchNanos,
            long gatheringNanos, long beginNanos, long statementsNanos, long commitNanos, Duration span) {

        double writesPerBatch() {
            return (double) writes / batches;
        }

        /** NaN for a stretch of no length: one batch, or batches that started at one instant. */
        double batchesPerSecond() {
            return span.isZero() || span.isNegative() ? Double.NaN : batches / (span.toNanos() / 1e9);
        }

        double meanMicros(long nanos) {
            return nanos / 1e3 / batches;
        }
    }

    /** Reads the recording's batch events; an unreadable file or one without them is an error naming it. */
    static List<RecordedEvent> read(Path recording) throws IOException {
        if (!Files.isRegularFile(recording)) {
            throw new IllegalArgumentException("recording: no such file: " + recording);
        }
        List<RecordedEvent> events = new ArrayList<>();
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (event.getEventType().getName().equals(EVENT)) {
                    events.add(event);
                }
            }
        }
        if (events.isEmpty()) {
            throw new IllegalArgumentException("recording: no " + EVENT + " events in " + recording
                    + " (was a GROUP_COMMIT store running while it recorded?)");
        }
        events.sort(Comparator.comparing(RecordedEvent::getStartTime));
        return events;
    }

    /**
     * Sums the events (sorted by start) per whole second from the first one's start, and then over
     * all of them (the last stretch, labelled "all"). The hand-off before the first batch of the
     * recording is unknown and counts as 0.
     */
    static List<Stretch> summarize(List<RecordedEvent> events) {
        Instant first = events.get(0).getStartTime();
        List<Stretch> stretches = new ArrayList<>();
        Sum second = new Sum();
        Sum all = new Sum();
        long current = 0;
        Instant previousEnd = null;
        for (RecordedEvent event : events) {
            long index = Duration.between(first, event.getStartTime()).getSeconds();
            if (index != current && second.batches > 0) {
                stretches.add(second.stretch(current + "s", Duration.ofSeconds(1)));
                second = new Sum();
            }
            current = index;
            long handOff = previousEnd == null ? 0 : Math.max(0, Duration.between(previousEnd, event.getStartTime()).toNanos());
            second.add(event, handOff);
            all.add(event, handOff);
            previousEnd = event.getEndTime();
        }
        // The last second is cut short where the recording's batches end.
        stretches.add(second.stretch(current + "s", Duration.between(first.plusSeconds(current), previousEnd)));
        stretches.add(all.stretch("all", Duration.between(first, previousEnd)));
        return stretches;
    }

    /** The stretch of all the events, the last of {@link #summarize}'s. */
    static Stretch all(List<RecordedEvent> events) {
        List<Stretch> stretches = summarize(events);
        return stretches.get(stretches.size() - 1);
    }

    /** One stretch on one line: counts, then the mean of each phase of a batch in microseconds. */
    static String line(Stretch s) {
        return String.format(Locale.ROOT, "%,d batches (%,.0f/s) of %.2f writes, %,d failed; µs per batch: hand-off %.1f, "
                        + "batch %.1f (gathering %.1f, begin %.1f, statements %.1f, commit %.1f)",
                s.batches(), s.batchesPerSecond(), s.writesPerBatch(), s.failed(), s.meanMicros(s.handOffNanos()),
                s.meanMicros(s.batchNanos()), s.meanMicros(s.gatheringNanos()), s.meanMicros(s.beginNanos()),
                s.meanMicros(s.statementsNanos()), s.meanMicros(s.commitNanos()));
    }

    /** Prints the stretches as a table, one row each, times in microseconds per batch. */
    static void print(List<Stretch> stretches, PrintWriter out) {
        out.println("GROUP_COMMIT batches (mean per batch, µs; hand-off: from the previous batch's end to this one's start;"
                + " batch: the whole batch, of which gathering, begin, statements and commit)");
        out.printf(Locale.ROOT, "%8s %10s %9s %7s %9s %9s %10s %8s %11s %9s %7s%n",
                "second", "batches/s", "batches", "writes", "hand-off", "batch", "gathering", "begin", "statements", "commit", "failed");
        for (Stretch s : stretches) {
            out.printf(Locale.ROOT, "%8s %,10.0f %,9d %7.2f %9.1f %9.1f %10.1f %8.1f %11.1f %9.1f %,7d%n",
                    s.label(), s.batchesPerSecond(), s.batches(), s.writesPerBatch(), s.meanMicros(s.handOffNanos()),
                    s.meanMicros(s.batchNanos()), s.meanMicros(s.gatheringNanos()), s.meanMicros(s.beginNanos()),
                    s.meanMicros(s.statementsNanos()), s.meanMicros(s.commitNanos()), s.failed());
        }
        out.flush();
    }

    private static final class Sum {
        long batches;
        long writes;
        long failed;
        long handOff;
        long batch;
        long gathering;
        long begin;
        long statements;
        long commit;

        void add(RecordedEvent event, long handOffNanos) {
            batches++;
            writes += event.getInt("writes");
            failed += event.getBoolean("failed") ? 1 : 0;
            handOff += handOffNanos;
            batch += event.getDuration().toNanos();
            gathering += event.getDuration("gatheringNanos").toNanos();
            begin += event.getDuration("beginNanos").toNanos();
            statements += event.getDuration("statementsNanos").toNanos();
            commit += event.getDuration("commitNanos").toNanos();
        }

        Stretch stretch(String label, Duration span) {
            return new Stretch(label, batches, writes, failed, handOff, batch, gathering, begin, statements, commit, span);
        }
    }
}
