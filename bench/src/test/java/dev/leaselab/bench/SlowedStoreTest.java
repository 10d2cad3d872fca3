package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.SqliteLeaseStore;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate proof's slowed store does what its name promises: one extra, won claim for every
 * {@link SlowedStore#EVERY} operations (so four claims' work for three), and it slows only the
 * strategy it is told to.
 */
class SlowedStoreTest {

    @TempDir
    Path dir;

    @Test
    void everyThirdOperationCostsOneMoreWonClaim() {
        try (LeaseStore store = new SlowedStore().apply(SqliteLeaseStore.open(dir.resolve("s.db"), LockingStrategy.IMMEDIATE))) {
            store.enqueue("hot");
            for (int i = 0; i < 29; i++) {
                assertEquals(OptionalLong.of(i + 1), store.claim("hot", "w", i * 10.0, 10));
            }
            // 30 operations (one enqueue, 29 claims): ten extra claims, each of them won.
            assertEquals(10, store.state(SlowedStore.SHADOW_JOB).orElseThrow().fence());
            assertEquals(29, store.state("hot").orElseThrow().fence());
        }
    }

    @Test
    void onlyTheNamedStrategyIsSlowed() {
        String previous = System.getProperty(BenchDb.DECORATOR_ONLY_PROPERTY);
        System.setProperty(BenchDb.DECORATOR_ONLY_PROPERTY, LockingStrategy.GROUP_COMMIT.name());
        try (SqliteLeaseStore plain = SqliteLeaseStore.open(dir.resolve("p.db"), LockingStrategy.IMMEDIATE)) {
            assertSame(plain, new SlowedStore().apply(plain));
        } finally {
            if (previous == null) {
                System.clearProperty(BenchDb.DECORATOR_ONLY_PROPERTY);
            } else {
                System.setProperty(BenchDb.DECORATOR_ONLY_PROPERTY, previous);
            }
        }
    }
}
