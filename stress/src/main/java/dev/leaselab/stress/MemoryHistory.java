package dev.leaselab.stress;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/** The history of the threads of one process, kept in memory: every answered operation. */
public final class MemoryHistory implements HistorySink {

    private final ConcurrentLinkedQueue<Op> ops = new ConcurrentLinkedQueue<>();

    @Override
    public void invoked(Op op) {
        // A thread that is not killed always answers, so only the answers are kept.
    }

    @Override
    public void answered(Op op) {
        ops.add(op);
    }

    /** A copy of the operations recorded so far. */
    public List<Op> ops() {
        return new ArrayList<>(ops);
    }
}
