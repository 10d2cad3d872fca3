package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leaselab.lease.LockingStrategy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.annotations.Mode;

/**
 * The results of one run as the report and the gate read them: JMH's JSON (scores, raw
 * iteration samples, percentiles) joined with the per-thread tally that {@link Outcomes} writes.
 */
final class BenchResults {

    /** The JMH result file inside a results folder. */
    static final String JMH_JSON = "jmh-result.json";
    /** The per-thread tally inside a results folder. */
    static final String TALLY = "tally.jsonl";

    /**
     * One benchmark with one parameter set, mode and thread count.
     *
     * @param key what the fork measured
     * @param samples the raw score of every measurement iteration of every fork
     * @param percentiles for sample mode: percentile (0..100) to value, in {@code unit}
     * @param tally what the threads counted, or null if no tally was written
     * @param reference {@link MachineReference}'s updates per second around each measurement
     *     iteration, in the order of {@code samples}; empty when the run has none (older runs)
     */
    record Row(ForkKey key, String unit, double score, double error, double[] samples, Map<Double, Double> percentiles,
               Tally tally, double[] reference) {

        /** Whether every sample has its machine reference. */
        boolean hasReference() {
            return reference.length > 0 && reference.length == samples.length;
        }

        BenchmarkId benchmark() {
            return key.benchmark();
        }

        Mode mode() {
            return key.mode();
        }

        int threads() {
            return key.threads();
        }

        Storage storage() {
            return key.storage();
        }

        /** The strategy, or null for the floor. */
        LockingStrategy strategy() {
            return key.strategy();
        }
    }

    /**
     * Totals of the measurement iterations from the tally.
     *
     * @param won total {@code won} over measurement iterations and threads (ramp-up and ramp-down included)
     * @param wallSeconds the summed wall-clock span of those iterations, from the first thread's
     *     start to the last thread's end
     * @param jain the mean over iterations of Jain's fairness index of per-thread {@code won}
     * @param minShare the smallest per-thread {@code won} over the mean per-thread {@code won},
     *     over all iterations (0 means a thread starved through a whole iteration)
     * @param minThreadWon the smallest per-thread {@code won} in any iteration
     */
    record Tally(long won, long lost, long refused, long failed, long refills, double wallSeconds,
                 double jain, double minShare, long minThreadWon, int iterations) {

        double wonPerWallSecond() {
            return wallSeconds > 0 ? won / wallSeconds : Double.NaN;
        }
    }

    private BenchResults() {}

