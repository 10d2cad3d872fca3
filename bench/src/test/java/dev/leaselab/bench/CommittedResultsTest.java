package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.bench.GateStatistics.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The results folders committed under {@code results/} are the baselines that later runs are
 * gated against, so every build must still read them, join their tallies and pair their rows as
 * the gate did when they were written. The counts below are what {@code BenchMain compare} printed
 * on them before the fork key was a type of its own (quick-20261203-Q-1's and the full-20261203 runs':
 * what the comparison in this test gave when each run was committed).
 */
class CommittedResultsTest {

    private static final Path RESULTS = Path.of("..", "results");
    private final GateStatistics stats = GateStatistics.defaults();

    @ParameterizedTest
    @CsvSource({
        "full-20261203-F-1, 675, 20, 634",
        "full-20261203-F-2, 675, 17, 637",
        "baseline-full-20261201-ref, 486, 65, 421",
        "20261201-235317-quick, 98, 0, 83",
        "quick-20261203-Q-1, 98, 3, 80",
        "example-quick-under-load, 59, 1, 58",
        "trial-full-walfull-t8-under-load, 7, 0, 7",
    })
    void aCommittedRunLoadsWithEveryTallyAndComparedWithItselfNothingMoves(String folder, int rows, int unchanged,
                                                                            int inconclusive) {
        Path run = RESULTS.resolve(folder);
        assertTrue(Files.isDirectory(run), run.toAbsolutePath() + " is missing");
        List<BenchResults.Row> loaded = BenchResults.load(run);
        assertEquals(rows, loaded.size());
        loaded.forEach(r -> assertTrue(r.tally() != null && r.tally().iterations() > 0, "no tally joined to " + r.key().label()));
        Gate.Outcome self = Gate.compare(loaded, loaded, stats);
        // The paired rows are judged by the paired gate, not in these lines.
        long paired = loaded.stream().filter(r -> r.key().benchmark() == BenchmarkId.PAIRED).count();
        assertEquals(rows - paired, self.lines().size());
        assertEquals(0, self.count(Verdict.REGRESSED) + self.count(Verdict.IMPROVED));
        assertEquals(unchanged, self.count(Verdict.UNCHANGED));
        assertEquals(inconclusive, self.count(Verdict.INCONCLUSIVE));
    }

    @ParameterizedTest
    @CsvSource({
        // Runs of other code and other profiles: with Holm's correction over the rows both have,
        // none is called (tested at 5% each on its own, an earlier quick run against the same
        // baseline had 4 rows "regressed" and 13 "improved": the family's false alarms).
        "20261201-235317-quick, baseline-full-20261201-ref, 65, 0, 0, 0, 65, 18, 421",
        "example-quick-under-load, 20261201-235317-quick, 45, 0, 0, 0, 45, 14, 38",
        // The whole full profile twice of one commit (be5551d), 36 minutes apart: nothing called.
        "full-20261203-F-1, full-20261203-F-2, 654, 0, 0, 2, 652, 0, 0",
    })
    void twoCommittedRunsArePairedAndJudgedAsBefore(String baseline, String current, int compared, int regressed,
                                                    int improved, int unchanged, int inconclusive, int onlyInBaseline,
                                                    int onlyInCurrent) {
        Gate.Outcome o = Gate.compare(BenchResults.load(RESULTS.resolve(baseline)), BenchResults.load(RESULTS.resolve(current)),
                stats);
        assertEquals(compared, o.lines().size());
        assertEquals(regressed, o.count(Verdict.REGRESSED));
        assertEquals(improved, o.count(Verdict.IMPROVED));
        assertEquals(unchanged, o.count(Verdict.UNCHANGED));
        assertEquals(inconclusive, o.count(Verdict.INCONCLUSIVE));
        assertEquals(onlyInBaseline, o.onlyInBaseline().size());
        assertEquals(onlyInCurrent, o.onlyInCurrent().size());
    }
}
