package dev.leaselab.bench;

import dev.leaselab.bench.GateStatistics.Verdict;
import dev.leaselab.lease.LockingStrategy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Judges the runs a {@link GateProof} left behind with the two-stage gate ({@link Gate#confirm}),
 * not a unit test. A proof's work folder has no confirmation runs, so another run of the same code
 * stands in for each: for the A/A comparison of try t (A(t-1) against A(t)) the next A run,
 * A(t+1) (A(t-2) for the last try); for try t's slowed run B(t), the run six tries away that slowed
 * the same strategy, B(t+6) or B(t-6). A stand-in was measured minutes away from the run it
 * confirms, where the {@code gate} command measures the screened rows right after the run: the
 * stand-in is the more independent second measurement, so read these figures as what two
 * independent measurements give. Run from the repository root:
 * <pre>
 * java -cp bench/target/benchmarks.jar:bench/target/test-classes dev.leaselab.bench.GateConfirmRejudge /tmp/gate-proof3/runs
 * </pre>
 * Prints a Markdown table: per try the rows flagged by one stage (Holm over all rows) and by two.
 */
public final class GateConfirmRejudge {

    /** How far apart two slowed runs of one strategy are in a proof that slows the six strategies in turn. */
    private static final int SAME_STRATEGY_EVERY = 6;

    /**
     * {@code -Dconfirmation=measured}: judge a {@link GateConfirmProof}'s work folder with the
     * confirmations it measured ({@code <run>/confirmation}) instead of stand-ins.
     */
    private static final boolean MEASURED = "measured".equals(System.getProperty("confirmation"));

    /** {@code -Dscreen=FAMILY}: judge with another screen than the gate's. */
    private static final Gate.Screen SCREEN = Gate.Screen.valueOf(System.getProperty("screen", Gate.SCREEN.name()));

    private GateConfirmRejudge() {}

    /** A confirmation run, or none when nothing was screened (a proof measures none then). */
    private static Gate.Run load(Path run) {
        return Files.isRegularFile(run.resolve(BenchResults.TALLY)) ? Gate.Run.load(run)
                : new Gate.Run(List.of(), java.util.Map.of(), null);
    }

    public static void main(String[] args) throws Exception {
        Path work = Path.of(args[0]);
        GateStatistics stats = GateStatistics.defaults();
        int tries = 0;
        List<Integer> confirmationForks = new java.util.ArrayList<>();
        int[] single = new int[3];
        int[] twoStage = new int[3];
        StringBuilder perTry = new StringBuilder("| try | slowed | one stage: A/A | one stage: slowed run | two stages: A/A | two stages: slowed run |\n"
                + "|---:|---|---|---|---|---|\n");
        for (int t = 1; Files.isRegularFile(work.resolve("A" + t).resolve(BenchResults.TALLY)); t++) {
            Path slowedRun = find(work, "B" + t + "-");
            Path standIn = find(work, "B" + (t + SAME_STRATEGY_EVERY) + "-");
            if (standIn == null) {
                standIn = find(work, "B" + (t - SAME_STRATEGY_EVERY) + "-");
            }
            Path nextA = work.resolve("A" + (t + 1));
            if (!Files.isRegularFile(nextA.resolve(BenchResults.TALLY))) {
                nextA = work.resolve("A" + (t - 2));
            }
            if (slowedRun == null || standIn == null && !MEASURED) {
                break;
            }
            LockingStrategy slowed = LockingStrategy.valueOf(slowedRun.getFileName().toString().substring(("B" + t + "-").length()));
            int baselineRuns = Integer.getInteger("baselineRuns", 1);
            if (t < baselineRuns) {
                continue;
            }
            List<Gate.Run> runs = new java.util.ArrayList<>();
            for (int i = 1; i <= baselineRuns; i++) {
                runs.add(Gate.Run.load(work.resolve("A" + (t - i))));
            }
            Gate.Run base = Gate.Run.merged(runs);
            tries++;
            Gate.Run aa = Gate.Run.load(work.resolve("A" + t));
            Gate.Run ab = Gate.Run.load(slowedRun);
            Gate.Outcome aa1 = Gate.compare(base, aa, stats, true);
            Gate.Outcome ab1 = Gate.compare(base, ab, stats, true);
            Path aaAgain = MEASURED ? work.resolve("A" + t).resolve(GateRunner.CONFIRMATION) : nextA;
            Path abAgain = MEASURED ? slowedRun.resolve(GateRunner.CONFIRMATION) : standIn;
            Gate.Outcome aa2 = Gate.confirm(base, aa, load(aaAgain), aaAgain.toString(), stats, SCREEN);
            Gate.Outcome ab2 = Gate.confirm(base, ab, load(abAgain), abAgain.toString(), stats, SCREEN);
            confirmationForks.add(confirmationForks(Gate.screened(base, aa, stats, SCREEN)));
            confirmationForks.add(confirmationForks(Gate.screened(base, ab, stats, SCREEN)));
            perTry.append(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s | %s |%n", t, slowed,
                    count(single, aa1, ab1, slowed, true), count(single, aa1, ab1, slowed, false),
                    count(twoStage, aa2, ab2, slowed, true), count(twoStage, aa2, ab2, slowed, false)));
        }
        StringBuilder md = new StringBuilder("| gate | A/A: tries with no row flagged | slowed strategy flagged | "
                + "tries where another strategy was flagged |\n|---|---:|---:|---:|\n");
        md.append(String.format(Locale.ROOT, "| one stage (Holm over all rows) | %d of %d | %d of %d | %d of %d |%n",
                single[0], tries, single[1], tries, single[2], tries));
        md.append(String.format(Locale.ROOT, "| two stages (screen, confirm with a second run) | %d of %d | %d of %d | %d of %d |%n%n",
                twoStage[0], tries, twoStage[1], tries, twoStage[2], tries));
        md.append(String.format(Locale.ROOT, "Forks the `gate` command would measure again (screened strategies x their storages): "
                        + "%.1f per run on average, none in %d of %d runs, at most %d.%n%n",
                confirmationForks.stream().mapToInt(Integer::intValue).average().orElse(0),
                confirmationForks.stream().filter(n -> n == 0).count(), confirmationForks.size(),
                confirmationForks.stream().mapToInt(Integer::intValue).max().orElse(0)));
        System.out.print(md.append(perTry));
    }

    /** What {@link BenchMain}'s {@code gate} measures again: every screened strategy on every screened storage. */
    private static int confirmationForks(List<Gate.PairedLine> screened) {
        long strategies = screened.stream().map(l -> l.key().strategy()).distinct().count();
        long storages = screened.stream().map(l -> l.key().storage()).distinct().count();
        return (int) (strategies * storages);
    }

    /** Adds a try's A/A or A/B outcome to {@code c} (A/A clean, slowed caught, another flagged); returns its cell. */
    static String count(int[] c, Gate.Outcome aa, Gate.Outcome ab, LockingStrategy slowed, boolean aaCell) {
        if (aaCell) {
            List<String> flagged = flagged(aa, null);
            if (flagged.isEmpty()) {
                c[0]++;
            }
            return flagged.isEmpty() ? "clean" : "**" + String.join("; ", flagged) + "**";
        }
        boolean caught = ab.paired().stream().anyMatch(l -> l.key().strategy() == slowed && l.comparison().verdict() == Verdict.REGRESSED);
        List<String> others = flagged(ab, slowed);
        c[1] += caught ? 1 : 0;
        c[2] += others.isEmpty() ? 0 : 1;
        return (caught ? "caught" : "**missed**") + (others.isEmpty() ? "" : ", **also " + String.join("; ", others) + "**");
    }

    private static List<String> flagged(Gate.Outcome o, LockingStrategy except) {
        return o.paired().stream().filter(l -> l.key().strategy() != except)
                .filter(l -> l.comparison().verdict() == Verdict.REGRESSED || l.comparison().verdict() == Verdict.IMPROVED)
                .map(l -> String.format(Locale.ROOT, "%s %.2f %s", l.label(), l.comparison().ratio(),
                        l.comparison().verdict().name().toLowerCase(Locale.ROOT)))
                .toList();
    }

    private static Path find(Path work, String prefix) throws java.io.IOException {
        try (Stream<Path> s = Files.list(work)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).findFirst().orElse(null);
        }
    }
}
