package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The two-stage gate's proof on real runs, not a unit test: as {@link GateProof} (A0, B1, A1, B2,
 * A2, ...; B_t slows one strategy by 25% with {@link SlowedStore}), but every A and B run is
 * followed at once by what the {@code gate} command measures after it ({@link GateRunner}: the
 * strategies it screened against the previous A, measured again, the slowed store still in place
 * for B). Each try is judged by one stage ({@link Gate#compare}) and by two ({@link Gate#confirm}).
 * Run from the repository root after {@code mvn -B -pl bench -am package -DskipTests} and
 * {@code mvn -B -pl bench test-compile}, on a quiet machine:
 * <pre>
 * java -cp bench/target/benchmarks.jar:bench/target/test-classes dev.leaselab.bench.GateConfirmProof 20 /tmp/gate-proof4 gate-proof-confirm.md
 * </pre>
 * Arguments: tries, the work folder, the summary file (rewritten after every try), and optionally the
 * number of the first try (default 1), so that a second session's tries go on with the cycle of slowed
 * strategies where the first stopped (tries 11 to 20 after a run of 10: {@code 10 /tmp/p2 out.md 11}).
 */
public final class GateConfirmProof {

    private GateConfirmProof() {}

    public static void main(String[] args) throws Exception {
        int tries = Integer.parseInt(args[0]);
        Path work = Path.of(args[1]);
        Path summary = Path.of(args[2]);
        int firstTry = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        if (firstTry < 1) {
            throw new IllegalArgumentException("first try must be at least 1: " + firstTry);
        }
        Profile profile = Profile.named("gate");
        List<LockingStrategy> strategies = profile.steps().get(0).strategies();
        GateStatistics stats = GateStatistics.defaults();
        PrintWriter console = new PrintWriter(System.out, true);
        Instant started = Instant.now();
        String loadAtStart = GateProof.loadAverage();

        Path previous = BenchRun.run(profile, work.resolve("A0"), console, false).folder();
        int[] single = new int[3];
        int[] twoStage = new int[3];
        List<String> lines = new ArrayList<>();
        List<Double> runSeconds = new ArrayList<>();
        List<Double> confirmSeconds = new ArrayList<>();
        for (int i = firstTry; i < firstTry + tries; i++) {
            int t = i;
            LockingStrategy slowed = strategies.get((t - 1) % strategies.size());
            Gate.Run base = Gate.Run.load(previous);
            Gate.Outcome ab1;
            Gate.Outcome ab2;
            System.setProperty(BenchDb.DECORATOR_PROPERTY, SlowedStore.class.getName());
            System.setProperty(BenchDb.DECORATOR_ONLY_PROPERTY, slowed.name());
            try {
                Path b = timed(runSeconds, () -> BenchRun.run(profile, work.resolve("B" + t + "-" + slowed), console, false).folder());
                ab1 = Gate.compare(base, Gate.Run.load(b), stats, true);
                ab2 = timed(confirmSeconds, () -> GateRunner.confirm(profile, base, b, console, stats));
            } finally {
                System.clearProperty(BenchDb.DECORATOR_PROPERTY);
                System.clearProperty(BenchDb.DECORATOR_ONLY_PROPERTY);
            }
            Path a = timed(runSeconds, () -> BenchRun.run(profile, work.resolve("A" + t), console, false).folder());
            Gate.Outcome aa1 = Gate.compare(base, Gate.Run.load(a), stats, true);
            Gate.Outcome aa2 = timed(confirmSeconds, () -> GateRunner.confirm(profile, base, a, console, stats));
            lines.add(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s | %s |", t, slowed,
                    GateConfirmRejudge.count(single, aa1, ab1, slowed, true), GateConfirmRejudge.count(single, aa1, ab1, slowed, false),
                    GateConfirmRejudge.count(twoStage, aa2, ab2, slowed, true), GateConfirmRejudge.count(twoStage, aa2, ab2, slowed, false)));
            console.println(lines.get(lines.size() - 1));
            previous = a;
            write(summary, started, loadAtStart, tries, t - firstTry + 1, single, twoStage, runSeconds, confirmSeconds, lines);
        }
    }

    private interface Step<T> {
        T get() throws Exception;
    }

    private static <T> T timed(List<Double> seconds, Step<T> step) throws Exception {
        Instant start = Instant.now();
        T result = step.get();
        seconds.add(Duration.between(start, Instant.now()).toMillis() / 1000.0);
        return result;
    }

    private static void write(Path summary, Instant started, String loadAtStart, int tries, int done, int[] single, int[] twoStage,
                              List<Double> runSeconds, List<Double> confirmSeconds, List<String> lines) throws java.io.IOException {
        StringBuilder md = new StringBuilder("# Two-stage gate proof: A/A and one strategy slowed by 25%\n\n");
        md.append(String.format(Locale.ROOT, "Started %s, last written %s; %d of %d tries done. Load average (1 min) %s at the "
                        + "start, %s now. A gate run took %.0f s on average (longest %.0f s); its confirmation %.0f s on "
                        + "average (longest %.0f s; none needed in %d of %d runs).%n%n",
                started, Instant.now(), done, tries, loadAtStart, GateProof.loadAverage(), mean(runSeconds), max(runSeconds),
                mean(confirmSeconds), max(confirmSeconds), confirmSeconds.stream().filter(s -> s < 1).count(), confirmSeconds.size()));
        md.append("| gate | A/A: tries with no row flagged | slowed strategy flagged | tries where another strategy was flagged |\n"
                + "|---|---:|---:|---:|\n");
        md.append(String.format(Locale.ROOT, "| one stage | %d of %d | %d of %d | %d of %d |%n", single[0], done, single[1], done, single[2], done));
        md.append(String.format(Locale.ROOT, "| two stages | %d of %d | %d of %d | %d of %d |%n%n", twoStage[0], done, twoStage[1], done,
                twoStage[2], done));
        md.append("| try | slowed | one stage: A/A | one stage: slowed run | two stages: A/A | two stages: slowed run |\n"
                + "|---:|---|---|---|---|---|\n");
        lines.forEach(l -> md.append(l).append('\n'));
        Files.writeString(summary, md.toString());
    }

    private static double mean(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    private static double max(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }
}
