package dev.leaselab.stress;

import dev.leaselab.lease.BrokenStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.stress.jcstress.SharedStores;
import dev.leaselab.testkit.process.ChildJvm;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the jcstress tests of {@code dev.leaselab.stress.jcstress} in a child JVM (jcstress forks
 * its own JVMs and writes its result files into the working directory, so each run gets a folder
 * of its own) and judges the output: the correct strategies must pass every test, and each
 * negative control must fail the test aimed at it.
 *
 * <p>The options keep a run short on two cores: {@code -m quick -sc false -fsm 0} with fixed
 * {@code -jvmArgs}, so jcstress forks one JVM configuration pair per test instead of dozens.
 */
public final class JcstressRunner {

    /** The tests, as {@code -t} patterns, each control must fail. */
    static final List<Target> CONTROL_TARGETS = List.of(
            new Target(BrokenStore.CLAIM_READ_THEN_WRITE, "Claim_01"),
            new Target(BrokenStore.COMPLETE_WITHOUT_FENCE_CHECK, "Complete_03"),
            new Target(BrokenStore.RELEASE_RESETS_FENCE, "Release_05"));

    private static final Pattern OUTCOME = Pattern.compile(
            "^\\s+(.+?)\\s+([\\d,]+)\\s+([\\d.]+)%\\s+(Acceptable|Forbidden|Interesting)\\s+(.*)$");

    /**
     * A control and the jcstress test that must catch it.
     *
     * @param control the broken store
     * @param test the {@code -t} pattern of its test
     */
    record Target(BrokenStore control, String test) {}

    private final Path work;
    private final int iterations;
    private final int timeMillis;
    private final PrintStream progress;

    /**
     * @param work where each run's folder goes
     * @param iterations jcstress {@code -iters}
     * @param timeMillis jcstress {@code -time}, per iteration
     * @param progress where a line per run goes
     */
    public JcstressRunner(Path work, int iterations, int timeMillis, PrintStream progress) {
        if (iterations < 1) {
            throw new IllegalArgumentException("iterations must be at least 1: " + iterations);
        }
        if (timeMillis < 10) {
            throw new IllegalArgumentException("timeMillis must be at least 10: " + timeMillis);
        }
        this.work = work;
        this.iterations = iterations;
        this.timeMillis = timeMillis;
        this.progress = progress;
    }

    /**
     * Every test on every strategy, then each control on its test. With {@code perStrategy}, each
     * strategy gets a run of its own, so a failure names it; otherwise one run lets the states
     * take turns over the strategies, which costs one run instead of one per strategy.
     */
    public List<Verdict> runAll(boolean perStrategy) {
        List<Verdict> verdicts = new ArrayList<>();
        if (perStrategy) {
            for (StoreUnderTest store : StoreUnderTest.allCorrect(LockingStrategy.Engine.SQLITE)) {
                verdicts.add(run(store, "dev.leaselab.stress.jcstress"));
            }
        } else {
            verdicts.add(run(null, "dev.leaselab.stress.jcstress"));
        }
        for (Target target : CONTROL_TARGETS) {
            verdicts.add(run(new StoreUnderTest(dev.leaselab.lease.LockingStrategy.IMMEDIATE, target.control()),
                    target.test()));
        }
        return verdicts;
    }

    /**
     * Runs the tests matching {@code tests} on {@code store}, or on every strategy in turn when
     * {@code store} is null, and judges the outcome.
     */
    public Verdict run(StoreUnderTest store, String tests) {
        String name = store == null ? "every strategy (round robin)" : store.name();
        String check = "jcstress " + tests.replace("dev.leaselab.stress.jcstress", "all");
        Path dir = work.resolve("jcstress-" + (store == null ? "all" : store.name().replace('/', '-')) + "-"
                + tests.replaceAll("[^A-Za-z0-9_]", "_"));
        long started = System.nanoTime();
        String jvmArgs = (store == null ? "" : "-D" + SharedStores.PROPERTY + "=" + store.name() + " ") + "-Xmx256m";
        List<String> command = List.of(
                ChildJvm.java(), "-Xmx256m",
                "-cp", ChildJvm.classPath(), "org.openjdk.jcstress.Main",
                "-v", "-t", tests, "-m", "quick", "-sc", "false", "-fsm", "0",
                "-iters", Integer.toString(iterations), "-time", Integer.toString(timeMillis),
                "-jvmArgs", jvmArgs, "-r", dir.resolve("results").toAbsolutePath().toString());
        int exit;
        String output;
        try {
            Files.createDirectories(dir);
            Path log = dir.resolve("jcstress.log");
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            exit = process.waitFor();
            output = Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run jcstress " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running jcstress", e);
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        Verdict verdict = judge(store, name, check, exit, output, millis, dir);
        progress.printf(Locale.ROOT, "%-50s %-22s %9d samples, %6d forbidden, %5.1f s: %s%n", name, check,
                verdict.races(), verdict.violations(), millis / 1000.0, verdict.outcome());
        progress.flush();
        return verdict;
    }

    static Verdict judge(StoreUnderTest store, String name, String check, int exit, String output, long millis,
            Path dir) {
        // Verbose output prints each configuration's table while it runs, then one table per
        // test across all configurations after "RUN RESULTS:"; only the latter is counted.
        int summary = output.indexOf("RUN RESULTS:");
        String results = summary < 0 ? "" : output.substring(summary);
        long samples = 0;
        long forbidden = 0;
        for (String line : results.split("\n")) {
            Matcher m = OUTCOME.matcher(line);
            if (m.matches()) {
                long n = Long.parseLong(m.group(2).replace(",", ""));
                samples += n;
                if (m.group(4).equals("Forbidden")) {
                    forbidden += n;
                }
            }
        }
        int passed = count(results, "[OK]");
        int failed = count(results, "[FAILED]");
        int errors = count(results, "[ERROR]");
        boolean control = store != null && store.isControl();
        Verdict.Outcome outcome;
        String detail;
        if (control) {
            outcome = failed > 0 && forbidden > 0 ? Verdict.Outcome.CAUGHT : Verdict.Outcome.MISSED;
            detail = String.format(Locale.ROOT, "%d of %d samples forbidden (%.3f%%); exit %d; log in %s", forbidden,
                    samples, samples == 0 ? 0 : 100.0 * forbidden / samples, exit, dir);
        } else if (exit != 0 || failed > 0 || errors > 0 || forbidden > 0 || summary < 0) {
            outcome = Verdict.Outcome.FAIL;
            detail = String.format(Locale.ROOT, "%d failed, %d errors, %d forbidden samples, exit %d; log in %s",
                    failed, errors, forbidden, exit, dir);
        } else if (passed == 0 || samples == 0) {
            outcome = Verdict.Outcome.INCONCLUSIVE;
            detail = "jcstress ran no test; log in " + dir;
        } else {
            outcome = Verdict.Outcome.PASS;
            detail = passed + " test results passed, " + samples + " samples; log in " + dir;
        }
        return new Verdict(name, check, control, samples, -1, -1, -1, samples, forbidden, -1, 0, 0, millis, outcome, detail);
    }

    private static int count(String text, String marker) {
        int n = 0;
        for (int i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + 1)) {
            n++;
        }
        return n;
    }
}
