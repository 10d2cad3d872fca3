package dev.leaselab.stress;

/** Where a {@link RecordedStore} writes its operations: once when invoked, once when answered. */
public interface HistorySink {

    /** The operation is about to reach the store; its outcome is still {@link Op.Outcome#UNKNOWN}. */
    void invoked(Op op);

    /** The store answered (or failed, with outcome {@link Op.Outcome#UNKNOWN}). */
    void answered(Op op);
}
