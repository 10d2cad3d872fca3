package dev.leaselab.stress;

import dev.leaselab.lease.LockingStrategy.Engine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The one command of the concurrency gate: {@code java -jar stress/target/stress.jar [--profile quick|long]}.
 * Races every {@link dev.leaselab.lease.LockingStrategy} and every negative control of SQLite and
 * PostgreSQL ({@code --engine} chooses) across threads, across processes and in the drain races
 * of threads and of processes, prints a
 * verdict table, writes it with JUnit XML under {@code results/stress/<run-id>/}, and exits 0
 * when every strategy passed and every control was caught, 1 on a violation or a missed
 * control, 2 on a wrong option, 3 when a run saw too little overlap to judge (inconclusive).
 */
@Command(name = "stress", mixinStandardHelpOptions = true,
        description = "Races every locking strategy and every negative control; prints a verdict table.")
public final class StressMain implements Callable<Integer> {

    @Option(names = "--profile", defaultValue = "quick",
            description = "smoke, quick (default) or long; the options below change single settings")
    StressPlan.Profile profile;

    @Option(names = "--engine", split = ",", defaultValue = "sqlite,postgresql",
            description = "the engines whose strategies race: sqlite, postgresql or both (default); PostgreSQL needs a "
                    + "server in LEASELAB_POSTGRES_URL (./with-postgres.sh sets it)")
    List<Engine> engines;

    @Option(names = "--threads-seconds", description = "how long the thread driver races each store")
    Double threadsSeconds;

    @Option(names = "--processes-seconds", description = "how long the process driver races each store")
    Double processesSeconds;

    @Option(names = "--drain-seconds", description = "how long the process drain race races each store")
    Double drainSeconds;

    @Option(names = "--thread-drain-seconds", description = "how long the thread drain race races each store")
    Double threadDrainSeconds;

    @Option(names = "--kills", description = "SIGKILLs per process run")
    Integer kills;

    @Option(names = "--pauses", description = "SIGSTOP pauses per process run")
    Integer pauses;

    @Option(names = "--workers", description = "worker processes at once")
    Integer workers;

    @Option(names = "--owners", description = "the widest thread race")
    Integer owners;

    @Option(names = "--no-jcstress", description = "skip the jcstress tests")
    boolean noJcstress;

    @Option(names = "--jcstress-iterations", description = "jcstress -iters per test (0 skips jcstress)")
    Integer jcstressIterations;

    @Option(names = "--jcstress-time", description = "jcstress -time per test, in ms")
    Integer jcstressTime;

    @Option(names = "--jcstress-per-strategy",
            description = "one jcstress run per strategy, so a failure names it (the long profile does this)")
    boolean jcstressPerStrategy;

    @Option(names = "--seed", description = "seed of every random choice")
    Long seed;

    @Option(names = "--worker-command", paramLabel = "COMMAND",
            description = "race a lease store of your own instead of the project's: a command that serves the worker "
                    + "protocol (docs/worker-protocol.md) on the database file appended to it, split at spaces, e.g. "
                    + "'python3 examples/python/worker.py'; its workers race next to Java workers of every SQLite strategy "
                    + "on one file, and alone, with the same faults and checker, and then drain a queue the same way "
                    + "(claimNext and completeAll; not for a --guest-is-control)")
    String workerCommand;

    @Option(names = "--store-class", paramLabel = "CLASS",
            description = "race a Java store of your own instead of the project's: a dev.leaselab.testkit.LeaseStoreProvider "
                    + "on the class path (java -cp stress.jar:your.jar dev.leaselab.stress.StressMain ...), served over the "
                    + "worker protocol and raced as --worker-command is")
    String storeClass;

    @Option(names = "--guest-name", defaultValue = "guest",
            description = "the --worker-command's name in the verdict table (default: guest; a --store-class is named "
                    + "by its class)")
    String guestName;

    @Option(names = "--guest-is-control",
            description = "the --worker-command is a deliberately wrong store: every process race must catch it "
                    + "(no drains are run for it)")
    boolean guestIsControl;

