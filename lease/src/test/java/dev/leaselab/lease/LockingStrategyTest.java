package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link LockingStrategy#of}: the tests, benchmarks and stress runs of an engine iterate over it. */
class LockingStrategyTest {

    @Test
    void theStrategiesOfAnEngineComeInDeclarationOrder() {
        assertEquals(List.of(LockingStrategy.IMMEDIATE, LockingStrategy.EXCLUSIVE, LockingStrategy.CONDITIONAL_UPDATE,
                LockingStrategy.SERIALIZED, LockingStrategy.DEFERRED_RETRY, LockingStrategy.GROUP_COMMIT),
                LockingStrategy.of(LockingStrategy.Engine.SQLITE));
        assertEquals(List.of(LockingStrategy.PG_ROW_LOCK, LockingStrategy.PG_CONDITIONAL_UPDATE, LockingStrategy.PG_ADVISORY_LOCK),
                LockingStrategy.of(LockingStrategy.Engine.POSTGRESQL));
    }

    /** A null engine would otherwise match no strategy, and a loop over none would pass having run nothing. */
    @Test
    void aNullEngineIsRefusedByName() {
        assertEquals("engine", assertThrows(NullPointerException.class, () -> LockingStrategy.of(null)).getMessage());
    }
}
