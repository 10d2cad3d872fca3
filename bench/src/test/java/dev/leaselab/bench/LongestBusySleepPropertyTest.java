package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.StoreOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code -Dleaselab.bench.longestBusySleepMicros}: read into every store's options of the JVM,
 * refused with its name when it is not a number, and refused by the runner, whose runs do not
 * record it (the gate compares runs by their settings, so a run under another longest sleep would
 * pass for one under the default).
 */
class LongestBusySleepPropertyTest {

    @TempDir
    Path results;

    @AfterEach
    void clear() {
        System.clearProperty(Storage.LONGEST_BUSY_SLEEP_PROPERTY);
    }

    @Test
    void thePropertySetsTheStoresLongestSleepAndNamesItselfWhenItIsNotANumber() {
        assertEquals(StoreOptions.defaults().longestBusySleep(), Storage.WAL_FULL.options().longestBusySleep());
        System.setProperty(Storage.LONGEST_BUSY_SLEEP_PROPERTY, "750");
        assertEquals(Duration.ofNanos(750_000), Storage.WAL_FULL.options().longestBusySleep());
        System.setProperty(Storage.LONGEST_BUSY_SLEEP_PROPERTY, "1ms");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Storage::longestBusySleep);
        assertEquals("-D" + Storage.LONGEST_BUSY_SLEEP_PROPERTY + " must be a number of microseconds: '1ms'", e.getMessage());
    }

    /**
     * Every child JVM (a multi-process worker, a zombie-comparison child) gets this JVM's busy
     * settings, the longest sleep among them: the zombie children once ran under the default
     * whatever the parent had.
     */
    @Test
    void aChildJvmGetsThisJvmsLongestSleepWithTheOtherBusySettings() {
        System.setProperty(Storage.LONGEST_BUSY_SLEEP_PROPERTY, "750");
        assertEquals(List.of("-D" + Storage.BUSY_WAIT_PROPERTY + "=" + Storage.busyWait().name(),
                "-D" + Storage.BUSY_TIMEOUT_PROPERTY + "=" + Storage.busyTimeout().toMillis(),
                "-D" + Storage.LONGEST_BUSY_SLEEP_PROPERTY + "=750"), Storage.childJvmProperties());
        System.clearProperty(Storage.LONGEST_BUSY_SLEEP_PROPERTY);
        assertTrue(Storage.childJvmProperties().contains("-D" + Storage.LONGEST_BUSY_SLEEP_PROPERTY + "="
                + StoreOptions.defaults().longestBusySleep().toNanos() / 1000), Storage.childJvmProperties().toString());
    }

    @Test
    void theRunnerRefusesItBeforeAnythingRuns() {
        System.setProperty(Storage.LONGEST_BUSY_SLEEP_PROPERTY, "1000");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = BenchMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                "run", "--profile", "smoke", "--storages", "WAL_NORMAL", "--benchmarks", "FloorBenchmark.update",
                "--output", results.toString(), "--run-id", "refused");
        String message = err.toString(StandardCharsets.UTF_8);
        assertEquals(BenchMain.ERROR, code, out.toString(StandardCharsets.UTF_8) + message);
        assertTrue(message.contains(Storage.LONGEST_BUSY_SLEEP_PROPERTY + " is for MultiProcessMain"), message);
        assertFalse(Files.exists(results.resolve("refused")), "no run folder was started");
    }
}
