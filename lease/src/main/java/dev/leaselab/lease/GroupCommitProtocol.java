package dev.leaselab.lease;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import jdk.jfr.FlightRecorder;

/**
 * Group commit: the writes of all threads that are waiting at the same moment run in one
 * {@code BEGIN IMMEDIATE} transaction, one after another, and share one commit (and so one fsync
 * under {@code synchronous=FULL}).
 *
 * <p>Each thread queues its write. Whoever gets the leader lock drains the queue, runs the batch on
 * its own connection and wakes the others with their results; a thread that finds a leader at work
 * parks until its write is done or the leadership is free. A batch of one write runs alone in
 * autocommit, so a single thread pays no more than {@link ConditionalUpdateProtocol}. Inside the
 * transaction every write is
 * the same compare-and-set statement as in {@link ConditionalUpdateProtocol}, applied in queue
 * order, so a later write in the batch sees the effects of the earlier ones: two claims of one job
 * in one batch give one winner. If anything in the batch fails, the whole transaction is rolled
 * back and every write in it fails with that error, so nothing half-applied is ever committed.
 *
 * <p>Before it drains the queue, a leader waits, parked, until as many writes are queued as there
 * were writers at the end of the last batch, if there were at least
 * {@value #MIN_WRITERS_TO_WAIT_FOR} or the commits the missing writes would save cost more than a
 * wake-up, for no longer than those commits would take
 * (each one more write in the batch saves one {@code COMMIT}; 1 ms at most). Without that wait the
 * thread that led a batch comes back first, finds only its own write queued while the writers it
 * has just woken are still being scheduled, and commits it alone; batches then alternate between
 * one write and the rest. Measured with the gate's paired hot claim at 8 threads
 * (results/README.md, "Group commit waits for the writers it woke"): with the wait the batches hold
 * all 8 writes, without it mostly 7 and 1, and the wait gives about a quarter more claims per
 * second.
 *
 * <p>Both waits, a writer's for its batch and the leader's for its writers, first yield the CPU
 * for up to {@value #YIELD_NANOS} ns and only then park. A batch lasts about that long, so most
 * waits end while yielding: the thread that ends them writes a flag instead of making a parked
 * thread runnable, and with 8 threads on 2 CPUs that wake-up, not SQLite, had set the pace (a CPU
 * with nothing runnable goes idle and must be woken too). Yielding, not spinning, hands the CPU to
 * any thread that has work; writers that spun 20 µs ran at 0.75x the floor where parking ran
 * 1.25x. Measured with the gate's paired hot claim at 8 threads (results/group-commit-yield-20261205):
 * 2.5-2.7x the floor on WAL_NORMAL against 1.2-1.3x when parking at once.
 *
 * <p>Each batch is a Flight Recorder event ({@link GroupCommitBatchEvent}) with the time of each of
 * its phases, recorded only while a recording runs. At 8 threads on WAL + FULL a batch of 8 spent
 * about 150 µs in its {@code COMMIT}, 38-40 µs in its BEGIN and statements and 12 µs in the hand-off
 * (results/group-commit-time-20261207).
 */
final class GroupCommitProtocol implements WriteProtocol {

    /** Bounds the transaction, and so the latency of the first writer in it. */
    private static final int MAX_BATCH = 64;

    /**
     * Fewer writers than this are waited for only when the commits they would save cost more than
     * {@link #WAKE_UP_NANOS}. Waiting for a woken writer costs its wake-up, which on a busy machine
     * outlasts a cheap commit: 4 processes of 2 threads on one file (MultiProcessMain, WAL + NORMAL)
     * waited about 500 µs a batch to save a 60 µs commit and ran at 0.14-0.35x the floor.
     * PostgreSQL's commit_delay has the same guard (commit_siblings).
     */
    static final int MIN_WRITERS_TO_WAIT_FOR = 4;

    /**
     * What waking a writer is taken to cost. Below {@link #MIN_WRITERS_TO_WAIT_FOR} writers a leader
     * waits only for missing writes whose commits would cost more than this. At 4 processes of 2
     * threads a commit that syncs the WAL (synchronous=FULL) averaged 77-207 µs, one that does not
     * mostly 7-110 µs. Waiting for the partner when its commit costs more than 100 µs gave
     * 1.02-1.24x the floor on WAL + FULL against 0.92-0.99x, and left WAL + NORMAL within the spread
     * of its runs (results/group-commit-partner-20261205).
     */
    static final long WAKE_UP_NANOS = 100_000;

