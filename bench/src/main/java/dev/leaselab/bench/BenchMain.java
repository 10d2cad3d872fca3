package dev.leaselab.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.StoreOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The command line of the bench module, shipped in {@code benchmarks.jar} next to JMH's own main:
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.BenchMain run --profile quick
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.BenchMain run --profile full --dry-run
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.BenchMain compare results/A results/B
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.BenchMain gate --baseline results/gate-baseline
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.BenchMain report results/A
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.BenchMain batches recording.jfr
 * ./with-postgres.sh java -cp bench/target/benchmarks.jar dev.leaselab.bench.BenchMain run --profile quick
 * </pre>
 * The PostgreSQL steps of a profile need a server ({@code LEASELAB_POSTGRES_URL} or
 * {@code -Dleaselab.postgres.url}, which {@code ./with-postgres.sh} provides); without one, {@code run}
 * drops them with a banner on stderr and records that in {@code environment.json} and the report,
 * and a server that is named but does not answer is an error before any fork runs.
 * Exit codes: 0 success, 1 the gate found a regression, 2 a usage or runtime error.
 */
@Command(name = "leaselab-bench", mixinStandardHelpOptions = true,
        description = "Runs the leaselab JMH benchmarks into results folders, renders reports and gates regressions.",
        subcommands = {BenchMain.Run.class, BenchMain.Compare.class, BenchMain.GateCommand.class, BenchMain.ReportCommand.class,
                BenchMain.BatchesCommand.class})
public final class BenchMain implements Callable<Integer> {

    /** Exit code of {@code compare} when any row regressed. */
    public static final int REGRESSED = 1;
    /** Exit code for usage errors and failures. */
    public static final int ERROR = 2;

    /** SLF4J's own warnings ("no providers were found") are noise here: nothing in the bench logs through it. */
    static final String SLF4J_VERBOSITY = "slf4j.internal.verbosity";

    public static void main(String[] args) {
        if (System.getProperty(SLF4J_VERBOSITY) == null) {
            System.setProperty(SLF4J_VERBOSITY, "ERROR");
        }
        System.exit(execute(System.out, args));
    }

    /** Runs a command and returns its exit code instead of exiting (tests call this). */
    public static int execute(PrintStream out, String... args) {
        return execute(out, System.err, args);
    }

    /** As {@link #execute(PrintStream, String...)} with the command's stderr (warnings, errors) in {@code err}. */
    static int execute(PrintStream out, PrintStream err, String... args) {
        System.setProperty("java.awt.headless", "true");
        CommandLine cli = new CommandLine(new BenchMain());
        cli.getCommandSpec().parser().toggleBooleanFlags(false);
        return execute(cli, out, err, args);
    }

