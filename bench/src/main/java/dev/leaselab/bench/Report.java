package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leaselab.bench.BenchResults.Row;
import dev.leaselab.bench.BenchResults.Tally;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Mode;

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
        md.append(postgres(env)).append('\n');
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
                (e.g. SQLITE_BUSY past the busy timeout given above, or a PostgreSQL statement cancelled after the
                statement timeout of the same length) and never counts as throughput. Error bars are JMH's
                99.9% intervals; with few iterations they are wide. Every number here was measured in this run.

                """);
        if (env.path("failedForks").size() > 0) {
            md.append("## Failed forks\n\nThese forks threw and have no results (their exceptions are in `jmh.log`):\n\n");
            env.path("failedForks").forEach(f -> md.append("- ").append(f.asText()).append('\n'));
            md.append('\n');
        }
        List<Row> thrpt = rows.stream().filter(r -> r.mode() == Mode.Throughput).toList();
        List<Row> sample = rows.stream().filter(r -> r.mode() == Mode.SampleTime).toList();
        // Runs from before the paired steps had a busy wait of their own ran them with the profile's.
        md.append(paired(PairedRatios.read(folder.resolve(BenchResults.TALLY)), env.path("settings").path("pairedBusyWait")
                .asText(env.path("settings").path("busyWait").asText(Gate.BUSY_WAIT_BEFORE_RECORDED))));
        md.append(engines(thrpt, sample));
        Set<BenchmarkId> benchmarks = new LinkedHashSet<>();
        // The paired fork's JMH score mixes its slices: its results are the paired table above.
        thrpt.stream().filter(r -> r.benchmark() != BenchmarkId.PAIRED).forEach(r -> benchmarks.add(r.benchmark()));
        for (BenchmarkId b : benchmarks) {
            md.append("## ").append(b).append("\n\n");
            md.append("| storage | strategy | threads | score (ops/s) | won/s wall | x floor (score) | x floor (wall) "
                    + "| won | lost | refused | failed | Jain | slowest |\n");
            md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (Row r : sorted(thrpt.stream().filter(x -> x.benchmark() == b).toList())) {
                Optional<Row> floor = floorOf(thrpt, r);
                Tally t = r.tally();
                md.append(String.format(Locale.ROOT, "| %s | %s | %d | %s ± %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        r.storage(), strategyText(r), r.threads(),
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
            md.append("## Latency (sample mode): closed loop\n\n");
            md.append("JMH's sample mode times the calls of a closed loop: a thread stuck behind a stalled store sends "
                    + "nothing meanwhile, so the requests a real arrival process would have queued are missing "
                    + "(coordinated omission) and these tails are too short. Tail latency at a fixed arrival "
                    + "rate, measured from each request's intended start, is in the open-loop section below where "
                    + "this profile runs it (`OpenLoopMain` runs it on its own).\n\n");
            md.append("| benchmark | storage | strategy | threads | samples' unit | p50 | p99 | p99.9 | max | failed |\n");
            md.append("|---|---|---|---:|---|---:|---:|---:|---:|---:|\n");
            for (Row r : sorted(sample)) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |%n", r.benchmark(),
                        r.storage(), strategyText(r), r.threads(), r.unit(),
                        number(pct(r, 50)), number(pct(r, 99)), number(pct(r, 99.9)), number(pct(r, 100)),
                        r.tally() == null ? "-" : r.tally().failed()));
            }
            md.append('\n');
        }
        md.append(openLoop(OpenLoopRuns.read(folder), sample));
        md.append(processes(MultiProcessRuns.read(folder)));
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

    /**
     * The open-loop table: every strategy and storage the profile ran open-loop, one line per load,
     * with the closed-loop p99.9 of the same hot claim, storage and threads next to it where the
     * run has a {@code SampleTime} fork of it.
     */
    static String openLoop(List<JsonNode> runs, List<Row> sample) {
        if (runs.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder("## Tail latency: open loop next to closed loop\n\n");
        md.append("""
                `OpenLoopMain`, in a JVM of its own per strategy and storage, first measures the hot-job claim's
                closed-loop maximum (requests/s, every outcome) and then sends requests at fixed fractions of it;
                each request's latency runs from the moment it was due to start, so a stall of the store is
                charged to every request that queued behind it, which the closed loop (JMH's sample mode,
                **p99.9 closed**, from this run's sample fork of the same strategy, storage and threads) does not
                see. Latency covers every outcome; **won/s** counts won claims only. **late** counts requests that
                started more than 1 ms after they were due (many mean the workers could not keep up), **failed**
                those that failed or were still queued at the end. The target is p99.9 at most 10 ms.

                | storage | strategy | threads | closed-loop max (req/s) | load | rate (req/s) | won/s | p50 ms | p99 ms | p99.9 ms | max ms | p99.9 closed ms | failed | late | p99.9 <= 10 ms |
                |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
                """);
        for (JsonNode run : runs) {
            String storage = run.path("storage").asText("?");
            String strategy = run.path("strategy").asText("?");
            int threads = run.path("threads").asInt();
            double closed = closedLoopP999Millis(sample, storage, strategy, threads);
            for (JsonNode r : run.path("runs")) {
                JsonNode x = r.path("result");
                double p999 = x.path("p999Ms").asDouble(Double.NaN);
                md.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | %.2f | %s | %s | %s | %s | %s | %s | %s | %d | %d | %s |%n",
                        storage, strategy, threads, number(run.path("closedLoop").path("requestsPerSecond").asDouble(Double.NaN)),
                        r.path("load").asDouble(Double.NaN), number(x.path("rateAsked").asDouble(Double.NaN)),
                        number(x.path("achievedWonPerSecond").asDouble(Double.NaN)), number(x.path("p50Ms").asDouble(Double.NaN)),
                        number(x.path("p99Ms").asDouble(Double.NaN)), number(p999), number(x.path("maxMs").asDouble(Double.NaN)),
                        number(closed), x.path("failed").asLong(), x.path("late").asLong(),
                        Double.isNaN(p999) ? "-" : p999 <= 10 ? "yes" : "**no**"));
            }
        }
        return md.append('\n').toString();
    }

    /**
     * The multi-process table: per storage, every split of the same threads into worker JVMs
     * ({@link MultiProcessMain}), the floor and each strategy, with x floor against the floor of
     * the same split.
     */
    static String processes(List<JsonNode> runs) {
        if (runs.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder("## The same threads in one process and in several\n\n");
        md.append("""
                `MultiProcessMain`: the same threads split over worker JVMs (**P x T**: P processes of T threads)
                on one SQLite file (or one PostgreSQL schema), each process with its own store, all starting at
                one gate; hot-job claims, and the floor (the plain `UPDATE`) of the same split. Between processes
                only the database's locks (SQLite's and its busy handler, PostgreSQL's row lock) decide who goes
                next: an in-process queue (`SERIALIZED`, `GROUP_COMMIT`) orders only its own process's threads.
                **busy wait** is SQLite's (`-` on PostgreSQL, whose statements wait up to the same timeout).
                **won/s** over all threads per wall second, **x floor** against the floor of the same split, **failed** busy past the timeout, **Jain** over all threads of all
                processes (1 = every thread won as often). One run per cell: compare x floor, not won/s, across
                runs. A **paired** x floor (`MultiProcessMain --paired`, the runner's way with the jittered
                busy wait and on PostgreSQL) comes from one run in which every process switched between the
                floor and the claim in slices all processes shared: the median over groups of a floor and a
                claim slice, [95% interval]; won/s, failed, lost, Jain and the wins per process are then the
                claim slices'. Without it the floor ran on its own, seconds apart, and at 4 x 2 on `WAL_FULL`
                its won/s moved by half between runs minutes apart (results/processes-paired-20261204).

                | storage | busy wait | split | work | won/s | x floor | failed | lost | Jain | won per process |
                |---|---|---|---|---:|---:|---:|---:|---:|---|
                """);
        for (JsonNode run : runs) {
            for (JsonNode r : run.path("runs")) {
                JsonNode p = r.path("paired");
                if (!p.isMissingNode()) {
                    JsonNode x = p.path("xFloor");
                    md.append(String.format(Locale.ROOT, "| %s | %s | %dx%d | %s | %s | %.2f [%.2f, %.2f] paired | %d | %d | %.2f | %s |%n",
                            run.path("storage").asText("?"), busyWait(run),
                            p.path("split").path("processes").asInt(), p.path("split").path("threads").asInt(),
                            p.path("work").asText("?"), number(p.path("claimWonPerSecond").asDouble(Double.NaN)),
                            x.path("median").asDouble(Double.NaN), x.path("low").asDouble(Double.NaN), x.path("high").asDouble(Double.NaN),
                            p.path("claimFailed").asLong(), p.path("claimLost").asLong(), p.path("jain").asDouble(Double.NaN),
                            p.path("perProcessClaimWon")));
                    continue;
                }
                JsonNode x = r.path("result");
                md.append(String.format(Locale.ROOT, "| %s | %s | %dx%d | %s | %s | %s | %d | %d | %.2f | %s |%n",
                        run.path("storage").asText("?"), busyWait(run),
                        x.path("split").path("processes").asInt(), x.path("split").path("threads").asInt(),
                        x.path("work").asText("?"), number(x.path("wonPerSecond").asDouble(Double.NaN)),
                        r.path("xFloor").isNumber() ? String.format(Locale.ROOT, "%.2f", r.path("xFloor").asDouble()) : "-",
                        x.path("failed").asLong(), x.path("lost").asLong(), x.path("jain").asDouble(Double.NaN),
                        x.path("perProcessWon")));
            }
        }
        md.append('\n');
        StringBuilder open = new StringBuilder();
        for (JsonNode run : runs) {
            for (JsonNode r : run.path("runs")) {
                for (JsonNode o : r.path("openLoop")) {
                    double p999 = o.path("p999Ms").asDouble(Double.NaN);
                    open.append(String.format(Locale.ROOT, "| %s | %s | %dx%d | %s | %.2f | %s | %s | %s | %s | %s | %s | %s | %d | %d |%n",
                            run.path("storage").asText("?"), busyWait(run),
                            o.path("split").path("processes").asInt(), o.path("split").path("threads").asInt(),
                            o.path("work").asText("?"), o.path("load").asDouble(Double.NaN),
                            number(o.path("rateAsked").asDouble(Double.NaN)), number(o.path("wonPerSecond").asDouble(Double.NaN)),
                            number(o.path("p50Ms").asDouble(Double.NaN)), number(o.path("p99Ms").asDouble(Double.NaN)),
                            number(p999), perProcess(o.path("perProcessP999Ms")), number(o.path("maxMs").asDouble(Double.NaN)),
                            o.path("failed").asLong(), o.path("late").asLong()));
                }
            }
        }
        if (open.length() > 0) {
            md.append("""
                    Open loops across the processes: after a strategy's closed loop, requests at a fraction of its
                    requests/s, each process sending its share from the common gate on; latency from each request's
                    intended start, the processes' histograms merged (so a process that stalled is charged for every
                    request it queued). **p99.9 per process** is each process's own: one far above the others is that
                    process falling behind, equal ones a tail they share. Issue 17's target for 4 x 2 on `WAL_FULL`
                    at 0.5: p99.9 at most 20 ms.

                    | storage | busy wait | split | work | load | rate (req/s) | won/s | p50 ms | p99 ms | p99.9 ms | p99.9 per process ms | max ms | failed | late |
                    |---|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|
                    """).append(open).append('\n');
        }
        return md.toString();
    }

    /** Each process's p99.9 in start order, or {@code -} for a run recorded before they were. */
    private static String perProcess(JsonNode millis) {
        if (!millis.isArray() || millis.isEmpty()) {
            return "-";
        }
        List<String> each = new java.util.ArrayList<>();
        millis.forEach(ms -> each.add(number(ms.asDouble())));
        return String.join(", ", each);
    }

    /** A multi-process run's busy wait: SQLite's setting, which a PostgreSQL run does not have. */
    private static String busyWait(JsonNode run) {
        return Storage.POSTGRESQL.name().equals(run.path("storage").asText()) ? "-" : run.path("busyWait").asText("?");
    }

    /** The closed-loop p99.9 in ms of the hot claim with these settings, or NaN if the run has no such sample fork. */
    static double closedLoopP999Millis(List<Row> sample, String storage, String strategy, int threads) {
        return sample.stream().filter(r -> r.benchmark() == BenchmarkId.CLAIM_HOT && r.threads() == threads
                        && r.storage().name().equals(storage) && r.strategy() != null && r.strategy().name().equals(strategy))
                .findFirst().map(r -> pct(r, 99.9) * millisPerUnit(r.unit())).orElse(Double.NaN);
    }

    /** Milliseconds per unit of a JMH sample-mode score unit such as {@code us/op}. */
    static double millisPerUnit(String unit) {
        String time = unit == null ? "" : unit.split("/")[0];
        return switch (time) {
            case "ns" -> 1e-6;
            case "us" -> 1e-3;
            case "ms" -> 1;
            case "s" -> 1000;
            default -> Double.NaN;
        };
    }

    /**
     * The paired table: every strategy against its floor, measured in alternating slices of one
     * fork ({@link PairedClaimBenchmark}), so that the ratio does not move with the CPU a fork ran
     * on. Rates are medians over the slices; ratios are medians over groups with a 95% bootstrap
     * interval; with several forks, the range of the per-fork medians, and a warning when two
     * forks' intervals do not overlap.
     */
    static String paired(Map<ForkKey, PairedRatios.Row> rows, String busyWait) {
        if (rows.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder("## Paired: the hot-job claim against its floor\n\n");
        double[] sliceSeconds = rows.values().stream().flatMap(r -> r.groups().stream())
                .flatMap(g -> g.slices().values().stream()).mapToDouble(PairedRatios.SliceResult::seconds).toArray();
        md.append(String.format(Locale.ROOT, "Each fork alternates four slices (of %.0f ms, the median measured) ",
                1000 * GateStatistics.median(sliceSeconds)));
        md.append("""
                in a random order per group: the strategy's hot-job claim
                and the floor's plain `UPDATE`, each with all threads and with one thread, on the same database and
                the same threads. **x floor** is the median over groups of the claim's won/s over the floor's in the
                same group, with its 95% bootstrap interval; **N / 1** is the claim at all threads over the claim at
                one thread, and **N / 1 over floor's** the same over the floor's N / 1 in the same group (x floor, N
                over x floor, 1). These are the headline ratios: they compare slices a few hundred milliseconds apart, so
                the CPU a fork lands on (this machine's two run SQLite about 30% apart) cancels out. The raw N / 1
                still carries how well the machine's CPUs scaled while the run lasted (the floor's own N / 1 moved by
                up to 58% between runs a few minutes apart here): compare N / 1 over floor's across runs. Rates are the
                median per-slice won/s. **forks** gives the range of the per-fork medians of x floor at all threads;
                **disagree** marks a row whose forks' intervals do not overlap (beyond the noise).
                """);
        if (rows.keySet().stream().anyMatch(k -> k.storage().engine() == Engine.SQLITE)) {
            md.append("SQLite's connections waited for the lock with the `").append(busyWait).append("` busy wait in these forks.\n");
        }
        md.append('\n');
        md.append("| storage | strategy | threads | claims/s, 1 | floor/s, 1 | x floor, 1 | claims/s, N | floor/s, N "
                + "| x floor, N | N / 1 | N / 1 over floor's | groups | forks | failed, N |\n");
        md.append("|---|---|---:|---:|---:|---|---:|---:|---|---|---|---:|---|---:|\n");
        List<ForkKey> keys = rows.keySet().stream().sorted(ForkKey.REPORT_ORDER).toList();
        for (ForkKey k : keys) {
            PairedRatios.Row r = rows.get(k);
            int forks = r.byFork().size();
            String forkText = forks < 2 ? "1"
                    : String.format(Locale.ROOT, "%d: %s-%s%s", forks, ratio(r.forkRange(PairedRatios.Measure.X_FLOOR_ALL)[0]),
                            ratio(r.forkRange(PairedRatios.Measure.X_FLOOR_ALL)[1]),
                            java.util.Arrays.stream(PairedRatios.Measure.values()).anyMatch(r::forksDisagree) ? " **disagree**" : "");
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %d |%n",
                    k.storage(), k.strategy(), k.threads(),
                    number(r.medianRate(PairedClaimBenchmark.Slice.CLAIM_ONE)), number(r.medianRate(PairedClaimBenchmark.Slice.FLOOR_ONE)),
                    interval(r.estimate(PairedRatios.Measure.X_FLOOR_ONE)),
                    number(r.medianRate(PairedClaimBenchmark.Slice.CLAIM_ALL)), number(r.medianRate(PairedClaimBenchmark.Slice.FLOOR_ALL)),
                    interval(r.estimate(PairedRatios.Measure.X_FLOOR_ALL)), interval(r.estimate(PairedRatios.Measure.SCALING)),
                    interval(r.estimate(PairedRatios.Measure.SCALING_OVER_FLOOR)),
                    r.groups().size(), forkText, r.failed(PairedClaimBenchmark.Slice.CLAIM_ALL)));
        }
        return md.append('\n').toString();
    }

    private static String interval(PairedRatios.Estimate e) {
        return e.pairs() == 0 ? "-" : String.format(Locale.ROOT, "%s [%s, %s]", ratio(e.median()), ratio(e.low()), ratio(e.high()));
    }

    private static String environment(JsonNode env) {
        JsonNode s = env.path("settings");
        return String.format(Locale.ROOT,
                "Measured on %s (%s cores, %s), %s %s, Java %s (%s), SQLite %s (sqlite-jdbc %s), JMH %s, commit %s%s. "
                        + "Profile `%s`: %s fork(s), %s x %s ms warmup, %s x %s ms measurement per fork, "
                        + "busy timeout %s ms (busy wait %s); SQLite files on %s; took %s s.%n",
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
                s.path("busyTimeoutMillis").asText("5000"), s.path("busyWait").asText(Gate.BUSY_WAIT_BEFORE_RECORDED),
                env.has("databaseFileSystem")
                        ? env.path("databaseFileSystem").asText() + " (" + env.path("databaseDirectory").asText() + ")"
                        : "an unrecorded file system",
                env.path("durationSeconds").asText("?"));
    }

    /**
     * The PostgreSQL line of the header: the server's version and the settings that decide what a
     * commit costs, or why PostgreSQL was not measured. Folders from before PostgreSQL have no entry.
     */
    private static String postgres(JsonNode env) {
        JsonNode pg = env.path("postgresql");
        if (pg.isMissingNode()) {
            return "PostgreSQL: not part of this run (recorded before the runner measured PostgreSQL).\n";
        }
        if (!pg.path("measured").asBoolean(false)) {
            return "**PostgreSQL NOT measured**: " + pg.path("reason").asText("?") + ".\n";
        }
        return String.format(Locale.ROOT, "PostgreSQL %s (`fsync=%s`, `synchronous_commit=%s`, as the server was set; "
                        + "PgJDBC %s) at `%s`: a fresh schema per trial, the store with %s pooled connections and a "
                        + "statement timeout of %s ms (the analogue of SQLite's busy timeout: `failed` counts operations "
                        + "that waited longer), the floor through plain JDBC with one connection per thread.%n",
                pg.path("serverVersion").asText("?"), pg.path("fsync").asText("?"), pg.path("synchronousCommit").asText("?"),
                pg.path("jdbcDriverVersion").asText("?"), pg.path("url").asText("?"), pg.path("poolSize").asText("?"),
                pg.path("statementTimeoutMillis").asText("?"));
    }

    /**
     * SQLite and PostgreSQL on the same work: the hot-job claim of every strategy, each on the
     * storage settings of its engine, one row per strategy and storage that has any of these
     * measurements. The ratio to the floor is the strategy's won/s wall over its own floor's
     * (same engine, storage and threads), so each engine is measured against what its own plain
     * UPDATE costs; the absolute columns compare the engines directly.
     */
    static String engines(List<Row> thrpt, List<Row> sample) {
        Map<ForkKey, Row> hot = byKey(thrpt.stream().filter(r -> r.benchmark() == BenchmarkId.CLAIM_HOT).toList());
        Map<ForkKey, Row> hotSample = byKey(sample.stream().filter(r -> r.benchmark() == BenchmarkId.CLAIM_HOT).toList());
        Set<StrategyOnStorage> lines = new TreeSet<>();
        Stream.concat(hot.keySet().stream(), hotSample.keySet().stream())
                .forEach(k -> lines.add(new StrategyOnStorage(k.storage(), k.strategy())));
        if (lines.isEmpty()) {
            return "";
        }
        // 1 and 8 threads, as the quick and full profiles measure; another run (smoke: 2 threads)
        // gets its lowest and highest thread count instead, and one column group if they are equal.
        TreeSet<Integer> measured = new TreeSet<>(threadCounts(hot.isEmpty() ? List.copyOf(hotSample.values()) : List.copyOf(hot.values())));
        int low = measured.contains(1) ? 1 : measured.first();
        int high = measured.contains(8) ? 8 : measured.last();
        List<Integer> groups = low == high ? List.of(low) : List.of(low, high);
        StringBuilder md = new StringBuilder("## SQLite and PostgreSQL on the same work\n\n");
        md.append(String.format(Locale.ROOT, """
                Claims of the hot job (`ClaimBenchmark.hotJob`) by every strategy, each on the storage settings
                of its own engine; `-` where this run did not measure it. **x floor** is won/s wall over the
                won/s wall of the plain UPDATE of the same engine, storage and thread count (each engine against
                its own floor); the claims per second compare the engines directly. Like for like on durability:
                SQLite's `WAL_FULL` and `DELETE_FULL` wait for an fsync per commit, `WAL_NORMAL` does not; PostgreSQL
                waits for its WAL flush when `fsync` and `synchronous_commit` are on (see above). **p99.9** is
                closed-loop, from the sample-time run at %d threads (see the latency section); **failed** and **Jain** from the throughput run at %d threads.

                """, high, high));
        StringBuilder header = new StringBuilder("| engine | storage | strategy |");
        StringBuilder rule = new StringBuilder("|---|---|---|");
        for (int t : groups) {
            header.append(String.format(Locale.ROOT, " claims/s %d thr (score) | won/s wall %d thr | x floor %d thr |", t, t, t));
            rule.append("---:|---:|---:|");
        }
        header.append(String.format(Locale.ROOT, " p99.9 %d thr | failed %d thr | Jain %d thr |", high, high, high));
        rule.append("---:|---:|---:|");
        md.append(header).append('\n').append(rule).append('\n');
        for (StrategyOnStorage line : lines) {
            md.append("| ").append(engineName(line.storage().engine())).append(" | ").append(line.storage()).append(" | ")
                    .append(line.strategy()).append(" |");
            for (int t : groups) {
                Optional<Row> r = Optional.ofNullable(hot.get(line.key(Mode.Throughput, t)));
                md.append(' ').append(r.map(x -> number(x.score())).orElse("-"))
                        .append(" | ").append(r.map(Report::wall).orElse("-"))
                        .append(" | ").append(r.map(x -> wallRatio(thrpt, x)).orElse("-")).append(" |");
            }
            Optional<Row> lat = Optional.ofNullable(hotSample.get(line.key(Mode.SampleTime, high)));
            Optional<Tally> tally = Optional.ofNullable(hot.get(line.key(Mode.Throughput, high))).map(Row::tally);
            md.append(' ').append(lat.map(x -> number(pct(x, 99.9)) + " " + x.unit()).orElse("-"))
                    .append(" | ").append(tally.map(t -> String.valueOf(t.failed())).orElse("-"))
                    .append(" | ").append(tally.map(t -> ratio(t.jain())).orElse("-")).append(" |\n");
        }
        return md.append('\n').toString();
    }

    /** One line of the engines table: a strategy on a storage, in the order of the two enums. */
    private record StrategyOnStorage(Storage storage, LockingStrategy strategy) implements Comparable<StrategyOnStorage> {

        ForkKey key(Mode mode, int threads) {
            return new ForkKey(BenchmarkId.CLAIM_HOT, mode, threads, storage, strategy);
        }

        @Override
        public int compareTo(StrategyOnStorage o) {
            int c = storage.compareTo(o.storage);
            return c != 0 ? c : strategy.compareTo(o.strategy);
        }
    }

    /** The rows by their key; of two rows with one key (not in a runner's folder) the first is kept. */
    private static Map<ForkKey, Row> byKey(List<Row> rows) {
        Map<ForkKey, Row> map = new LinkedHashMap<>();
        rows.forEach(r -> map.putIfAbsent(r.key(), r));
        return map;
    }

    private static String engineName(Engine engine) {
        return switch (engine) {
            case SQLITE -> "SQLite";
            case POSTGRESQL -> "PostgreSQL";
        };
    }

    private static String strategyText(Row r) {
        return r.strategy() == null ? "-" : r.strategy().name();
    }

    private static String wall(Row r) {
        return r.tally() == null ? "-" : number(r.tally().wonPerWallSecond());
    }

    private static String wallRatio(List<Row> thrpt, Row r) {
        return floorOf(thrpt, r).filter(f -> f.tally() != null && r.tally() != null)
                .map(f -> ratio(r.tally().wonPerWallSecond() / f.tally().wonPerWallSecond())).orElse("-");
    }

    /** The floor row with the same storage, thread count and mode. */
    static Optional<Row> floorOf(List<Row> rows, Row r) {
        return rows.stream().filter(f -> f.benchmark() == BenchmarkId.FLOOR && f.mode() == r.mode()
                && f.threads() == r.threads() && f.storage() == r.storage()).findFirst();
    }

    static double pct(Row r, double p) {
        Double v = r.percentiles().get(p);
        return v == null ? Double.NaN : v;
    }

    static List<Row> sorted(List<Row> rows) {
        List<Row> copy = new ArrayList<>(rows);
        copy.sort(Comparator.comparing(Row::key, ForkKey.REPORT_ORDER));
        return copy;
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