    /**
     * How long a waiting thread yields before it parks: about twice a batch of 8 claims on
     * WAL + NORMAL here (a claim parked 152 µs on average, JFR in results/README.md), and at least
     * one on WAL + FULL. 100 µs, 300 µs and 1 ms gave the same on WAL + NORMAL; 100 µs gave less on
     * WAL + FULL (results/group-commit-yield-20261205).
     */
    static final long YIELD_NANOS = 300_000;

    /** The longest a leader waits for the writers of the last batch to queue again. */
    private static final long MAX_GATHER_NANOS = 1_000_000;

    /**
     * The clock and the ways of waiting that both waits use, the leader's for its writers
     * ({@link Gathering#awaitLastBatchWriters}) and a writer's for its batch
     * ({@link #awaitDoneOrLeaderless}): the system's, or a test's whose clock moves only when the
     * waiting thread yields or parks, so that a test holds each wait to its bounds to the
     * nanosecond without measuring any time.
     */
    interface Waits {
        long nanoTime();

        void yieldCpu();

        void parkNanos(Object blocker, long nanos);

        /** Parks until unparked (or spuriously, or on an interrupt). */
        void park(Object blocker);

        Waits SYSTEM = new Waits() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public void yieldCpu() {
                Thread.yield();
            }

            @Override
            public void parkNanos(Object blocker, long nanos) {
                LockSupport.parkNanos(blocker, nanos);
            }