    @Option(names = "--results", defaultValue = "results/stress",
            description = "folder for the run folders (default: results/stress)")
    Path results;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line: an IllegalArgumentException from the run is a wrong option, exit code 2. */
    static CommandLine commandLine() {
        return new CommandLine(new StressMain())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler((e, command, parsed) -> {
                    if (!(e instanceof IllegalArgumentException)) {
                        throw e;
                    }
                    command.getErr().println(e.getMessage());
                    return CommandLine.ExitCode.USAGE;
                });
    }

    @Override
    public Integer call() {
        StressPlan plan = plan();
        String runId = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path runDir = results.resolve(runId);
        Path work = runDir.resolve("work");
        // Checks the options and the PostgreSQL server before any folder is created: a missing
        // server is a wrong option (exit 2), not a failed run.
        if (workerCommand != null && storeClass != null) {
            throw new IllegalArgumentException("--worker-command and --store-class name two guests: give one");
        }
        Guest guest = workerCommand != null ? Guest.parse(guestName, workerCommand, guestIsControl)
                : storeClass != null ? Guest.javaStore(storeClass, guestIsControl) : null;
        if (guest != null && !engines.contains(Engine.SQLITE)) {
            throw new IllegalArgumentException("a guest races on SQLite files: --engine must include sqlite, not " + engines);
        }
        // A guest races on SQLite files only: the PostgreSQL server is not needed then.
        StressRun run = guest == null ? new StressRun(plan, engines, work, System.out)
                : new StressRun(plan, List.of(Engine.SQLITE), work, System.out).withGuest(guest);
        try {
            Files.createDirectories(work);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + runDir, e);
        }
        System.out.println("stress " + profile.name().toLowerCase(Locale.ROOT) + " run " + runId
                + (guest == null ? " on " + engines : " of the guest " + guest.name() + " " + guest.command()
                        + (guest.control() ? " (a control)" : "")) + ": " + plan);
        long started = System.nanoTime();
        List<Verdict> verdicts = run.run();
        VerdictReport.write(runDir, verdicts);
        System.out.println();
        System.out.print(VerdictReport.table(verdicts));
        System.out.printf("took %.1f s; table and JUnit XML in %s%n", (System.nanoTime() - started) / 1e9, runDir);
        return exitCode(verdicts);
    }

    /** Exit code when too little overlap was seen to judge; 2 is picocli's for a wrong option. */
    static final int INCONCLUSIVE = 3;

    /** 0: all good; 1: a violation or a missed control; 3: only inconclusive rows spoil it. */
    static int exitCode(List<Verdict> verdicts) {
        if (verdicts.stream().anyMatch(v -> v.outcome() == Verdict.Outcome.FAIL || v.outcome() == Verdict.Outcome.MISSED)) {
            return 1;
        }
        return verdicts.stream().allMatch(v -> v.outcome().good()) ? 0 : INCONCLUSIVE;
    }

    private StressPlan plan() {
        StressPlan base = profile.plan();
        return new StressPlan(
                threadsSeconds == null ? base.threads() : seconds("--threads-seconds", threadsSeconds),
                processesSeconds == null ? base.processes() : seconds("--processes-seconds", processesSeconds),
                drainSeconds == null ? base.drainProcesses() : seconds("--drain-seconds", drainSeconds),
                threadDrainSeconds == null ? base.drainThreads() : seconds("--thread-drain-seconds", threadDrainSeconds),
                base.drainEveryStrategy(),
                base.controlBudget(),
                owners == null ? base.owners() : owners,
                workers == null ? base.workers() : workers,
                kills == null ? base.kills() : kills,
                pauses == null ? base.pauses() : pauses,
                base.minThreadOverlap(), base.minProcessOverlap(),
                noJcstress ? 0 : jcstressIterations == null ? base.jcstressIterations() : jcstressIterations,
                jcstressTime == null ? base.jcstressTime() : jcstressTime,
                jcstressPerStrategy || base.jcstressPerStrategy(),
                seed == null ? base.seed() : seed);
    }

    private static Duration seconds(String option, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(option + " must be a positive number of seconds: " + value);
        }
        return Duration.ofMillis((long) (value * 1000));
    }
}