    /** Reads a results folder (its {@value #JMH_JSON} and {@value #TALLY}) or a JMH JSON file. */
    static List<Row> load(Path path) {
        Path json = Files.isDirectory(path) ? path.resolve(JMH_JSON) : path;
        if (!Files.isRegularFile(json)) {
            throw new IllegalArgumentException("no JMH result at " + json
                    + " (give a results folder that holds " + JMH_JSON + ", or a JMH JSON file)");
        }
        Path tallyFile = Files.isDirectory(path) ? path.resolve(TALLY) : json.resolveSibling(TALLY);
        Map<ForkKey, Tally> tallies = Files.isRegularFile(tallyFile) ? readTally(tallyFile) : Map.of();
        JsonNode root = Json.read(json);
        if (!root.isArray()) {
            throw new IllegalArgumentException(json + " is not a JMH JSON result (expected an array)");
        }
        List<Row> rows = new ArrayList<>();
        for (JsonNode r : root) {
            ForkKey key = key(r, json);
            JsonNode primary = r.path("primaryMetric");
            Map<Double, Double> percentiles = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = primary.path("scorePercentiles").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                percentiles.put(Double.parseDouble(e.getKey()), e.getValue().asDouble());
            }
            rows.add(new Row(key, primary.path("scoreUnit").asText(), primary.path("score").asDouble(),
                    primary.path("scoreError").asDouble(Double.NaN), samples(primary),
                    key.mode() == Mode.SampleTime ? percentiles : Map.of(), tallies.get(key),
                    rawData(r.path("secondaryMetrics").path(MachineReference.LABEL))));
        }
        return rows;
    }

    /** The key of an entry of JMH's JSON or of a tally line, with the file named if it is not one of this module's forks. */
    static ForkKey key(JsonNode entry, Path file) {
        try {
            return ForkKey.of(entry);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The score of each measurement iteration: {@code rawData} for the averaging modes, and for
     * sample mode the mean of each iteration's histogram.
     */
    private static double[] samples(JsonNode primary) {
        if (primary.has("rawData")) {
            return rawData(primary);
        }
        List<Double> values = new ArrayList<>();
        if (primary.has("rawDataHistogram")) {
            for (JsonNode fork : primary.get("rawDataHistogram")) {
                for (JsonNode it : fork) {
                    double sum = 0;
                    long count = 0;
                    for (JsonNode bin : it) {
                        sum += bin.get(0).asDouble() * bin.get(1).asLong();
                        count += bin.get(1).asLong();
                    }
                    if (count > 0) {
                        values.add(sum / count);
                    }
                }
            }
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** A metric's {@code rawData}, forks in order and each fork's iterations in order; empty if it has none. */
    private static double[] rawData(JsonNode metric) {
        List<Double> values = new ArrayList<>();
        for (JsonNode fork : metric.path("rawData")) {
            for (JsonNode it : fork) {
                values.add(it.asDouble());
            }
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private record Line(int thread, long won, long lost, long refused, long failed, long refills, long start, long end) {}

    /** Groups the tally by benchmark, then by (pid, iteration), and folds each into a {@link Tally}. */
    static Map<ForkKey, Tally> readTally(Path file) {
        Map<ForkKey, Map<String, List<Line>>> byKey = new LinkedHashMap<>();
        try {
            for (String text : Files.readAllLines(file)) {
                if (text.isBlank()) {
                    continue;
                }
                JsonNode l = Json.readLine(text);
                if (!"measurement".equals(l.path("iterationType").asText())) {
                    continue;
                }
                ForkKey key = key(l, file);
                String iteration = l.path("pid").asText() + "/" + l.path("iteration").asText();
                byKey.computeIfAbsent(key, k -> new LinkedHashMap<>()).computeIfAbsent(iteration, k -> new ArrayList<>())
                        .add(new Line(l.path("thread").asInt(), l.path("won").asLong(), l.path("lost").asLong(),
                                l.path("refused").asLong(), l.path("failed").asLong(), l.path("refills").asLong(),
                                l.path("startNanos").asLong(), l.path("endNanos").asLong()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the tally " + file, e);
        }
        Map<ForkKey, Tally> result = new LinkedHashMap<>();
        byKey.forEach((key, iterations) -> result.put(key, fold(iterations.values())));
        return result;
    }

    private static Tally fold(Iterable<List<Line>> iterations) {
        long won = 0, lost = 0, refused = 0, failed = 0, refills = 0;
        long minThreadWon = Long.MAX_VALUE;
        double wall = 0, jainSum = 0, minShare = Double.POSITIVE_INFINITY;
        int n = 0;
        for (List<Line> lines : iterations) {
            long start = Long.MAX_VALUE, end = Long.MIN_VALUE;
            double sum = 0, sumSq = 0;
            long min = Long.MAX_VALUE;
            for (Line l : lines) {
                won += l.won();
                lost += l.lost();
                refused += l.refused();
                failed += l.failed();
                refills += l.refills();
                start = Math.min(start, l.start());
                end = Math.max(end, l.end());
                sum += l.won();
                sumSq += (double) l.won() * l.won();
                min = Math.min(min, l.won());
            }
            wall += (end - start) / 1e9;
            jainSum += sumSq > 0 ? sum * sum / (lines.size() * sumSq) : 0;
            double mean = sum / lines.size();
            minShare = Math.min(minShare, mean > 0 ? min / mean : 0);
            minThreadWon = Math.min(minThreadWon, min);
            n++;
        }
        return new Tally(won, lost, refused, failed, refills, wall, n > 0 ? jainSum / n : Double.NaN,
                n > 0 ? minShare : Double.NaN, n > 0 ? minThreadWon : 0, n);
    }
}
