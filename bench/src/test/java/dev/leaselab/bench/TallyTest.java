package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fairness, starvation and wall-clock throughput as folded from per-thread tally lines. */
class TallyTest {

    private static String line(String iterationType, int iteration, int thread, long won, long failed, long start, long end) {
        return "{\"benchmark\":\"dev.leaselab.bench.ClaimBenchmark.hotJob\",\"mode\":\"thrpt\","
                + "\"params\":{\"strategy\":\"IMMEDIATE\",\"storage\":\"WAL_NORMAL\"},\"threads\":2,\"thread\":" + thread
                + ",\"pid\":7,\"iterationType\":\"" + iterationType + "\",\"iteration\":" + iteration + ",\"won\":" + won
                + ",\"lost\":1,\"refused\":0,\"failed\":" + failed + ",\"refills\":0,\"startNanos\":" + start
                + ",\"endNanos\":" + end + "}";
    }

    @Test
    void unequalSharesLowerJainAndAStarvedThreadShowsAsZeroShare(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("tally.jsonl");
        Files.write(file, java.util.List.of(
                line("warmup", 1, 0, 999, 0, 0, 1_000_000_000L),
                // iteration 1: shares 10 and 30 over one second
                line("measurement", 1, 0, 10, 0, 0, 1_000_000_000L),
                line("measurement", 1, 1, 30, 2, 100, 900_000_000L),
                // iteration 2: one thread did everything
                line("measurement", 2, 0, 40, 0, 2_000_000_000L, 3_000_000_000L),
                line("measurement", 2, 1, 0, 0, 2_000_000_000L, 3_000_000_000L)));
        Map<ForkKey, BenchResults.Tally> tallies = BenchResults.readTally(file);
        assertEquals(1, tallies.size());
        BenchResults.Tally t = tallies.values().iterator().next();
        assertEquals(80, t.won(), "warmup iterations are left out");
        assertEquals(2, t.failed());
        assertEquals(4, t.lost());
        assertEquals(2, t.iterations());
        assertEquals(2.0, t.wallSeconds(), 1e-9);
        assertEquals(40.0, t.wonPerWallSecond(), 1e-9);
        // Jain: (10+30)^2 / (2 * (100+900)) = 0.8, and 40^2 / (2 * 1600) = 0.5
        assertEquals(0.65, t.jain(), 1e-9);
        assertEquals(0.0, t.minShare(), 1e-9);
        assertEquals(0, t.minThreadWon());
    }
}
