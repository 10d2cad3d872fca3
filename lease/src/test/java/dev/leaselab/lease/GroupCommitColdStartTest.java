package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link LockingStrategy#GROUP_COMMIT} store in a JVM that records nothing leaves Flight Recorder
 * alone: its batch event's class is never loaded, for loading it set Flight Recorder up and cost
 * the store's first batch 80-201 ms (a jcstress smoke run, which sizes its strides by how long its
 * first states take, then got 114-154 samples instead of thousands). With a recording started at
 * launch, the batches are recorded. Each case runs in a JVM of its own: a recording made by
 * another test in this one sets Flight Recorder up for good.
 */
class GroupCommitColdStartTest {

    private static final String EVENT_CLASS = "dev.leaselab.lease.GroupCommitBatchEvent";

    @TempDir
    Path dir;

    @Test
    void aJvmThatRecordsNothingNeverLoadsTheBatchEvent() throws Exception {
        String out = writeInAJvmOfItsOwn(List.of("-Xlog:class+load=info:stdout"));
        assertTrue(out.contains("wrote 3"), out);
        assertTrue(out.contains("dev.leaselab.lease.GroupCommitProtocol "), "the class loading log is not there: " + out);
        assertFalse(out.contains(EVENT_CLASS), "the batch event was loaded");
        assertFalse(out.contains("jdk.jfr.Event "), "Flight Recorder's Event was loaded");
    }

    @Test
    void aRecordingStartedAtLaunchRecordsTheBatches() throws Exception {
        Path recording = dir.resolve("batches.jfr");
        String out = writeInAJvmOfItsOwn(List.of("-XX:StartFlightRecording=filename=" + recording));
        assertTrue(out.contains("wrote 3"), out);
        int writes = 0;
        for (var event : RecordingFile.readAllEvents(recording)) {
            if (event.getEventType().getName().equals(GroupCommitBatchEvent.NAME)) {
                writes += event.getInt("writes");
            }
        }
        assertEquals(3, writes, "writes in the recorded batches");
    }

    /** Three writes to a GROUP_COMMIT store in a new JVM with {@code options}; returns what it printed. */
    private String writeInAJvmOfItsOwn(List<String> options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ThreeWrites.class.getName(),
                dir.resolve("jobs.db").toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the JVM did not end: " + out);
        assertEquals(0, process.exitValue(), out);
        return out;
    }

    /** The child JVM: three writes, one at a time, to a GROUP_COMMIT store on the file it is given. */
    public static final class ThreeWrites {
        public static void main(String[] args) {
            try (SqliteLeaseStore store = SqliteLeaseStore.open(Path.of(args[0]), LockingStrategy.GROUP_COMMIT)) {
                store.enqueue("a");
                store.claim("a", "w", 1, 10);
                store.complete("a", "w", 1, 2, "done");
                System.out.println("wrote 3");
            }
        }
    }
}
