package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.bench.PairedClaimBenchmark.Slice;
import dev.leaselab.lease.LockingStrategy;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;

/** The report's "Paired" section on rows made by hand: its columns and what it says about busy waits. */
class ReportPairedTest {

    @Test
    void aRowGivesBothScalingsAndTheBusyWaitIsNamedOnlyWhenSqliteWasMeasured() {
        // claim 6000/s at 8 threads and 3000/s alone (scales 2.0); floor 10000/s and 4000/s (2.5)
        Map<ForkKey, PairedRatios.Row> sqlite = Map.of(key(Storage.WAL_NORMAL, LockingStrategy.IMMEDIATE), row(6000, 10_000, 3000, 4000));
        String md = Report.paired(sqlite, "JITTERED");
        assertTrue(md.contains("with the `JITTERED` busy wait in these forks"), md);
        String line = md.lines().filter(l -> l.startsWith("| WAL_NORMAL | IMMEDIATE | 8 |")).findFirst().orElseThrow();
        String[] cells = line.split("\\|");
        assertEquals("0.75 [0.75, 0.75]", cells[6].strip(), "x floor, 1: " + line);
        assertEquals("0.60 [0.60, 0.60]", cells[9].strip(), "x floor, N: " + line);
        assertEquals("2.00 [2.00, 2.00]", cells[10].strip(), "N / 1: " + line);
        assertEquals("0.80 [0.80, 0.80]", cells[11].strip(), "N / 1 over the floor's: " + line);

        Map<ForkKey, PairedRatios.Row> postgres = new LinkedHashMap<>();
        postgres.put(key(Storage.POSTGRESQL, LockingStrategy.PG_ROW_LOCK), row(600, 1000, 300, 400));
        String pg = Report.paired(postgres, "JITTERED");
        assertTrue(pg.contains("| POSTGRESQL | PG_ROW_LOCK | 8 |"), pg);
        assertFalse(pg.contains("busy wait in these forks"), "no SQLite connection waited in a PostgreSQL-only run: " + pg);
    }

    private static ForkKey key(Storage storage, LockingStrategy strategy) {
        return new ForkKey(BenchmarkId.PAIRED, Mode.Throughput, 8, storage, strategy);
    }

    /** Three identical groups of one fork, at these rates per second. */
    private static PairedRatios.Row row(double claimAll, double floorAll, double claimOne, double floorOne) {
        List<PairedRatios.Group> groups = new java.util.ArrayList<>();
        for (int g = 0; g < 3; g++) {
            Map<Slice, PairedRatios.SliceResult> slices = new EnumMap<>(Slice.class);
            slices.put(Slice.CLAIM_ALL, result(claimAll));
            slices.put(Slice.FLOOR_ALL, result(floorAll));
            slices.put(Slice.CLAIM_ONE, result(claimOne));
            slices.put(Slice.FLOOR_ONE, result(floorOne));
            groups.add(new PairedRatios.Group(1, g, slices));
        }
        return new PairedRatios.Row(groups);
    }

    private static PairedRatios.SliceResult result(double perSecond) {
        return new PairedRatios.SliceResult(Math.round(perSecond * 0.1), 0, 0, 0.1, 1);
    }
}
