package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SQLite benchmark database lives in a directory of its own, which must go whether its setup
 * succeeds or fails: before this test, every fork whose setup failed (FailedForkTest's two, in each
 * CI run) left its directory and {@code bench.db} under {@code java.io.tmpdir}.
 */
class SqliteBenchDbTest {

    @TempDir
    Path temp;

    @Test
    void aDatabaseWhoseSetupFailsLeavesNoDirectoryBehind() throws IOException {
        Path dir = Files.createDirectory(temp.resolve("db"));
        System.setProperty(BenchDb.DECORATOR_PROPERTY, FailingSetup.class.getName());
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> SqliteBenchDb.open(Storage.WAL_NORMAL, LockingStrategy.IMMEDIATE, true, dir));
            assertEquals(FailingSetup.MESSAGE, e.getMessage(), "the setup's own failure reaches the caller");
        } finally {
            System.clearProperty(BenchDb.DECORATOR_PROPERTY);
        }
        assertFalse(Files.exists(dir), "the failed setup left " + dir + " behind");
    }

    @Test
    void aDatabaseIsDeletedWithItsDirectoryOnClose() throws IOException {
        Path dir = Files.createDirectory(temp.resolve("db"));
        try (BenchDb db = SqliteBenchDb.open(Storage.WAL_NORMAL, LockingStrategy.IMMEDIATE, true, dir)) {
            assertTrue(Files.exists(dir.resolve("bench.db")), "the store created its file in " + dir);
        }
        assertFalse(Files.exists(dir), "closing the database left " + dir + " behind");
    }
}
