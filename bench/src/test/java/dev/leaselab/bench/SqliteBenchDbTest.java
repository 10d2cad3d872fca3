package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.SqliteLeaseStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * A SQLite benchmark database lives in a directory of its own, which must go whether its setup
 * succeeds or fails: before c794e87, every fork whose setup failed (FailedForkTest's two, in each
 * CI run) left its directory and {@code bench.db} under {@code java.io.tmpdir}. The open of that
 * time is the negative control.
 */
class SqliteBenchDbTest {

    @TempDir
    Path temp;

    /** Opens a benchmark database in the directory it is given. */
    @FunctionalInterface
    private interface Opener {
        BenchDb open(Path dir);
    }

    /** {@link SqliteBenchDb#open} as it was before c794e87: a failed setup leaves the directory. Test code only. */
    private static BenchDb leakyOpen(Path dir) {
        LeaseStore store = SqliteLeaseStore.open(dir.resolve("bench.db"), LockingStrategy.IMMEDIATE, Storage.WAL_NORMAL.options());
        BenchDb.decorate(store);
        throw new AssertionError("FailingSetup did not fail");
    }

    @Test
    void aDatabaseWhoseSetupFailsLeavesNoDirectoryBehind() throws IOException {
        assertFailedSetupLeavesNoDirectory(dir -> SqliteBenchDb.open(Storage.WAL_NORMAL, LockingStrategy.IMMEDIATE, true, dir));
    }

    @Test
    void anOpenThatLeavesTheDirectoryOfAFailedSetupIsCaught() {
        assertThrows(AssertionFailedError.class, () -> assertFailedSetupLeavesNoDirectory(SqliteBenchDbTest::leakyOpen));
    }

    private void assertFailedSetupLeavesNoDirectory(Opener opener) throws IOException {
        Path dir = Files.createDirectory(temp.resolve("db"));
        System.setProperty(BenchDb.DECORATOR_PROPERTY, FailingSetup.class.getName());
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> opener.open(dir));
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
