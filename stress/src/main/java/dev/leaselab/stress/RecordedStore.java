package dev.leaselab.stress;

import dev.leaselab.lease.Completion;
import dev.leaselab.lease.JobState;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LeaseStoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Runs lease operations on a store and records each one, with its start and end time, in a
 * {@link HistorySink}. When the database fails ({@link LeaseStoreException}, e.g. busy past the
 * timeout) the operation is recorded and returned as {@link Op.Outcome#UNKNOWN}: the gate counts
 * such answers but goes on. Any other exception is a bug of the caller and is rethrown.
 *
 * <p>Times come from {@link System#nanoTime()} unless another clock is given: histories of
 * several JVMs that are merged need a clock they all read alike ({@link HostClock}).
 */
public final class RecordedStore {

    private final LeaseStore store;
    private final String process;
    private final HistorySink sink;
    private final LongSupplier clock;
    private final AtomicLong seq = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile LeaseStoreException lastFailure;

    public RecordedStore(LeaseStore store, String process, HistorySink sink) {
        this(store, process, sink, System::nanoTime);
    }

    /** @param clock the time stamps of the operations, in nanoseconds */
    public RecordedStore(LeaseStore store, String process, HistorySink sink, LongSupplier clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.process = Objects.requireNonNull(process, "process");
        this.sink = Objects.requireNonNull(sink, "sink");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The store underneath, for operations that are not recorded. */
    public LeaseStore store() {
        return store;
    }

    public Op claim(String job, String owner, double now, double ttl) {
        Op op = invoke(Op.Kind.CLAIM, job, owner, 0, now, ttl, null);
        try {
            OptionalLong fence = store.claim(job, owner, now, ttl);
            return answer(op, fence.isPresent(), fence.orElse(0));
        } catch (LeaseStoreException e) {
            return failed(op, e);
        } catch (RuntimeException e) {
            throw unknown(op, e);
        }
    }

    /**
     * Runs a claimNext and records each job it handed out as a claim of that job, over the span
     * of the call: to the history, a lease from the queue is a claim like any other.
     *
     * <p>Before the call a claim of {@link Op#ANY_JOB} is written as invoked: a process killed
     * inside the call leaves it unanswered, so the history says that some jobs may have been
     * claimed. A call that returns answers it: with the first lease (which takes its number),
     * or as refused when the queue had nothing, which keeps the span of every call.
     *
     * @return the claims, one per lease, in queue order (none when the queue had nothing);
     *     null when the call failed with a database error: which jobs it would have taken is not
     *     known, so it stays one claim of {@link Op#ANY_JOB} of unknown outcome
     */
    public List<Op> claimNext(String owner, double now, double ttl, int max) {
        Op call = invoke(Op.Kind.CLAIM, Op.ANY_JOB, owner, 0, now, ttl, null);
        List<Lease> leases;
        try {
            leases = store.claimNext(owner, now, ttl, max);
        } catch (LeaseStoreException e) {
            failed(call, e);
            return null;
        } catch (RuntimeException e) {
            throw unknown(call, e);
        }
        long end = clock.getAsLong();
        if (leases.isEmpty()) {
            sink.answered(call.answered(Op.Outcome.REJECTED, 0, end));
            return List.of();
        }
        List<Op> claims = new ArrayList<>(leases.size());
        for (int i = 0; i < leases.size(); i++) {
            Lease lease = leases.get(i);
            claims.add(new Op(process, i == 0 ? call.seq() : seq.incrementAndGet(), Op.Kind.CLAIM, lease.jobId(), owner,
                    lease.fence(), now, ttl, null, Op.Outcome.OK, call.start(), end));
        }
        // The first lease answers the placeholder, so it is written last: a process killed
        // between these lines leaves the placeholder standing for the leases not yet written.
        for (int i = claims.size() - 1; i >= 0; i--) {
            sink.answered(claims.get(i));
        }
        return claims;
    }

    /**
     * Runs the store's claimMany and records it as one claim per owner, in the order of
     * {@code owners}, each over the span of the whole call (which is all the caller sees of it):
     * a group of claims of one job by one process that share their start and end is how the
     * history tells a claimMany ({@link HistoryChecker}'s rule 11). Every claim is written as
     * invoked before the call, so a process killed inside it leaves them all of unknown outcome.
     *
     * @return the claims in the order of {@code owners}; of unknown outcome when the call failed
     *     with a database error
     * @throws IllegalStateException when the store answered with another number of results than
     *     owners: the contract's one answer per owner is broken, and the worker stops on it
     */
    public List<Op> claimMany(String job, List<String> owners, double now, double ttl) {
        List<Op> calls = new ArrayList<>(owners.size());
        long start = clock.getAsLong();
        for (String owner : owners) {
            Op op = new Op(process, seq.incrementAndGet(), Op.Kind.CLAIM, job, owner, 0, now, ttl, null,
                    Op.Outcome.UNKNOWN, start, Long.MAX_VALUE);
            sink.invoked(op);
            calls.add(op);
        }
        List<OptionalLong> results;
        try {
            results = store.claimMany(job, owners, now, ttl);
        } catch (LeaseStoreException e) {
            failures.incrementAndGet();
            lastFailure = e;
            calls.forEach(sink::answered);
            return calls;
        } catch (RuntimeException e) {
            calls.forEach(sink::answered);
            throw e;
        }
        long end = clock.getAsLong();
        if (results == null || results.size() != owners.size()) {
            calls.forEach(sink::answered);
            throw new IllegalStateException("claimMany of " + job + " for " + owners.size() + " owners answered "
                    + results + ": one result per owner was due");
        }
        List<Op> answered = new ArrayList<>(owners.size());
        for (int i = 0; i < calls.size(); i++) {
            OptionalLong fence = results.get(i);
            Op op = calls.get(i).answered(fence.isPresent() ? Op.Outcome.OK : Op.Outcome.REJECTED, fence.orElse(0), end);
            sink.answered(op);
            answered.add(op);
        }
        return answered;
    }

    /** Enqueues a job and records it: accepted when it inserted the job, rejected when the job existed. */
    public Op enqueue(String job) {
        Op op = invoke(Op.Kind.ENQUEUE, job, null, 0, 0, 0, null);
        try {
            return answer(op, store.enqueue(job), 0);
        } catch (LeaseStoreException e) {
            return failed(op, e);
        } catch (RuntimeException e) {
            throw unknown(op, e);
        }
    }

    /**
     * Reads a job's state and records the read with its answer: accepted with the stored fence
     * when a row came back, rejected when the store said there was none.
     *
     * @return the state; null when the read failed with a database error
     */
    public Optional<JobState> state(String job) {
        Op op = invoke(Op.Kind.STATE, job, null, 0, 0, 0, null);
        Optional<JobState> state;
        try {
            state = store.state(job);
        } catch (LeaseStoreException e) {
            failed(op, e);
            return null;
        } catch (RuntimeException e) {
            throw unknown(op, e);
        }
        answer(op, state.isPresent(), state.map(JobState::fence).orElse(0L));
        return state;
    }

    public Op renew(String job, String owner, long fence, double now, double ttl) {
        Op op = invoke(Op.Kind.RENEW, job, owner, fence, now, ttl, null);
        try {
            return answer(op, store.renew(job, owner, fence, now, ttl), 0);
        } catch (LeaseStoreException e) {
            return failed(op, e);
        } catch (RuntimeException e) {
            throw unknown(op, e);
        }
    }

    public Op complete(String job, String owner, long fence, double now, String result) {
        Op op = invoke(Op.Kind.COMPLETE, job, owner, fence, now, 0, result);
        try {
            return answer(op, store.complete(job, owner, fence, now, result), 0);
        } catch (LeaseStoreException e) {
            return failed(op, e);
        } catch (RuntimeException e) {
            throw unknown(op, e);
        }
    }

    /**
     * Runs a completeAll and records each completion as a complete of its job over the span of the
     * whole call, every one written as invoked before the call: a process killed inside it leaves
     * them all of unknown outcome, which is what the caller knows of a batch that may or may not
     * have committed.
     *
     * @return the completes in the order given; of unknown outcome when the call failed with a
     *     database error
     * @throws IllegalStateException when the store answered with another number of results than
     *     completions: the contract's one answer per completion is broken
     */
    public List<Op> completeAll(List<Completion> completions, double now) {
        List<Op> calls = new ArrayList<>(completions.size());
        long start = clock.getAsLong();
        for (Completion c : completions) {
            Op op = new Op(process, seq.incrementAndGet(), Op.Kind.COMPLETE, c.jobId(), c.owner(), c.fence(), now, 0,
                    c.result(), Op.Outcome.UNKNOWN, start, Long.MAX_VALUE);
            sink.invoked(op);
            calls.add(op);
        }
        List<Boolean> results;
        try {
            results = store.completeAll(completions, now);
        } catch (LeaseStoreException e) {
            failures.incrementAndGet();
            lastFailure = e;
            calls.forEach(sink::answered);
            return calls;
        } catch (RuntimeException e) {
            calls.forEach(sink::answered);
            throw e;
        }
        long end = clock.getAsLong();
        if (results == null || results.size() != completions.size()) {
            calls.forEach(sink::answered);
            throw new IllegalStateException("completeAll of " + completions.size() + " completions answered " + results
                    + ": one answer per completion was due");
        }
        List<Op> answered = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            Op op = calls.get(i).answered(results.get(i) ? Op.Outcome.OK : Op.Outcome.REJECTED, 0, end);
            sink.answered(op);
            answered.add(op);
        }
        return answered;
    }

    public Op release(String job, String owner, long fence) {
        Op op = invoke(Op.Kind.RELEASE, job, owner, fence, 0, 0, null);
        try {
            return answer(op, store.release(job, owner, fence), 0);
        } catch (LeaseStoreException e) {
            return failed(op, e);
        } catch (RuntimeException e) {
            throw unknown(op, e);
        }
    }

    private Op invoke(Op.Kind kind, String job, String owner, long fence, double now, double ttl, String result) {
        Op op = new Op(process, seq.incrementAndGet(), kind, job, owner, fence, now, ttl, result,
                Op.Outcome.UNKNOWN, clock.getAsLong(), Long.MAX_VALUE);
        sink.invoked(op);
        return op;
    }

    private Op answer(Op op, boolean accepted, long fence) {
        Op answered = op.answered(accepted ? Op.Outcome.OK : Op.Outcome.REJECTED, fence, clock.getAsLong());
        sink.answered(answered);
        return answered;
    }

    /** How many operations failed with a database error. */
    public long failures() {
        return failures.get();
    }

    /** The last database error, or null. */
    public LeaseStoreException lastFailure() {
        return lastFailure;
    }

    private RuntimeException unknown(Op op, RuntimeException e) {
        sink.answered(op);
        return e;
    }

    private Op failed(Op op, LeaseStoreException e) {
        failures.incrementAndGet();
        lastFailure = e;
        sink.answered(op);
        return op;
    }
}
