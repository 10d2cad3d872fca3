package dev.leaselab.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Reads back the timelines of one open loop across processes ({@link MultiProcessMain}'s
 * {@code --timeline}, each written by {@link OpenLoop#run(OpenLoop.Op, Path)}) and finds the
 * longest stretch of the schedule in which no request completed: in all processes together, and in
 * each process alone. A long stretch in all processes together is a stall they shared (all waiting
 * for SQLite's lock, a checkpoint, a full run queue); one in a single process is that process's.
 * The stretches are taken between the first and the last intended start of the measured window,
 * so requests still queued at its end count, and those that never completed end no stretch.
 */
final class OpenLoopTimeline {

    private OpenLoopTimeline() {}

    /**
     * @param longestMs the longest stretch in which no request of any process completed
     * @param longestFromSeconds where it began, in seconds from the window's first intended start
     * @param perProcessLongestMs the same stretch for each process alone, in the order of the files
     */
    record Gaps(double longestMs, double longestFromSeconds, List<Double> perProcessLongestMs) {

        String describe() {
            return String.format(Locale.ROOT, "no request completed for %.1f ms (all processes, from %.2f s); per process %s ms",
                    longestMs, longestFromSeconds, perProcessLongestMs.stream()
                            .map(ms -> String.format(Locale.ROOT, "%.1f", ms)).toList());
        }
    }

    /**
     * Reads every process's timeline and measures its stretches.
     *
     * @param files one timeline per process
     * @param sent the requests each process's open loop reported for its measured window, in the
     *     order of {@code files}: a timeline with another number of requests is refused
     * @throws IllegalArgumentException if the lists are empty or of different sizes
     * @throws IllegalStateException if a timeline is not one that {@link OpenLoop} wrote, or does
     *     not hold every request its process sent
     * @throws UncheckedIOException if a file cannot be read
     */
    static Gaps read(List<Path> files, List<Long> sent) {
        if (files.isEmpty() || files.size() != sent.size()) {
            throw new IllegalArgumentException("files and sent must name the same processes, at least one: " + files + ", " + sent);
        }
        List<long[]> ends = new ArrayList<>();
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int p = 0; p < files.size(); p++) {
            ProcessTimeline process = readOne(files.get(p), sent.get(p));
            ends.add(process.ends);
            first = Math.min(first, process.firstIntended);
            last = Math.max(last, process.lastIntended);
        }
        List<Double> perProcess = new ArrayList<>();
        for (long[] e : ends) {
            perProcess.add(longest(e, first, last)[0] / 1e6);
        }
        long[] all = ends.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        long[] longest = longest(all, first, last);
        return new Gaps(longest[0] / 1e6, (longest[1] - first) / 1e9, List.copyOf(perProcess));
    }

    /** One process's completion times, sorted, and its first and last intended start. */
    private record ProcessTimeline(long[] ends, long firstIntended, long lastIntended) {}

    private static ProcessTimeline readOne(Path file, long sent) {
        try (BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            String header = lines.readLine();
            if (!OpenLoop.TIMELINE_HEADER.equals(header)) {
                throw new IllegalStateException("not an open loop's timeline (its first line is not '" + OpenLoop.TIMELINE_HEADER
                        + "'): " + file);
            }
            long[] ends = new long[(int) Math.min(sent, OpenLoop.TIMELINE_MAX_REQUESTS)];
            int completed = 0;
            long rows = 0;
            long firstIntended = Long.MAX_VALUE;
            long lastIntended = Long.MIN_VALUE;
            for (String line; (line = lines.readLine()) != null; rows++) {
                String[] f = line.split("\t", -1);
                if (f.length != 5 || Long.parseLong(f[0]) != rows) {
                    throw new IllegalStateException("line " + (rows + 2) + " of " + file + " is not request " + rows
                            + " as request, intended, start, end, outcome: '" + line + "'");
                }
                long intended = Long.parseLong(f[1]);
                firstIntended = Math.min(firstIntended, intended);
                lastIntended = Math.max(lastIntended, intended);
                long end = Long.parseLong(f[3]);
                if (end != -1 && completed < ends.length) {
                    ends[completed++] = end;
                }
            }
            if (rows != sent || rows == 0) {
                throw new IllegalStateException("the timeline " + file + " holds " + rows + " requests, but its process sent " + sent);
            }
            long[] sorted = Arrays.copyOf(ends, completed);
            Arrays.sort(sorted);
            return new ProcessTimeline(sorted, firstIntended, lastIntended);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("a number in " + file + " is not one: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the timeline " + file, e);
        }
    }

    /**
     * The longest stretch of {@code [from, to]} without a time of {@code sortedEnds} in it, and
     * where it began: {@code {length, start}} in ns.
     */
    static long[] longest(long[] sortedEnds, long from, long to) {
        long best = 0;
        long bestStart = from;
        long previous = from;
        for (long end : sortedEnds) {
            if (end <= from) {
                continue;
            }
            long stop = Math.min(end, to);
            if (stop - previous > best) {
                best = stop - previous;
                bestStart = previous;
            }
            previous = stop;
            if (end >= to) {
                break;
            }
        }
        if (to - previous > best) {
            best = to - previous;
            bestStart = previous;
        }
        return new long[] {best, bestStart};
    }
}
