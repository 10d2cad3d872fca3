package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The trial every store benchmark runs in: which strategy on which storage, and a fresh database
 * with the store opened on it for the whole trial, shared by all benchmark threads. A benchmark
 * takes it into its own setup (JMH injects one state into another's {@code @Setup}) and states
 * only what it measures; the parameters keep their names, {@code strategy} and {@code storage}, in
 * JMH's output and JSON.
 */
@State(Scope.Benchmark)
public class StoreTrial {

    /**
     * Every strategy in the enum: no values are listed, so new constants are measured too, each on
     * the storages of its engine ({@code java -jar benchmarks.jar}, {@link JmhLauncher}, and the
     * runner's profiles pick them per engine).
     */
    @Param
    public LockingStrategy strategy;

    @Param
    public Storage storage;

    private BenchDb db;

    /** Refuses a strategy and a storage of different engines before touching any database. */
    @Setup(Level.Trial)
    public void open() {
        db = BenchDb.open(strategy, storage);
    }

    @TearDown(Level.Trial)
    public void close() {
        db.close();
    }

    BenchDb db() {
        return db;
    }

    LeaseStore store() {
        return db.store();
    }
}