    /**
     * Runs a command line of this module's tools: its output and errors to {@code out} and
     * {@code err}, a failure as one {@code error:} line with its cause, and a wrong option as
     * {@link #ERROR} like any other error, so scripts tell "regressed" (1) from "could not run" (2).
     */
    static int execute(CommandLine cli, PrintStream out, PrintStream err, String... args) {
        cli.setOut(new java.io.PrintWriter(out, true));
        cli.setErr(new java.io.PrintWriter(err, true));
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            line.getErr().println("error: " + e.getMessage());
            if (e.getCause() != null) {
                line.getErr().println("  caused by: " + e.getCause());
            }
            return ERROR;
        });
        cli.setExitCodeExceptionMapper(e -> ERROR);
        int code = cli.execute(args);
        return code == CommandLine.ExitCode.USAGE ? ERROR : code;
    }

    @Override
    public Integer call() {
        new CommandLine(this).usage(System.err);
        return ERROR;
    }

    /** {@code run}: a profile through JMH into {@code results/<run-id>/}. */
    @Command(name = "run", mixinStandardHelpOptions = true,
            description = "Runs a profile and writes results/<run-id>/ (JMH JSON, tally, environment, report, charts).")
    static final class Run implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Option(names = "--profile", defaultValue = "quick",
                description = "quick (about 20 min on 2 cores with PostgreSQL), full (hours: --dry-run), gate (what CI compares, about 2.5 min) or smoke")
        String profile;
        @Option(names = "--output", defaultValue = "results", description = "the folder that holds run folders (default: ${DEFAULT-VALUE})")
        Path output;
        @Option(names = "--run-id", description = "the run folder's name (default: date-time-profile)")
        String runId;
        @Option(names = "--benchmarks", split = ",", converter = BenchmarkConverter.class,
                description = "keep only these benchmarks, e.g. ClaimBenchmark.hotJob,FloorBenchmark.update")
        List<BenchmarkId> benchmarks;
        @Option(names = "--strategies", split = ",", description = "keep only these strategies")
        List<LockingStrategy> strategies;
        @Option(names = "--storages", split = ",", description = "keep only these storage settings")
        List<Storage> storages;
        @Option(names = "--threads", split = ",", description = "keep only these thread counts")
        List<Integer> threads;
        @Option(names = "--modes", split = ",", description = "keep only these JMH modes (thrpt, sample)")
        List<String> modes;
        @Option(names = "--forks", defaultValue = "-1", description = "forks per benchmark (default: the profile's)")
        int forks;
        @Option(names = "--warmup-iterations", defaultValue = "-1", description = "default: the profile's")
        int warmupIterations;
        @Option(names = "--warmup-ms", defaultValue = "-1", description = "default: the profile's")
        int warmupMillis;
        @Option(names = "--iterations", defaultValue = "-1", description = "measurement iterations (default: the profile's)")
        int iterations;
        @Option(names = "--iteration-ms", defaultValue = "-1", description = "default: the profile's")
        int iterationMillis;
        @Option(names = "--no-open-loop", description = "leave out the profile's open-loop latency runs (OpenLoopMain)")
        boolean noOpenLoop;
        @Option(names = "--no-processes", description = "leave out the profile's multi-process runs (MultiProcessMain)")
        boolean noProcesses;
        @Option(names = "--timeline", description = "the multi-process open loops also write every request they sent "
                + "(intended start, start, end, outcome) to <run>/multiprocess/<storage>-timelines/, and the log says where "
                + "all processes stalled at once (MultiProcessMain --timeline)")
        boolean timeline;
        @Option(names = "--busy-wait", description = "how every SQLite connection waits for the lock: SQLITE_SLEEPS "
                + "(SQLite's busy handler) or JITTERED (default: the profile's; gate runs JITTERED, the others the store's default)")
        StoreOptions.BusyWait busyWait;
        @Option(names = "--dry-run", description = "print the plan and its estimated duration, run nothing")
        boolean dryRun;
        @Option(names = "--resume", description = "continue the run folder given by --run-id: run only the forks "
                + "that have no result there yet (failed or never reached), with the same profile and filters")
        boolean resume;

        /**
         * The iteration options set the timing of the steps that run with the profile's; a paired
         * step keeps its own groups of slices and its warmup ({@link Profile.Step#WARMUP_MILLIS}).
         * A run whose steps all keep their own is refused, naming the options, rather than run as if
         * they had been taken; a run with some of each says which steps keep theirs.
         */
        private void checkTimingOptionsReachAStep(Profile p) {
            List<String> given = new java.util.ArrayList<>();
            if (warmupIterations >= 0) {
                given.add("--warmup-iterations");
            }
            if (warmupMillis > 0) {
                given.add("--warmup-ms");
            }
            if (iterations > 0) {
                given.add("--iterations");
            }
            if (iterationMillis > 0) {
                given.add("--iteration-ms");
            }
            long own = p.steps().stream().filter(s -> s.timing() != null).count();
            if (given.isEmpty() || own == 0) {
                return;
            }
            String options = String.join(", ", given);
            if (own == p.steps().size()) {
                throw new IllegalArgumentException(options + " set the iterations of the steps that run with the profile's, "
                        + "and every step of this run is the paired benchmark, which keeps its own groups of slices and "
                        + "at least " + Profile.Step.WARMUP_MILLIS + " ms of warmup (profile " + profile + ")");
            }
            spec.commandLine().getErr().println("note: " + options + " leave the " + own + " paired step(s) of this run as they "
                    + "are: they keep their own groups of slices and warmup");
            spec.commandLine().getErr().flush();
        }

        @Override
        public Integer call() throws Exception {
            Profile p = Profile.named(profile)
                    .with(forks, warmupIterations, warmupMillis, iterations, iterationMillis)
                    .filter(s -> (benchmarks == null || benchmarks.contains(s.benchmark()))
                                    && (threads == null || threads.contains(s.threads()))
                                    && (modes == null || modes.contains(s.mode().shortLabel())),
                            st -> storages == null || storages.contains(st),
                            ls -> strategies == null || strategies.contains(ls));
            if (busyWait != null) {
                p = p.withBusyWait(busyWait);
            }
            // The open loop measures the hot claim: a run narrowed to other benchmarks or modes leaves it out.
            if (noOpenLoop || benchmarks != null && !benchmarks.contains(BenchmarkId.CLAIM_HOT) || modes != null) {
                p = p.withOpenLoops(List.of());
            }
            p = p.withOpenLoops(p.openLoops().stream().filter(o -> threads == null || threads.contains(o.threads())).toList());
            // So do the multi-process runs (hot claims too), and a run narrowed by thread count.
            if (noProcesses || benchmarks != null && !benchmarks.contains(BenchmarkId.CLAIM_HOT) || modes != null
                    || threads != null) {
                p = p.withMultiProcess(List.of());
            }
            if (timeline) {
                // Only a step with open loops has requests to record; a run left without one says so.
                if (p.multiProcess().stream().allMatch(m -> m.loads().isEmpty())) {
                    throw new IllegalArgumentException("--timeline records the open loops of the multi-process runs, and this run "
                            + "has none (profile " + profile + (noProcesses ? ", --no-processes" : "") + ")");
                }
                p = p.withMultiProcess(p.multiProcess().stream().map(m -> m.loads().isEmpty() ? m : m.withTimelines()).toList());
            }
            java.io.PrintWriter out = spec.commandLine().getOut();
            // Before anything runs: without a server the PostgreSQL steps are dropped, loudly; a
            // server that is named but does not answer is an error (a dry run does not contact it).
            PostgresTarget.Plan postgres = PostgresTarget.plan(p, PostgresTarget.configured(), !dryRun);
            if (postgres.banner() != null) {
                spec.commandLine().getErr().print(postgres.banner());
                spec.commandLine().getErr().flush();
            }
            p = postgres.profile();
            checkTimingOptionsReachAStep(p);
            if (resume && runId == null) {
                throw new IllegalArgumentException("--resume needs --run-id: the run folder to continue");
            }
            if (dryRun) {
                if (resume) {
                    p = RunFolder.remaining(output.resolve(runId), p);
                    out.println("resuming " + output.resolve(runId) + ": only the forks without a result there");
                }
                p.steps().forEach(s -> out.println("  " + s.describe()));
                p.openLoops().forEach(o -> out.println("  " + o.describe()));
                p.multiProcess().forEach(m -> out.println("  " + m.describe()));
                out.printf(Locale.ROOT, "%d forks, estimated %d min without stalls, at most about %d min%n", p.forkRuns(),
                        Math.round(p.estimatedSeconds() / 60), Math.round(p.worstCaseSeconds() / 60));
                if (Boolean.TRUE.equals(postgres.record().get("measured"))) {
                    out.printf(Locale.ROOT, "PostgreSQL: %d of these forks on %s (from %s; not contacted in a dry run)%n",
                            p.forkRuns(dev.leaselab.lease.LockingStrategy.Engine.POSTGRESQL), postgres.record().get("url"),
                            postgres.record().get("source"));
                }
                return 0;
            }
            String id = runId != null ? runId
                    : LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-" + p.name();
            return BenchRun.run(p, output.resolve(id), out, true, resume, postgres).complete() ? 0 : ERROR;
        }
    }

    /** Benchmarks by JMH's short name, as the reports print them. */
    static final class BenchmarkConverter implements CommandLine.ITypeConverter<BenchmarkId> {
        @Override
        public BenchmarkId convert(String value) {
            return BenchmarkId.of(value);
        }
    }

    /** {@code compare}: the regression gate. */
    @Command(name = "compare", mixinStandardHelpOptions = true,
            description = "Compares two runs (results folders or JMH JSON files) and prints a Markdown verdict; "
                    + "exits 1 if anything regressed.")
    static final class Compare implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", description = "the baseline: a results folder or a JMH JSON file")
        Path baseline;
        @Parameters(index = "1", description = "the current run: a results folder or a JMH JSON file")
        Path current;
        @Option(names = "--threshold", defaultValue = "0.10", description = "noise threshold as a fraction (default: ${DEFAULT-VALUE})")
        double threshold;
        @Option(names = "--confidence", defaultValue = "0.95", description = "confidence level of the interval (default: ${DEFAULT-VALUE})")
        double confidence;
        @Option(names = "--resamples", defaultValue = "4000", description = "bootstrap resamples (default: ${DEFAULT-VALUE})")
        int resamples;
        @Option(names = "--markdown", description = "also write the Markdown to this file")
        Path markdown;
        @Option(names = "--raw", description = "compare the raw scores, not the scores divided by the machine reference "
                + "measured around each iteration (runs without a reference are always compared raw)")
        boolean raw;
        @Option(names = "--force", description = "compare even if the runs were not measured alike (another profile, "
                + "other settings or thread counts, another SQLite or PostgreSQL version)")
        boolean force;
        @Option(names = "--confirmation", description = "a run that measured the current run's screened rows again "
                + "(what `gate` writes to <run>/confirmation): paired rows are then judged in two stages")
        Path confirmation;

        @Override
        public Integer call() throws IOException {
            GateStatistics stats = new GateStatistics(threshold, confidence, resamples, 42);
            Gate.Run base = Gate.Run.load(baseline);
            Gate.Run cur = Gate.Run.load(current);
            if (!measuredAlike(spec, base, baseline, cur, current, force)) {
                return ERROR;
            }
            Gate.Outcome outcome;
            if (confirmation == null) {
                outcome = Gate.compare(base, cur, stats, !raw);
            } else {
                Gate.Run again = Gate.Run.load(confirmation);
                if (!confirmationAlike(spec, cur, current, again, confirmation, force)) {
                    return ERROR;
                }
                outcome = Gate.confirm(base, cur, again, confirmation.toString(), stats);
            }
            return verdict(spec, outcome, baseline.toString(), current.toString(), markdown);
        }
    }

    /** Prints (and writes, if asked) the gate's Markdown; the exit code says whether anything regressed. */
    static int verdict(CommandSpec spec, Gate.Outcome outcome, String baseline, String current, Path markdown) throws IOException {
        String md = Gate.markdown(outcome, baseline, current);
        spec.commandLine().getOut().print(md);
        spec.commandLine().getOut().flush();
        if (markdown != null) {
            Files.writeString(markdown, md);
        }
        return outcome.regressed() ? REGRESSED : 0;
    }

    /** Whether two runs may be compared: measured alike, or {@code force}; the differences go to stderr. */
    static boolean measuredAlike(CommandSpec spec, Gate.Run base, Path baseline, Gate.Run cur, Path current, boolean force) {
        return alike(spec, Gate.differences(base.environment(), cur.environment()), baseline, current, force);
    }

    /**
     * Whether a confirmation run was measured like the run it confirms: the same settings except
     * the steps, which it narrows to the screened strategies and storages.
     */
    static boolean confirmationAlike(CommandSpec spec, Gate.Run cur, Path current, Gate.Run again, Path confirmation,
                                     boolean force) {
        List<String> differences = Gate.confirmationDifferences(cur.environment(), again.environment());
        return alike(spec, differences, current, confirmation, force);
    }

    private static boolean alike(CommandSpec spec, List<String> differences, Path a, Path b, boolean force) {
        if (differences.isEmpty()) {
            return true;
        }
        java.io.PrintWriter err = spec.commandLine().getErr();
        err.println((force ? "warning" : "error") + ": " + a + " and " + b
                + " were not measured alike" + (force ? " (compared anyway: --force)" : "") + ":");
        differences.forEach(d -> err.println("  " + d));
        if (!force) {
            err.println("Compare runs of one profile on one machine setup, or pass --force.");
        }
        err.flush();
        return force;
    }

    /**
     * {@code gate}: what a CI job runs. Measures the {@code gate} profile, screens its paired rows
     * against the baseline, measures the screened strategies on their storages once more (only
     * when something was screened: a few forks), and judges in two stages ({@link Gate#confirm}).
     */
    @Command(name = "gate", mixinStandardHelpOptions = true,
            description = "Runs the gate profile, confirms any screened row with a second measurement of it, and "
                    + "prints the Markdown verdict; exits 1 if a confirmed row regressed.")
    static final class GateCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Option(names = "--baseline", required = true, description = "a results folder of the gate profile to compare "
                + "with; repeat it to pool several runs into one baseline (each row then holds the groups of every run)")
        List<Path> baselines;
        @Option(names = "--output", defaultValue = "results", description = "the folder that holds run folders (default: ${DEFAULT-VALUE})")
        Path output;
        @Option(names = "--run-id", description = "the run folder's name (default: date-time-gate)")
        String runId;
        @Option(names = "--markdown", description = "also write the Markdown verdict to this file (it is always written to <run>/gate.md)")
        Path markdown;
        @Option(names = "--force", description = "compare even if the baseline was not measured alike")
        boolean force;
        @Option(names = "--strategies", split = ",", description = "gate only these strategies (the baseline must be narrowed alike)")
        List<LockingStrategy> strategies;
        @Option(names = "--storages", split = ",", description = "gate only these storage settings (the baseline must be narrowed alike)")
        List<Storage> storages;

        @Override
        public Integer call() throws Exception {
            java.io.PrintWriter out = spec.commandLine().getOut();
            Gate.Run base = Gate.Run.merged(baselines.stream().map(Gate.Run::load).toList());
            String baseline = String.join(" + ", baselines.stream().map(Path::toString).toList());
            if (base.paired().isEmpty()) {
                throw new IllegalArgumentException("the baseline " + baseline + " has no paired rows: make it with "
                        + "`run --profile gate` (or `gate`) on the same machine");
            }
            Profile profile = Profile.named("gate").filter(s -> true, st -> storages == null || storages.contains(st),
                    ls -> strategies == null || strategies.contains(ls));
            String id = runId != null ? runId
                    : LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-gate";
            Path folder = output.resolve(id);
            // Refused before minutes of measuring, where the plan already shows it: the baseline's
            // settings. Through text, as environment.json is read, so that numbers compare alike.
            JsonNode planned = Json.MAPPER.readTree(Json.MAPPER.writeValueAsString(java.util.Map.of("settings", profile.settings())));
            if (base.environment() != null && !alike(spec, Gate.settingsDifferences(base.environment(), planned),
                    baselines.get(0), Path.of("the planned run"), force)) {
                return ERROR;
            }
            if (!BenchRun.run(profile, folder, out, true).complete()) {
                return ERROR;
            }
            Gate.Run cur = Gate.Run.load(folder);
            if (!measuredAlike(spec, base, baselines.get(0), cur, folder, force)) {
                return ERROR;
            }
            Gate.Outcome outcome = GateRunner.confirm(profile, base, folder, out, GateStatistics.defaults());
            Files.writeString(folder.resolve("gate.md"), Gate.markdown(outcome, baseline, folder.toString()));
            return verdict(spec, outcome, baseline, folder.toString(), markdown);
        }
    }

    /** {@code report}: renders report.md and the charts again from a results folder. */
    @Command(name = "report", mixinStandardHelpOptions = true, description = "Renders report.md and charts of a results folder again.")
    static final class ReportCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", description = "the results folder")
        Path folder;

        @Override
        public Integer call() {
            Report.write(folder);
            spec.commandLine().getOut().println(folder.resolve("report.md"));
            return 0;
        }
    }

    /** {@code batches}: where GROUP_COMMIT's batches spent their time, from a Flight Recorder recording. */
    @Command(name = "batches", mixinStandardHelpOptions = true,
            description = {"Sums up the GROUP_COMMIT batch events of a Flight Recorder recording, per second and in all: "
                    + "batches, writes per batch, and the mean hand-off, gathering, begin, statements and commit of a batch.",
                    "Record with -XX:StartFlightRecording=filename=<file.jfr> on any JVM that runs a GROUP_COMMIT store "
                    + "(OpenLoopMain, MultiProcessMain's workers, a JMH fork through -jvmArgsAppend)."})
    static final class BatchesCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", description = "the recording (.jfr)")
        Path recording;

        @Override
        public Integer call() throws IOException {
            BatchProfile.print(BatchProfile.summarize(BatchProfile.read(recording)), spec.commandLine().getOut());
            return 0;
        }
    }
}
