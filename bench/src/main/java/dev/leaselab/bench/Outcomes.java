package dev.leaselab.bench;

import com.fasterxml.jackson.annotation.JsonInclude;

import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * What each operation of one benchmark thread came to, as JMH auxiliary counters (see JMH sample
 * 23). They are {@code EVENTS}: plain counts per iteration, summed over threads. ({@code OPERATIONS}
 * counters would be divided by each thread's own time, which turns a thread stuck in SQLite's busy
 * handler into absurd rates.)
 * <ul>
 *   <li>{@code won}: the operation did what it was asked (a claim got a fence, a renew or complete
 *       was accepted, a worker cycle finished its job, the floor's update changed its row);
 *   <li>{@code lost}: a claim found the lease held by someone else (it lost the race);
 *   <li>{@code refused}: a renew or complete was answered {@code false};
 *   <li>{@code failed}: the store threw (for instance {@code SQLITE_BUSY} past the busy timeout).
 * </ul>
 * JMH's primary score counts every call; the report's throughput counts {@code won} only.
 *
 * <p>JMH sums counters over threads, which hides starvation. So at the end of every iteration
 * each thread also appends its own counts and the nanoTime span it ran to the tally file named by
 * the system property {@value #TALLY_PROPERTY} (one JSON object per line), from which the report
 * computes Jain's fairness, the slowest thread and operations per wall-clock second. Those counts
 * include JMH's ramp-up and ramp-down, as the aux counters do.
 *
 * <p>While the {@link MachineReference} profiler is on (the runner turns it on), each thread also
 * times its {@link ReferenceLoop} right before and right after every iteration, on its own thread,
 * and hands the result to the profiler.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class Outcomes {

    /** System property naming the file that per-thread iteration counts are appended to. */
    static final String TALLY_PROPERTY = "leaselab.tally";

    private static final Object TALLY_LOCK = new Object();

    /**
     * The slice the current iteration runs, for a benchmark that alternates slices within a fork
     * ({@link PairedClaimBenchmark}); null for every other benchmark. A fork runs one benchmark,
     * and the slice changes only between iterations, so one field for the JVM suffices.
     */
    static volatile String slice;

    public long won;
    public long lost;
    public long refused;
    public long failed;

    private int threadIndex;
    private String owner;
    private long startNanos;
    private int warmups;
    private int measurements;
    /** How often a thread ran out of prepared jobs and had to prepare more inside the measurement. */
    long refills;
    /** This thread's {@link MachineReference} database, while that profiler is on. */
    private ReferenceLoop reference;
    private double referenceBefore;

    @Setup(Level.Trial)
    public void identify(ThreadParams thread) {
        threadIndex = thread.getThreadIndex();
        owner = ownerOf(threadIndex);
    }

    @Setup(Level.Iteration)
    public void reset() {
        won = 0;
        lost = 0;
        refused = 0;
        failed = 0;
        refills = 0;
        startNanos = 0;
        long window = MachineReference.windowNanos();
        if (window > 0) {
            if (reference == null) {
                reference = ReferenceLoop.open(window);
            }
            referenceBefore = reference.window();
        }
    }

    /**
     * Called first by every benchmark method: the wall-clock span of an iteration starts at a
     * thread's first operation, so the time a thread waits for the iteration's setup (the bulk
     * inserts of the complete and cycle benchmarks) is not counted as its time.
     */
    void mark() {
        if (startNanos == 0) {
            startNanos = System.nanoTime();
        }
    }

    @TearDown(Level.Iteration)
    public void tally(BenchmarkParams benchmark, IterationParams iteration, ThreadParams thread) {
        long endNanos = System.nanoTime();
        if (startNanos == 0) {
            startNanos = endNanos;
        }
        if (reference != null) {
            MachineReference.record(Math.sqrt(referenceBefore * reference.window()));
        }
        boolean warmup = iteration.getType() == IterationType.WARMUP;
        int index = warmup ? ++warmups : ++measurements;
        String target = System.getProperty(TALLY_PROPERTY);
        if (target == null || target.isBlank()) {
            return;
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (String key : benchmark.getParamsKeys()) {
            params.put(key, benchmark.getParam(key));
        }
        TallyLine line = new TallyLine(benchmark.getBenchmark(), benchmark.getMode().shortLabel(), params,
                thread.getThreadCount(), thread.getThreadIndex(), ProcessHandle.current().pid(),
                warmup ? "warmup" : "measurement", index, slice, won, lost, refused, failed, refills, startNanos, endNanos);
        String json = Json.write(line) + "\n";
        synchronized (TALLY_LOCK) {
            try {
                Files.writeString(Path.of(target), json, StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
            } catch (IOException e) {
                throw new UncheckedIOException("could not append to the tally file " + target, e);
            }
        }
    }

    @TearDown(Level.Trial)
    public void closeReference() {
        if (reference != null) {
            reference.close();
            reference = null;
        }
    }

    /**
     * One line of the tally: one thread's counts and wall-clock span in one iteration, with the
     * fork's key ({@code benchmark}, {@code mode}, {@code params}, {@code threads}) and, for a
     * paired fork, the iteration's {@code slice} (absent otherwise).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record TallyLine(String benchmark, String mode, Map<String, String> params, int threads, int thread, long pid,
                     String iterationType, int iteration, String slice, long won, long lost, long refused, long failed,
                     long refills, long startNanos, long endNanos) {}

    /** The owner name that benchmark thread {@code index} uses. */
    static String ownerOf(int index) {
        return "worker-" + index;
    }

    int threadIndex() {
        return threadIndex;
    }

    String owner() {
        return owner;
    }

    // The classification: every benchmark runs its operation through claimed, accepted, cycled or
    // updated, the one place that decides which counter an outcome lands in (AccountingTest forces
    // each outcome on a real store and checks the counters, and runs broken variants of these
    // methods through the same check as its negative control). Only LeaseStoreException (for the
    // floor, SQLException) is failed: any other exception is a bug in the benchmark or the store,
    // not a measurement, so it propagates and JMH fails the fork. Package-private and with
    // arguments, so JMH does not take them for counters.

    /** What {@link #claimed} returns for a lost claim; fences are positive. */
    static final long LOST = -1;
    /** What {@link #claimed} returns for a failed claim. */
    static final long FAILED = -2;

    /** A store call that claims: a fence, or empty when the lease is held. */
    @FunctionalInterface
    interface ClaimCall {
        OptionalLong call();
    }

    /** A store call answered true (accepted) or false (refused), such as renew or complete. */
    @FunctionalInterface
    interface BooleanCall {
        boolean call();
    }

    /** The rest of a worker cycle after its claim, given the claim's fence. */
    @FunctionalInterface
    interface FencedCall {
        boolean call(long fence);
    }

    /** A claimNext: the leases of the jobs it was handed, none when the queue had none. */
    @FunctionalInterface
    interface NextCall {
        List<Lease> call();
    }

    /** What a worker does with a job it was handed: true when the store accepted its completion. */
    @FunctionalInterface
    interface LeaseCall {
        boolean call(Lease lease);
    }

    /** What a worker does with every job it was handed at once: each completion's answer, in their order. */
    @FunctionalInterface
    interface LeasesCall {
        List<Boolean> call(List<Lease> leases);
    }

    /** A plain JDBC update: the number of rows it changed. */
    @FunctionalInterface
    interface UpdateCall {
        int call() throws SQLException;
    }

    /**
     * Runs a claim: a fence is {@code won}, empty is {@code lost}, a {@link LeaseStoreException}
     * is {@code failed}.
     *
     * @return the fence, or {@link #LOST} or {@link #FAILED} (JMH consumes it, so the call is not dead code)
     */
    long claimed(ClaimCall claim) {
        OptionalLong fence;
        try {
            fence = claim.call();
        } catch (LeaseStoreException e) {
            failed++;
            return FAILED;
        }
        if (fence.isPresent()) {
            won++;
            return fence.getAsLong();
        }
        lost++;
        return LOST;
    }

    /**
     * Runs a renew or complete: true is {@code won}, false is {@code refused}, a
     * {@link LeaseStoreException} is {@code failed}.
     *
     * @return whether the store accepted it
     */
    boolean accepted(BooleanCall call) {
        boolean accepted;
        try {
            accepted = call.call();
        } catch (LeaseStoreException e) {
            failed++;
            return false;
        }
        if (accepted) {
            won++;
        } else {
            refused++;
        }
        return accepted;
    }

    /**
     * Runs a worker cycle, one outcome for the whole job: an empty claim is {@code lost}; else
     * {@code rest} true is {@code won} and false {@code refused}; a {@link LeaseStoreException} in
     * the claim or the rest is {@code failed}.
     *
     * @return whether the job was finished
     */
    boolean cycled(ClaimCall claim, FencedCall rest) {
        boolean finished;
        try {
            OptionalLong fence = claim.call();
            if (fence.isEmpty()) {
                lost++;
                return false;
            }
            finished = rest.call(fence.getAsLong());
        } catch (LeaseStoreException e) {
            failed++;
            return false;
        }
        if (finished) {
            won++;
        } else {
            refused++;
        }
        return finished;
    }

    /**
     * Runs one turn of a queue worker, one outcome per job: {@code next} handing out nothing is
     * {@code lost} (once per turn: the queue was empty); each job handed out is {@code won} when
     * {@code work} completes it, {@code refused} when the store refuses the completion; a
     * {@link LeaseStoreException} is {@code failed}, once for the claimNext or once per job whose
     * completion threw.
     *
     * @return the jobs finished, or -1 when the claimNext failed
     */
    int drained(NextCall next, LeaseCall work) {
        List<Lease> leases = handedOut(next);
        if (leases == null || leases.isEmpty()) {
            return leases == null ? -1 : 0;
        }
        int finished = 0;
        for (Lease lease : leases) {
            boolean accepted;
            try {
                accepted = work.call(lease);
            } catch (LeaseStoreException e) {
                failed++;
                continue;
            }
            finished += completion(accepted);
        }
        return finished;
    }

    /**
     * Runs one turn of a queue worker that completes its jobs in one call ({@code completeAll}):
     * {@code next} as in {@link #drained}; then each job is {@code won} or {@code refused} by its
     * completion's answer, and a {@link LeaseStoreException} from the one call is {@code failed}
     * once per job, since none of them was completed.
     *
     * @return the jobs finished, or -1 when the claimNext failed
     */
    int drainedTogether(NextCall next, LeasesCall finish) {
        List<Lease> leases = handedOut(next);
        if (leases == null || leases.isEmpty()) {
            return leases == null ? -1 : 0;
        }
        List<Boolean> answers;
        try {
            answers = finish.call(leases);
        } catch (LeaseStoreException e) {
            failed += leases.size();
            return 0;
        }
        int finished = 0;
        for (boolean accepted : answers) {
            finished += completion(accepted);
        }
        return finished;
    }

    /** Counts a completion's answer, {@code won} or {@code refused}; returns the jobs it finished (1 or 0). */
    private int completion(boolean accepted) {
        if (accepted) {
            won++;
            return 1;
        }
        refused++;
        return 0;
    }

    /** The claimNext of a queue turn: its leases, or null when it failed; an empty queue counts {@code lost}. */
    private List<Lease> handedOut(NextCall next) {
        List<Lease> leases;
        try {
            leases = next.call();
        } catch (LeaseStoreException e) {
            failed++;
            return null;
        }
        if (leases.isEmpty()) {
            lost++;
        }
        return leases;
    }

    /**
     * Runs the floor's update: one row changed is {@code won}, any other count {@code refused}, a
     * {@link SQLException} (busy past the timeout) {@code failed}.
     *
     * @return the rows changed, or -1 when it failed
     */
    int updated(UpdateCall update) {
        int changed;
        try {
            changed = update.call();
        } catch (SQLException e) {
            failed++;
            return -1;
        }
        if (changed == 1) {
            won++;
        } else {
            refused++;
        }
        return changed;
    }
}
