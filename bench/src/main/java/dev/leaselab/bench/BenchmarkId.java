package dev.leaselab.bench;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The benchmark methods of this module, named by their class and method, so that code which picks
 * a benchmark (the profiles, the report, the charts) holds the class and not a copy of its name.
 * {@link #toString()} is JMH's short name ({@code ClaimBenchmark.hotJob}): what the report prints,
 * {@code --benchmarks} takes and the results folder's files record.
 */
enum BenchmarkId {
    CLAIM_HOT(ClaimBenchmark.class, "hotJob", true),
    /** The hot-job claim and the floor in alternating slices of one fork ({@link PairedClaimBenchmark}). */
    PAIRED(PairedClaimBenchmark.class, "slice", true),
    CLAIM_MANY(ClaimBenchmark.class, "manyJobs", true),
    RENEW(RenewBenchmark.class, "renew", true),
    COMPLETE(CompleteBenchmark.class, "complete", true),
    CYCLE(WorkerCycleBenchmark.class, "cycle", true),
    /** claimNext of one job, then its complete, on a shared queue ({@link QueueBenchmark}). */
    QUEUE_ONE(QueueBenchmark.class, "one", true),
    /** claimNext of up to 16 jobs, then a complete for each. */
    QUEUE_BATCH(QueueBenchmark.class, "batch", true),
    /** claimNext of up to 16 jobs, then one completeAll for them. */
    QUEUE_BATCH_ALL(QueueBenchmark.class, "batchAll", true),
    /** The plain UPDATE that every strategy is reported against; it has no strategy parameter. */
    FLOOR(FloorBenchmark.class, "update", false);

    private final Class<?> type;
    private final String method;
    private final boolean hasStrategy;

    BenchmarkId(Class<?> type, String method, boolean hasStrategy) {
        this.type = type;
        this.method = method;
        this.hasStrategy = hasStrategy;
    }

    /** The class that declares the benchmark method. */
    Class<?> type() {
        return type;
    }

    /** Whether the benchmark takes a {@link dev.leaselab.lease.LockingStrategy} parameter (every one but the floor). */
    boolean hasStrategy() {
        return hasStrategy;
    }

    /** JMH's full name, {@code dev.leaselab.bench.ClaimBenchmark.hotJob}. */
    String jmhName() {
        return type.getName() + "." + method;
    }

    /** JMH's short name, {@code ClaimBenchmark.hotJob}. */
    @Override
    public String toString() {
        return type.getSimpleName() + "." + method;
    }

    /**
     * The benchmark of a short name ({@code ClaimBenchmark.hotJob}) or a full one
     * ({@code dev.leaselab.bench.ClaimBenchmark.hotJob}); the package is not compared, as the
     * results files were always matched by short name.
     *
     * @throws IllegalArgumentException for a name that is none of these benchmarks
     */
    static BenchmarkId of(String name) {
        String shortName = shortName(name);
        return Arrays.stream(values()).filter(b -> b.toString().equals(shortName)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("'" + name + "' is none of the benchmarks "
                        + Arrays.stream(values()).map(BenchmarkId::toString).collect(Collectors.joining(", "))));
    }

    /** {@code dev.leaselab.bench.ClaimBenchmark.hotJob} becomes {@code ClaimBenchmark.hotJob}. */
    static String shortName(String benchmark) {
        int method = benchmark.lastIndexOf('.');
        int type = method > 0 ? benchmark.lastIndexOf('.', method - 1) : -1;
        return type >= 0 ? benchmark.substring(type + 1) : benchmark;
    }
}
