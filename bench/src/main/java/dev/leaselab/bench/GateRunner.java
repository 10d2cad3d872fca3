package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.openjdk.jmh.runner.RunnerException;

/**
 * The second stage of the {@code gate} command ({@link Gate#confirm}): given a baseline and a
 * measured gate run, measures the screened strategies on their storages once more, into
 * {@code <run>/confirmation}, and judges both stages. Nothing is measured when nothing was
 * screened.
 */
final class GateRunner {

    /** Where a gate run keeps its confirmation run. */
    static final String CONFIRMATION = "confirmation";

    private GateRunner() {}

    /**
     * @param profile the profile {@code current} was measured with; the confirmation runs it narrowed
     * @throws IllegalArgumentException if the confirmation was not measured like the run (other than its steps)
     * @throws IllegalStateException if a confirmation fork failed
     */
    static Gate.Outcome confirm(Profile profile, Gate.Run baseline, Path current, PrintWriter out, GateStatistics stats)
            throws RunnerException {
        Gate.Run cur = Gate.Run.load(current);
        List<Gate.PairedLine> screened = Gate.screened(baseline, cur, stats);
        if (screened.isEmpty()) {
            return Gate.confirm(baseline, cur, new Gate.Run(List.of(), Map.of(), null), "(nothing screened)", stats);
        }
        Set<LockingStrategy> strategies = new LinkedHashSet<>();
        Set<Storage> storages = new LinkedHashSet<>();
        screened.forEach(l -> {
            strategies.add(l.key().strategy());
            storages.add(l.key().storage());
        });
        Path folder = current.resolve(CONFIRMATION);
        out.printf(Locale.ROOT, "%d row(s) screened; measuring %s on %s again in %s%n", screened.size(), strategies, storages, folder);
        out.flush();
        Profile narrowed = profile.filter(s -> true, storages::contains, strategies::contains);
        if (!BenchRun.run(narrowed, folder, out, false).complete()) {
            throw new IllegalStateException("a fork of the confirmation run " + folder + " failed: see its jmh.log");
        }
        Gate.Run again = Gate.Run.load(folder);
        List<String> differences = Gate.confirmationDifferences(cur.environment(), again.environment());
        if (!differences.isEmpty()) {
            throw new IllegalArgumentException("the confirmation run " + folder + " was not measured like " + current + ": " + differences);
        }
        return Gate.confirm(baseline, cur, again, folder.toString(), stats);
    }
}
