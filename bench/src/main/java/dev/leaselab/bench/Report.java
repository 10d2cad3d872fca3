package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leaselab.bench.BenchResults.Row;
import dev.leaselab.bench.BenchResults.Tally;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Writes {@code report.md} and the charts of a results folder from its JMH JSON, tally and
 * environment. It can be run again on an old folder ({@code BenchMain report <folder>}).
 */
final class Report {

    static final double[] PERCENTILES = {50.0, 99.0, 99.9, 100.0};

    private Report() {}

    static void write(Path folder) {
        List<Row> rows = BenchResults.load(folder);
        Path envFile = folder.resolve("environment.json");
        JsonNode env = Files.isRegularFile(envFile) ? Json.read(envFile) : Json.MAPPER.createObjectNode();
        List<String> charts = Charts.write(folder, rows);
        StringBuilder md = new StringBuilder();
        md.append("# leaselab benchmark report: ").append(folder.getFileName()).append("\n\n");
        md.append(environment(env)).append('\n');
        md.append("""
                How to read this: **score** is JMH's primary metric (every call counts, summed over threads,
                measurement window only). **won/s wall** counts only successful operations (a claim that got a
                fence, an accepted renew or complete, a finished job, a changed row) over the wall-clock span of
                the measurement iterations, ramp-up and ramp-down included: when threads starve, JMH's sum of
                per-thread rates overstates throughput and this column does not. **x floor** divides by the plain
                `UPDATE ... fence = fence + 1` (FloorBenchmark) with the same storage and threads, from this run.
                **Jain** is Jain's fairness index of per-thread successes (1 = equal shares, 1/n = one thread
                did everything), averaged over iterations; **slowest** is the smallest per-thread share of the mean
                in any iteration (0 = a thread starved for a whole iteration). **failed** counts exceptions
                (e.g. SQLITE_BUSY past the busy timeout given above) and never counts as throughput. Error bars are JMH's
                99.9% intervals; with few iterations they are wide. Every number here was measured in this run.

                """);
        if (env.path("failedForks").size() > 0) {
            md.append("## Failed forks\n\nThese forks threw and have no results (their exceptions are in `jmh.log`):\n\n");
            env.path("failedForks").forEach(f -> md.append("- ").append(f.asText()).append('\n'));
            md.append('\n');
        }
        List<Row> thrpt = rows.stream().filter(r -> r.mode().equals("thrpt")).toList();
        List<Row> sample = rows.stream().filter(r -> r.mode().equals("sample")).toList();
        Set<String> benchmarks = new LinkedHashSet<>();
        thrpt.forEach(r -> benchmarks.add(r.benchmark()));
        for (String b : benchmarks) {
            md.append("## ").append(b).append("\n\n");
            md.append("| storage | strategy | threads | score (ops/s) | won/s wall | x floor (score) | x floor (wall) "
                    + "| won | lost | refused | failed | Jain | slowest |\n");
            md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (Row r : sorted(thrpt.stream().filter(x -> x.benchmark().equals(b)).toList())) {
                Optional<Row> floor = floorOf(thrpt, r);
                Tally t = r.tally();
                md.append(String.format(Locale.ROOT, "| %s | %s | %d | %s ± %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        r.param("storage"), Objects.requireNonNullElse(r.param("strategy"), "-"), r.threads(),
                        number(r.score()), number(r.error()), t == null ? "-" : number(t.wonPerWallSecond()),
                        floor.map(f -> ratio(r.score() / f.score())).orElse("-"),
                        floor.filter(f -> f.tally() != null && t != null)
                                .map(f -> ratio(t.wonPerWallSecond() / f.tally().wonPerWallSecond())).orElse("-"),
                        t == null ? "-" : t.won(), t == null ? "-" : t.lost(), t == null ? "-" : t.refused(),
                        t == null ? "-" : t.failed(), t == null ? "-" : ratio(t.jain()),
                        t == null ? "-" : ratio(t.minShare())));
            }
            md.append('\n');
        }
        if (!sample.isEmpty()) {
            md.append("## Latency (sample mode)\n\n");
            md.append("| benchmark | storage | strategy | threads | samples' unit | p50 | p99 | p99.9 | max | failed |\n");
            md.append("|---|---|---|---:|---|---:|---:|---:|---:|---:|\n");
            for (Row r : sorted(sample)) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |%n", r.benchmark(),
                        r.param("storage"), Objects.requireNonNullElse(r.param("strategy"), "-"), r.threads(), r.unit(),
                        number(pct(r, 50)), number(pct(r, 99)), number(pct(r, 99.9)), number(pct(r, 100)),
                        r.tally() == null ? "-" : r.tally().failed()));
            }
            md.append('\n');
        }
        if (!charts.isEmpty()) {
            md.append("## Charts\n\n");
            for (String c : charts) {
                md.append("![").append(c).append("](").append(c).append(")\n\n");
            }
        }
        try {
            Files.writeString(folder.resolve("report.md"), md.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the report in " + folder, e);
        }
    }

    private static String environment(JsonNode env) {
        JsonNode s = env.path("settings");
        return String.format(Locale.ROOT,
                "Measured on %s (%s cores, %s), %s %s, Java %s (%s), SQLite %s (sqlite-jdbc %s), JMH %s, commit %s%s. "
                        + "Profile `%s`: %s fork(s), %s x %s ms warmup, %s x %s ms measurement per fork, "
                        + "busy timeout %s ms; took %s s.%n",
                env.path("cpuModel").asText("?"), env.path("availableProcessors").asText("?"),
                env.path("memoryTotalBytes").isNumber()
                        ? String.format(Locale.ROOT, "%.0f GiB", env.path("memoryTotalBytes").asDouble() / (1L << 30)) : "?",
                env.path("osName").asText("?"), env.path("osVersion").asText(""), env.path("javaVersion").asText("?"),
                env.path("vmName").asText("?"), env.path("sqliteVersion").asText("?"),
                env.path("sqliteJdbcVersion").asText("?"), env.path("jmhVersion").asText("?"),
                env.path("gitCommit").asText("?"), env.path("gitDirty").asBoolean(false) ? " (with uncommitted changes)" : "",
                s.path("profile").asText("?"), s.path("forks").asText("?"), s.path("warmupIterations").asText("?"),
                s.path("warmupMillis").asText("?"), s.path("measurementIterations").asText("?"),
                s.path("measurementMillis").asText("?"),
                // runs before the setting was recorded used the store's default
                s.path("busyTimeoutMillis").asText("5000"), env.path("durationSeconds").asText("?"));
    }

    /** The floor row with the same storage, thread count and mode. */
    static Optional<Row> floorOf(List<Row> rows, Row r) {
        return rows.stream().filter(f -> f.benchmark().equals(Profile.FLOOR) && f.mode().equals(r.mode())
                && f.threads() == r.threads() && Objects.equals(f.param("storage"), r.param("storage"))).findFirst();
    }

    static double pct(Row r, double p) {
        Double v = r.percentiles().get(p);
        return v == null ? Double.NaN : v;
    }

    static List<Row> sorted(List<Row> rows) {
        List<Row> copy = new ArrayList<>(rows);
        copy.sort((a, b) -> {
            int c = a.benchmark().compareTo(b.benchmark());
            if (c == 0) {
                c = storageOrder(a).compareTo(storageOrder(b));
            }
            if (c == 0) {
                c = strategyOrder(a).compareTo(strategyOrder(b));
            }
            return c != 0 ? c : Integer.compare(a.threads(), b.threads());
        });
        return copy;
    }

    /** Strategies in the order of the enum, so tables and charts follow the Javadoc of LockingStrategy. */
    private static Integer strategyOrder(Row r) {
        if (r.param("strategy") == null) {
            return -1;
        }
        try {
            return dev.leaselab.lease.LockingStrategy.valueOf(r.param("strategy")).ordinal();
        } catch (RuntimeException e) {
            return Integer.MAX_VALUE;
        }
    }

    private static Integer storageOrder(Row r) {
        try {
            return Storage.valueOf(r.param("storage")).ordinal();
        } catch (RuntimeException e) {
            return Integer.MAX_VALUE;
        }
    }

    static Set<Integer> threadCounts(List<Row> rows) {
        Set<Integer> s = new TreeSet<>();
        rows.forEach(r -> s.add(r.threads()));
        return s;
    }

    /** A number with three significant digits, or "-" for NaN. */
    static String number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "-";
        }
        double a = Math.abs(v);
        if (a == 0) {
            return "0";
        }
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    static String ratio(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }
}
