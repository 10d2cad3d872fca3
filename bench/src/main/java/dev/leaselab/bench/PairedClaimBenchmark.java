package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The hot-job claim and its floor measured together, so that their ratio is immune to what the
 * machine does between runs. This machine's two CPUs run SQLite about 30% apart and a thread stays
 * on one of them for seconds; measured in separate forks, a strategy and its floor land on
 * different CPUs often enough that "x floor" moved by 40% from run to run. Here both run in one
 * fork, on the same threads and the same database file, in short alternating slices: each JMH
 * iteration is one {@link Slice}, and every four iterations are one group holding each slice once,
 * in a random order. A group's ratios ({@code claim / floor} at all threads, the same at one
 * thread, and {@code claim at all threads / claim at one thread}) compare slices a few hundred
 * milliseconds apart, which share CPU placement, frequency and the state of the disk; the report
 * gives the median over groups with a bootstrap interval ({@link PairedRatios}).
 *
 * <p>The slices: {@code CLAIM_ALL} every thread claims the hot job as {@link ClaimBenchmark#hotJob}
 * does; {@code FLOOR_ALL} every thread runs the floor's plain {@code UPDATE} ({@link FloorBenchmark})
 * on its own connection, on another row of the same table; {@code CLAIM_ONE} and {@code FLOOR_ONE}
 * the same with thread 0 alone while the others park. Which slice an iteration was is written into
 * the tally ({@link Outcomes#slice}), with each thread's counts and wall-clock span. The JMH score
 * mixes the slices and means nothing on its own; the tally is the result.
 *
 * <p>Warmup and measurement iterations must be multiples of four (the runner's profiles are), so
 * that measurement starts at a group. Run with the runner, or:
 * <pre>
 * java -jar bench/target/benchmarks.jar PairedClaimBenchmark -p storage=WAL_NORMAL -p strategy=GROUP_COMMIT \
 *     -jvmArgs -Dleaselab.tally=/tmp/tally.jsonl
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 4, time = 150, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 32, time = 150, timeUnit = TimeUnit.MILLISECONDS)
@Threads(8)
@Fork(1)
public class PairedClaimBenchmark {

    /** What one iteration runs. */
    enum Slice {
        /** Every thread claims the hot job. */
        CLAIM_ALL(false, true),
        /** Every thread runs the floor's update. */
        FLOOR_ALL(true, true),
        /** Thread 0 claims the hot job; the others park. */
        CLAIM_ONE(false, false),
        /** Thread 0 runs the floor's update; the others park. */
        FLOOR_ONE(true, false);

        final boolean floor;
        final boolean allThreads;

        Slice(boolean floor, boolean allThreads) {
            this.floor = floor;
            this.allThreads = allThreads;
        }
    }

    /** The slices of one group. */
    static final int GROUP = Slice.values().length;

    static final String FLOOR_ROW = "floor";
    /** How long a thread with nothing to do in a one-thread slice parks before JMH asks again. */
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private LeaseStore store;
    private BenchDb db;
    private final AtomicLong clock = new AtomicLong();
    private final List<Slice> plan = new ArrayList<>();
    private Random order;
    private volatile Slice slice;
    private Connection[] floorConnections;
    private PreparedStatement[] floorUpdates;

    /**
     * The hot job, the floor's row, and one floor connection with its prepared {@code UPDATE} per
     * benchmark thread (thread i uses the i-th), opened here so that no slice pays for a connection.
     */
    @Setup(Level.Trial)
    public void prepare(StoreTrial trial, BenchmarkParams params) throws SQLException {
        db = trial.db();
        store = trial.store();
        store.enqueue(ClaimBenchmark.HOT);
        db.insertJobs(new String[] {FLOOR_ROW}, null, 0);
        order = new Random(System.nanoTime());
        floorConnections = new Connection[params.getThreads()];
        floorUpdates = new PreparedStatement[params.getThreads()];
        for (int i = 0; i < floorConnections.length; i++) {
            floorConnections[i] = db.connect();
            floorUpdates[i] = floorConnections[i].prepareStatement(FloorBenchmark.UPDATE);
            floorUpdates[i].setString(1, FLOOR_ROW);
        }
    }

    /** Picks this iteration's slice: the next of the current group, a new shuffled group after four. */
    @Setup(Level.Iteration)
    public void nextSlice() {
        if (plan.isEmpty()) {
            Collections.addAll(plan, Slice.values());
            Collections.shuffle(plan, order);
        }
        slice = plan.remove(0);
        Outcomes.slice = slice.name();
    }

    @TearDown(Level.Trial)
    public void closeFloorAndForgetSlice() throws SQLException {
        Outcomes.slice = null;
        for (int i = 0; i < floorConnections.length; i++) {
            floorUpdates[i].close();
            floorConnections[i].close();
        }
    }

    /** One operation of this iteration's slice, or a short park for a thread the slice leaves idle. */
    @Benchmark
    public long slice(Outcomes o, ThreadParams thread) {
        Slice s = slice;
        int index = thread.getThreadIndex();
        if (!s.allThreads && index != 0) {
            LockSupport.parkNanos(IDLE_NANOS);
            return 0;
        }
        o.mark();
        return s.floor ? o.updated(floorUpdates[index]::executeUpdate) : claim(o);
    }

    private long claim(Outcomes o) {
        double now = clock.getAndIncrement() * ClaimBenchmark.TTL;
        return o.claimed(() -> store.claim(ClaimBenchmark.HOT, o.owner(), now, ClaimBenchmark.TTL));
    }

}
