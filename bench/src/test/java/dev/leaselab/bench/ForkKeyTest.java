package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;

/** How a fork is named in the files of a results folder, and what is not one of this module's forks. */
class ForkKeyTest {

    private static final String JMH_ENTRY = "{\"benchmark\":\"dev.leaselab.bench.ClaimBenchmark.hotJob\",\"mode\":\"thrpt\","
            + "\"threads\":8,\"forks\":1,\"params\":{\"strategy\":\"GROUP_COMMIT\",\"storage\":\"WAL_FULL\"}}";
    private static final String TALLY_LINE = "{\"benchmark\":\"dev.leaselab.bench.ClaimBenchmark.hotJob\",\"mode\":\"thrpt\","
            + "\"params\":{\"storage\":\"WAL_FULL\",\"strategy\":\"GROUP_COMMIT\"},\"threads\":8,\"thread\":3,\"pid\":7,"
            + "\"iterationType\":\"measurement\",\"iteration\":1,\"won\":5}";

    @Test
    void aJmhResultAndATallyLineOfOneForkHaveOneKey() {
        ForkKey expected = new ForkKey(BenchmarkId.CLAIM_HOT, Mode.Throughput, 8, Storage.WAL_FULL, LockingStrategy.GROUP_COMMIT);
        assertEquals(expected, ForkKey.of(Json.readLine(JMH_ENTRY)));
        assertEquals(expected, ForkKey.of(Json.readLine(TALLY_LINE)));
    }

    @Test
    void theGateAndTheRunnerNameForksAsTheirFilesAlwaysDid() {
        ForkKey claim = new ForkKey(BenchmarkId.CLAIM_HOT, Mode.SampleTime, 8, Storage.WAL_NORMAL, LockingStrategy.SERIALIZED);
        assertEquals("ClaimBenchmark.hotJob sample storage=WAL_NORMAL strategy=SERIALIZED threads=8", claim.label());
        assertEquals("ClaimBenchmark.hotJob sample threads=8 storage=WAL_NORMAL strategy=SERIALIZED", claim.describe());
        ForkKey floor = new ForkKey(BenchmarkId.FLOOR, Mode.Throughput, 1, Storage.POSTGRESQL, null);
        assertEquals("FloorBenchmark.update thrpt storage=POSTGRESQL threads=1", floor.label());
        assertEquals("FloorBenchmark.update thrpt threads=1 storage=POSTGRESQL", floor.describe());
    }

    @Test
    void theFloorHasNoStrategyAndEveryOtherBenchmarkHasOne() {
        assertThrows(IllegalArgumentException.class,
                () -> new ForkKey(BenchmarkId.FLOOR, Mode.Throughput, 1, Storage.WAL_FULL, LockingStrategy.IMMEDIATE));
        assertThrows(IllegalArgumentException.class,
                () -> new ForkKey(BenchmarkId.RENEW, Mode.Throughput, 1, Storage.WAL_FULL, null));
    }

    @Test
    void aValueThatIsNotOneOfThisModulesIsRefusedNamingTheFile() {
        String unknown = JMH_ENTRY.replace("GROUP_COMMIT", "NO_SUCH_STRATEGY");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BenchResults.key(Json.readLine(unknown), Path.of("x", "jmh-result.json")));
        assertTrue(e.getMessage().contains("jmh-result.json") && e.getMessage().contains("NO_SUCH_STRATEGY"), e.getMessage());
        String otherParam = JMH_ENTRY.replace("\"strategy\"", "\"size\"");
        assertThrows(IllegalArgumentException.class, () -> ForkKey.of(Json.readLine(otherParam)));
        String otherBenchmark = JMH_ENTRY.replace("ClaimBenchmark.hotJob", "ClaimBenchmark.coldJob");
        assertThrows(IllegalArgumentException.class, () -> ForkKey.of(Json.readLine(otherBenchmark)));
    }
}
