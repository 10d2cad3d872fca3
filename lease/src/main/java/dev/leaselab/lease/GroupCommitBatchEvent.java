package dev.leaselab.lease;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * One {@link LockingStrategy#GROUP_COMMIT} batch, as a Java Flight Recorder event: where a batch's
 * time goes (the leader's wait for its writers, its {@code BEGIN}, the statements, the
 * {@code COMMIT}) and how many writes shared it. The event's own duration is the whole batch; the
 * time between one batch's end and the next one's start is the hand-off that no batch records. Off
 * unless a recording is running ({@code -XX:StartFlightRecording}); {@code BenchMain batches
 * <file.jfr>} sums a recording up, and {@code MultiProcessMain --record-batches} records each worker
 * process. Its class is not even loaded until Flight Recorder is set up (a recording started, at
 * launch or later): loading an event class sets Flight Recorder up, which cost a store's first
 * batch 80-201 ms.
 */
@Name(GroupCommitBatchEvent.NAME)
@Label("Group commit batch")
@Category("leaselab")
@Description("One GROUP_COMMIT batch: its writes, the leader's wait for them, its BEGIN, their statements and the commit")
@StackTrace(false)
final class GroupCommitBatchEvent extends Event {

    /** The event type's name in a recording. */
    static final String NAME = "dev.leaselab.GroupCommitBatch";

    @Label("Writes")
    @Description("Writes in the batch, each one caller's operation")
    int writes;

    @Label("Gathering")
    @Description("The leader's wait for the writers of its last batch to queue again, before it took the batch")
    @Timespan
    long gatheringNanos;

    @Label("Begin")
    @Description("BEGIN IMMEDIATE, with its wait for another connection's write lock (another process's, say); 0 for a lone write run in autocommit, whose statement waits for the lock itself, or if BEGIN failed")
    @Timespan
    long beginNanos;

    @Label("Statements")
    @Description("Every write's statements, from BEGIN to COMMIT (a lone write: its statement, lock wait included); 0 if a write failed")
    @Timespan
    long statementsNanos;

    @Label("Commit")
    @Description("The COMMIT, with the WAL's sync under synchronous=FULL; 0 for a lone write run in autocommit, or if the batch failed")
    @Timespan
    long commitNanos;

    @Label("Failed")
    @Description("Whether the batch was rolled back and every write in it failed")
    boolean failed;
}
