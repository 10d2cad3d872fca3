package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leaselab.lease.LockingStrategy;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * What one fork measures, and so one row of a results folder: benchmark, mode, thread count and
 * the two parameters. Resuming a run, joining the tally to JMH's results, grouping the report and
 * pairing the gate's rows all match forks by this key.
 *
 * @param strategy null for the floor, the one benchmark without a strategy parameter
 */
record ForkKey(BenchmarkId benchmark, Mode mode, int threads, Storage storage, LockingStrategy strategy) {

    static final String STORAGE = "storage";
    static final String STRATEGY = "strategy";

    /**
     * The order of the report's tables and charts: benchmarks by name, then storages and strategies
     * in the order of their enums (the floor before any strategy), then threads.
     */
    static final Comparator<ForkKey> REPORT_ORDER = Comparator.comparing((ForkKey k) -> k.benchmark().toString())
            .thenComparing(ForkKey::storage)
            .thenComparingInt(k -> k.strategy() == null ? -1 : k.strategy().ordinal())
            .thenComparingInt(ForkKey::threads);

    ForkKey {
        Objects.requireNonNull(benchmark, "benchmark");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(storage, "storage");
        if (benchmark.hasStrategy() != (strategy != null)) {
            throw new IllegalArgumentException(benchmark + (benchmark.hasStrategy() ? " needs a strategy" : " has no strategy")
                    + ", given " + strategy);
        }
    }

    /**
     * The key of an entry of JMH's JSON or of a tally line: both carry {@code benchmark} (JMH's full
     * name), {@code mode} (its short label), {@code threads} and {@code params}.
     *
     * @throws IllegalArgumentException if a value is not one of this module's benchmarks, modes,
     *     storages or strategies, or a parameter is not one of the two
     */
    static ForkKey of(JsonNode entry) {
        String storage = null;
        String strategy = null;
        for (Iterator<Map.Entry<String, JsonNode>> it = entry.path("params").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> p = it.next();
            switch (p.getKey()) {
                case STORAGE -> storage = p.getValue().asText();
                case STRATEGY -> strategy = p.getValue().asText();
                default -> throw new IllegalArgumentException("parameter '" + p.getKey() + "' of " + entry.path("benchmark").asText()
                        + " is none of this module's (" + STORAGE + ", " + STRATEGY + ")");
            }
        }
        return of(entry.path("benchmark").asText(), entry.path("mode").asText(), entry.path("threads").asInt(), storage, strategy);
    }

    /** The key of a fork as JMH describes it to the benchmark. */
    static ForkKey of(BenchmarkParams params) {
        Set<String> keys = Set.copyOf(params.getParamsKeys());
        return of(params.getBenchmark(), params.getMode().shortLabel(), params.getThreads(), params.getParam(STORAGE),
                keys.contains(STRATEGY) ? params.getParam(STRATEGY) : null);
    }

    private static ForkKey of(String benchmark, String mode, int threads, String storage, String strategy) {
        if (storage == null) {
            throw new IllegalArgumentException(benchmark + " has no " + STORAGE + " parameter");
        }
        return new ForkKey(BenchmarkId.of(benchmark), Mode.deepValueOf(mode), threads, Storage.valueOf(storage),
                strategy == null ? null : LockingStrategy.valueOf(strategy));
    }

    /** The same fork at another thread count. */
    ForkKey withThreads(int threads) {
        return new ForkKey(benchmark, mode, threads, storage, strategy);
    }

    /**
     * As the gate prints a row: {@code ClaimBenchmark.hotJob thrpt storage=WAL_NORMAL strategy=IMMEDIATE threads=8}
     * (the parameters in the order of their names).
     */
    String label() {
        return benchmark + " " + mode.shortLabel() + " " + STORAGE + "=" + storage
                + (strategy == null ? "" : " " + STRATEGY + "=" + strategy) + " threads=" + threads;
    }

    /**
     * As the runner names a fork that failed, on the console and in {@code environment.json}:
     * {@code ClaimBenchmark.hotJob thrpt threads=8 storage=WAL_NORMAL strategy=IMMEDIATE}.
     */
    String describe() {
        return String.format(Locale.ROOT, "%s %s threads=%d storage=%s%s", benchmark, mode.shortLabel(), threads, storage,
                strategy == null ? "" : " strategy=" + strategy);
    }
}