            @Override
            public void park(Object blocker) {
                LockSupport.park(blocker);
            }
        };
    }

    private final ConditionalUpdateProtocol statements;
    private final ConcurrentLinkedQueue<Request<?>> pending = new ConcurrentLinkedQueue<>();
    private final ReentrantLock leadership = new ReentrantLock();
    private final Gathering gathering = new Gathering(MAX_GATHER_NANOS, WAKE_UP_NANOS);

    GroupCommitProtocol(LeaseSql sql) {
        this.statements = new ConditionalUpdateProtocol(sql, LockingStrategy.Engine.SQLITE);
    }

    interface Write<T> {
        T run(Session session) throws SQLException;
    }

    /** A queued write, and its outcome once a batch has run it. */
    static final class Request<T> {
        final Write<T> write;
        final boolean several;
        final Thread waiter = Thread.currentThread();
        T result;
        SQLException failure;
        volatile boolean done;

        Request(Write<T> write, boolean several) {
            this.write = write;
            this.several = several;
        }
    }

    @Override
    public boolean enqueue(Session s, String id) throws SQLException {
        return submit(s, session -> statements.enqueue(session, id));
    }

    @Override
    public OptionalLong claim(Session s, String id, String owner, double now, double until) throws SQLException {
        return submit(s, session -> statements.claim(session, id, owner, now, until));
    }

    @Override
    public List<Lease> claimNext(Session s, String owner, double now, double until, int max) throws SQLException {
        return submit(s, session -> statements.claimNext(session, owner, now, until, max));
    }

    @Override
    public boolean renew(Session s, String id, String owner, long fence, double now, double until) throws SQLException {
        return submit(s, session -> statements.renew(session, id, owner, fence, now, until));
    }

    @Override
    public boolean complete(Session s, String id, String owner, long fence, double now, String result) throws SQLException {
        return submit(s, session -> statements.complete(session, id, owner, fence, now, result));
    }

    /** One request, so the whole list is in one batch; a batch with it is always a transaction. */
    @Override
    public List<Boolean> completeAll(Session s, List<Completion> completions, double now) throws SQLException {
        return submit(s, true, session -> statements.completeEach(session, completions, now));
    }

    @Override
    public boolean release(Session s, String id, String owner, long fence) throws SQLException {
        return submit(s, session -> statements.release(session, id, owner, fence));
    }

    private <T> T submit(Session session, Write<T> write) throws SQLException {
        return submit(session, false, write);
    }

    /**
     * Queues the write and returns its outcome once a batch, led by this thread or another, has run
     * it. Package-private so that a test can queue writes that fail as no statement can.
     *
     * @param several whether the write runs several statements, which then need a transaction even alone
     */
    <T> T submit(Session session, boolean several, Write<T> write) throws SQLException {
        Request<T> request = new Request<>(write, several);
        pending.add(request);
        gathering.queued();
        boolean interrupted = false;
        while (!request.done) {
            if (leadership.tryLock()) {
                List<Request<?>> batch;
                try {
                    batch = request.done ? List.of() : runBatch(session);
                } finally {
                    leadership.unlock();
                }
                batch.forEach(r -> LockSupport.unpark(r.waiter));
                // Requests queued while this batch ran need a new leader: wake the oldest.
                Request<?> next = pending.peek();
                if (next != null) {
                    LockSupport.unpark(next.waiter);
                }
            } else {
                awaitDoneOrLeaderless(request, leadership, Waits.SYSTEM, this);
                // The write is queued and may already be in a leader's transaction, so it cannot
                // be abandoned: wait for its outcome and keep the interrupt for the caller.
                interrupted |= Thread.interrupted();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (request.failure != null) {
            throw request.failure;
        }
        return request.result;
    }

    /**
     * A writer's wait while a leader is at work: yields for at most {@link #YIELD_NANOS}, and then,
     * unless its write got done or the leadership came free meanwhile, parks until the leader that
     * ends its batch, or the one that gives the leadership up, wakes it. Its caller checks again
     * whatever ended the wait (a park also ends spuriously, or on an interrupt).
     *
     * @param blocker what a parked writer is shown waiting on
     */
    static void awaitDoneOrLeaderless(Request<?> request, ReentrantLock leadership, Waits waits, Object blocker) {
        for (long until = waits.nanoTime() + YIELD_NANOS; !request.done && leadership.isLocked()
                && waits.nanoTime() - until < 0; ) {
            waits.yieldCpu();
        }
        if (!request.done && leadership.isLocked()) {
            waits.park(blocker);
        }
    }

    /** Runs the queued writes in one transaction; returns them, each done with a result or a failure. */
    private List<Request<?>> runBatch(Session session) {
        // Loading an Event class sets up Flight Recorder (96 jdk.jfr classes, 80-201 ms here) in a
        // JVM that records nothing: a store's first batch paid that, and a jcstress smoke run,
        // which sizes its strides by how long its first states take, got 114-154 samples.
        GroupCommitBatchEvent event = FlightRecorder.isInitialized() ? new GroupCommitBatchEvent() : null;
        if (event != null) {
            event.begin();
        }
        long started = System.nanoTime();
        gathering.awaitLastBatchWriters();
        List<Request<?>> batch = new ArrayList<>();
        for (Request<?> r; batch.size() < MAX_BATCH && (r = pending.poll()) != null; ) {
            batch.add(r);
            gathering.taken();
        }
        if (batch.isEmpty()) {
            return batch;
        }
        long taken = System.nanoTime();
        long beginNanos = 0;
        long statementsNanos = 0;
        long commitNanos = 0;
        SQLException failure = null;
        try {
            if (batch.size() == 1 && !batch.get(0).several) {
                // Alone, the compare-and-set statement is atomic by itself: skip BEGIN and COMMIT.
                apply(batch.get(0), session);
                statementsNanos = System.nanoTime() - taken;
            } else {
                session.execute("BEGIN IMMEDIATE");
                long begun = System.nanoTime();
                beginNanos = begun - taken;
                for (Request<?> r : batch) {
                    apply(r, session);
                }
                long committing = System.nanoTime();
                statementsNanos = committing - begun;
                session.execute("COMMIT");
                commitNanos = System.nanoTime() - committing;
                gathering.committed(commitNanos);
            }
        } catch (SQLException e) {
            session.rollbackQuietly();
            failure = e;
        } catch (RuntimeException | Error e) {
            // An Error too: the batch's other writers wait for their requests to be done, and
            // nobody else would ever mark them so.
            session.rollbackQuietly();
            failure = new SQLException("a write in the batch failed", e);
        }
        gathering.batchEnded(batch.size());
        if (event != null && event.shouldCommit()) {
            event.writes = batch.size();
            event.gatheringNanos = taken - started;
            event.beginNanos = beginNanos;
            event.statementsNanos = statementsNanos;
            event.commitNanos = commitNanos;
            event.failed = failure != null;
            event.commit();
        }
        for (Request<?> r : batch) {
            if (failure != null) {
                r.failure = failure;
            }
            r.done = true;
        }
        return batch;
    }

    /**
     * The leader's wait for the writers of its last batch: counts the queued writes, keeps how many
     * writers the last batch saw and what a commit costs, and parks the leader until they have
     * queued again. Its own class so that its tests can hold it to the rule, with a leader that
     * does not wait as their negative control, and with its clock and waits ({@link Waits}) their
     * own, so that they can hold each wait to its bounds without timing it.
     */
    static class Gathering {

        private final long maxWaitNanos;
        private final long wakeUpNanos;
        private final Waits waits;
        /** The number of queued writes, which a {@link ConcurrentLinkedQueue} cannot give in constant time. */
        private final AtomicInteger queued = new AtomicInteger();
        /** The leader waiting in {@link #awaitLastBatchWriters}, woken by the write that completes its count. */
        private volatile Thread gatherer;
        /** How many queued writes {@link #gatherer} waits for. */
        private volatile int gatherTarget = Integer.MAX_VALUE;
        /** Writers seen at the end of the last batch: its own and those queued meanwhile. */
        private volatile int writersPresent = 1;
        /** A moving average of how long a batch's {@code COMMIT} takes: what one more write in it saves. */
        private volatile long commitNanos;

        /**
         * @param maxWaitNanos the longest a leader waits, however many commits it would save
         * @param wakeUpNanos below {@link #MIN_WRITERS_TO_WAIT_FOR} writers, the least the commits of
         *     the missing writes must cost for the leader to wait for them
         */
        Gathering(long maxWaitNanos, long wakeUpNanos) {
            this(maxWaitNanos, wakeUpNanos, Waits.SYSTEM);
        }

        Gathering(long maxWaitNanos, long wakeUpNanos, Waits waits) {
            this.maxWaitNanos = maxWaitNanos;
            this.wakeUpNanos = wakeUpNanos;
            this.waits = waits;
        }

        /** A write was queued: wakes the waiting leader if this write completes its count. */
        final void queued() {
            if (queued.incrementAndGet() >= gatherTarget) {
                Thread waiting = gatherer;
                if (waiting != null) {
                    LockSupport.unpark(waiting);
                }
            }
        }

        /** A queued write was taken into a batch. */
        final void taken() {
            queued.decrementAndGet();
        }

        /** A batch's {@code COMMIT} took {@code nanos}. */
        final void committed(long nanos) {
            commitNanos += (nanos - commitNanos) / 8;
        }

        /** A batch of {@code size} writes ended: the writers it saw are its own and those queued meanwhile. */
        final void batchEnded(int size) {
            writersPresent = size + queued.get();
        }

        /**
         * Waits until the writers of the last batch have queued again (the last of them wakes it),
         * or until the commits they would save have had their time: a writer that stopped writing
         * costs the next batch that wait once, and then is not expected. It yields first, for at
         * most {@link #YIELD_NANOS}, then parks. Yielding or parking, not spinning, leaves the CPU
         * to the writers being woken; spinning here doubled the tail of an open loop on WAL + FULL.
         */
        void awaitLastBatchWriters() {
            int expected = Math.min(MAX_BATCH, writersPresent);
            long saved = commitNanos * (expected - queued.get());
            if (saved <= 0 || expected < MIN_WRITERS_TO_WAIT_FOR && saved <= wakeUpNanos) {
                return;
            }
            long deadline = waits.nanoTime() + Math.min(maxWaitNanos, saved);
            // Target before gatherer, and queued read after both: a writer that counts after this
            // read sees the gatherer, and one that counted before is seen here.
            gatherTarget = expected;
            gatherer = Thread.currentThread();
            try {
                for (long until = Math.min(deadline, waits.nanoTime() + YIELD_NANOS); queued.get() < expected
                        && waits.nanoTime() - until < 0 && !Thread.currentThread().isInterrupted(); ) {
                    waits.yieldCpu();
                }
                // An interrupted thread would not park: it stops waiting, and the interrupt stays set.
                for (long left; queued.get() < expected && (left = deadline - waits.nanoTime()) > 0
                        && !Thread.currentThread().isInterrupted(); ) {
                    waits.parkNanos(this, left);
                }
            } finally {
                gatherer = null;
                gatherTarget = Integer.MAX_VALUE;
            }
        }
    }

    private static <T> void apply(Request<T> request, Session session) throws SQLException {
        request.result = request.write.run(session);
    }
}
