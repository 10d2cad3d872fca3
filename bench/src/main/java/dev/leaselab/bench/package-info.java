/**
 * The JMH benchmarks of the lease store, the runner that turns a run into a {@code results/}
 * folder with a report and charts, and the regression gate that compares two runs.
 *
 * <p>Every benchmark takes the {@link dev.leaselab.lease.LockingStrategy} and the {@link Storage}
 * setting as {@code @Param} with no values listed ({@link StoreTrial}), so JMH runs every constant:
 * a new strategy is measured by adding it to the enum. Strategies run only on the storages of their
 * own engine (SQLite files, or {@link Storage#POSTGRESQL}: a server named by
 * {@code LEASELAB_POSTGRES_URL}, see {@link PostgresTarget}); the jar's main class,
 * {@link JmhLauncher}, runs JMH once per engine for that. Outcomes are counted per thread ({@link Outcomes}); a refused or failed
 * operation is never counted as throughput in the report. Run everything from the shaded jar:
 *
 * <pre>
 * mvn -B -N install &amp;&amp; mvn -B -pl lease install -DskipTests &amp;&amp; mvn -B -pl bench package
 * ./with-postgres.sh java -cp bench/target/benchmarks.jar dev.leaselab.bench.BenchMain run --profile quick
 * java -jar bench/target/benchmarks.jar ClaimBenchmark -t 8 -p storage=WAL_NORMAL
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.BenchMain compare results/A results/B
 * </pre>
 * {@code results/README.md} explains the strategies as SQL, the report's columns and the gate.
 */
package dev.leaselab.bench;
