package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.SqliteLeaseStore;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Smoke runs of the real work on a SQLite file. Nothing here asserts how fast SQLite is: only that
 * the accounting holds (every request sent ends in one outcome), that work was done, and that the
 * percentiles are ordered.
 */
class OpenLoopSqliteTest {

    private static void assertConsistent(OpenLoop.Result r) {
        assertEquals(r.sent(), r.won() + r.lost() + r.refused() + r.failed(), "every request in exactly one outcome: " + r.line());
        assertTrue(r.won() > 0, r.line());
        assertTrue(r.p50Ms() <= r.p99Ms() && r.p99Ms() <= r.p999Ms() && r.p999Ms() <= r.maxMs(), "ordered: " + r.line());
        assertEquals(r.sent(), OpenLoop.decode(r.histogram()).getTotalCount());
    }

    @Test
    void theHotJobClaimRunsOpenLoopOnSqliteWithConsistentCounts(@TempDir Path dir) {
        try (LeaseStore store = SqliteLeaseStore.open(dir.resolve("open.db"), LockingStrategy.IMMEDIATE, Storage.WAL_NORMAL.options())) {
            store.enqueue(OpenLoopWork.HOT);
            OpenLoop.Result r = new OpenLoop(500, 2, Duration.ofMillis(300), Duration.ofSeconds(1)).run(OpenLoopWork.hotClaim(store));

            assertEquals(500, r.sent());
            assertConsistent(r);
            // Every won claim, warmup ones included, raised the fence by one.
            assertTrue(store.state(OpenLoopWork.HOT).orElseThrow().fence() >= r.won(), r.line());
        }
    }

    @Test
    void theFloorRunsOpenLoopOnOneConnectionPerWorker(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("floor.db");
        try (LeaseStore store = SqliteLeaseStore.open(file, LockingStrategy.IMMEDIATE, Storage.WAL_NORMAL.options())) {
            store.enqueue(OpenLoopWork.HOT);
            OpenLoop.Result r;
            try (OpenLoopWork.Floor floor = OpenLoopWork.Floor.open(Storage.WAL_NORMAL, file, 2)) {
                r = new OpenLoop(500, 2, Duration.ofMillis(100), Duration.ofMillis(500)).run(floor.op());
            }
            assertEquals(250, r.sent());
            assertConsistent(r);
            assertTrue(store.state(OpenLoopWork.HOT).orElseThrow().fence() >= r.won(), "each won update raised the fence: " + r.line());
        }
    }
}
