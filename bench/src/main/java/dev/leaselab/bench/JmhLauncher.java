package dev.leaselab.bench;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.openjdk.jmh.Main;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Defaults;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.FileUtils;
import org.openjdk.jmh.util.UnCloseablePrintStream;
import org.openjdk.jmh.util.Utils;

/**
 * The main class of {@code benchmarks.jar}: JMH's own command line, run so that a strategy only
 * meets the storages of its own engine. JMH runs the cross product of the {@code strategy} and
 * {@code storage} parameters, and a PostgreSQL strategy on a SQLite file is no benchmark (its fork
 * fails in setup). So this runs JMH once per engine, each time with both parameters narrowed to
 * that engine's values (of those given with {@code -p}, or all of them), and merges the passes: one
 * summary table at the end and one result file for {@code -rf} / {@code -rff}, each pass printing
 * its own progress. A benchmark with neither parameter runs in the first pass only. The values come
 * from {@link LockingStrategy#of} and {@link Storage#of}, so a new constant is measured with no
 * other change. Without a PostgreSQL server ({@link PostgresTarget}) the PostgreSQL pass is dropped
 * under a banner, as the runner drops its PostgreSQL steps. Help and the listings ({@code -h},
 * {@code -l}, {@code -lp}, {@code -lprof}, {@code -lrf}) are JMH's own ({@link Main}).
 * <pre>
 * java -jar bench/target/benchmarks.jar ClaimBenchmark.hotJob -t 8 -p storage=WAL_FULL
 * java -cp bench/target/benchmarks.jar org.openjdk.jmh.Main ...   # JMH's cross product, unnarrowed
 * </pre>
 */
public final class JmhLauncher {

    private JmhLauncher() {}

    public static void main(String[] args) throws IOException {
        CommandLineOptions options;
        try {
            options = new CommandLineOptions(args);
        } catch (CommandLineOptionException e) {
            Main.main(args); // prints JMH's own message about the command line and exits
            return;
        }
        if (options.shouldHelp() || options.shouldList() || options.shouldListWithParams() || options.shouldListProfilers()
                || options.shouldListResultFormats()) {
            Main.main(args);
            return;
        }
        int code = run(args, options, System.err);
        if (code != 0) {
            System.exit(code);
        }
    }

    /**
     * One call of JMH's runner.
     *
     * @param engine the engine of the pass's values; null for a pass of benchmarks that have neither parameter
     * @param benchmarks JMH's full names of the benchmarks the pass runs
     * @param strategies the {@code strategy} values, or empty to leave the parameter alone (no benchmark
     *     of the pass has it)
     * @param storages the {@code storage} values, or empty likewise
     */
    record Pass(Engine engine, List<String> benchmarks, List<String> strategies, List<String> storages) {}

    /**
     * The passes for the benchmarks the command line matched.
     *
     * @param paramsOf each matched benchmark (JMH's full name) with the names of its parameters
     * @param strategies the {@code -p strategy} values, or null for all
     * @param storages the {@code -p storage} values, or null for all
     * @param engines the engines that can be measured (PostgreSQL only with a server)
     * @throws IllegalArgumentException for a value that is no strategy or no storage
     */
    static List<Pass> plan(Map<String, Set<String>> paramsOf, Collection<String> strategies, Collection<String> storages,
                           Set<Engine> engines) {
        List<String> wantedStrategies = known(strategies, ForkKey.STRATEGY, LockingStrategy.values());
        List<String> wantedStorages = known(storages, ForkKey.STORAGE, Storage.values());
        List<Pass> passes = new ArrayList<>();
        for (Engine engine : Engine.values()) {
            if (!engines.contains(engine)) {
                continue;
            }
            List<String> st = narrow(wantedStrategies, LockingStrategy.of(engine));
            List<String> sto = narrow(wantedStorages, Storage.of(engine));
            List<String> benchmarks = paramsOf.entrySet().stream()
                    .filter(b -> takesEngine(b.getValue()))
                    .filter(b -> (!b.getValue().contains(ForkKey.STRATEGY) || !st.isEmpty())
                            && (!b.getValue().contains(ForkKey.STORAGE) || !sto.isEmpty()))
                    .map(Map.Entry::getKey).toList();
            if (!benchmarks.isEmpty()) {
                passes.add(new Pass(engine, benchmarks, st, sto));
            }
        }
        List<String> neither = paramsOf.entrySet().stream().filter(b -> !takesEngine(b.getValue())).map(Map.Entry::getKey)
                .toList();
        if (!neither.isEmpty()) {
            if (passes.isEmpty()) {
                passes.add(new Pass(null, neither, List.of(), List.of()));
            } else {
                Pass first = passes.get(0);
                List<String> benchmarks = new ArrayList<>(first.benchmarks());
                benchmarks.addAll(neither);
                passes.set(0, new Pass(first.engine(), benchmarks, first.strategies(), first.storages()));
            }
        }
        return passes;
    }

    private static boolean takesEngine(Set<String> params) {
        return params.contains(ForkKey.STRATEGY) || params.contains(ForkKey.STORAGE);
    }

    /** The values given (in their order), each checked against the enum; all of the enum for none given. */
    private static List<String> known(Collection<String> given, String param, Enum<?>[] all) {
        List<String> names = Arrays.stream(all).map(Enum::name).toList();
        if (given == null) {
            return names;
        }
        for (String v : given) {
            if (!names.contains(v)) {
                throw new IllegalArgumentException("-p " + param + "=" + v + ": no such " + param + "; the values are "
                        + String.join(",", names));
            }
        }
        return List.copyOf(new LinkedHashSet<>(given));
    }

    private static List<String> narrow(List<String> wanted, List<? extends Enum<?>> ofEngine) {
        Set<String> engine = ofEngine.stream().map(Enum::name).collect(Collectors.toSet());
        return wanted.stream().filter(engine::contains).toList();
    }

    /** Runs the passes of a parsed command line; returns the exit code. */
    static int run(String[] args, CommandLineOptions options, PrintStream err) {
        Map<String, Set<String>> paramsOf = matched(options);
        if (paramsOf.isEmpty()) {
            err.println("No matching benchmarks. Miss-spelled regexp?");
            err.println("Use " + VerboseMode.EXTRA + " verbose mode to debug the pattern matching.");
            return 1;
        }
        List<Pass> passes;
        try {
            passes = plan(paramsOf, options, EnumSet.allOf(Engine.class));
            if (!postgresConfigured(options) && passes.stream().anyMatch(p -> p.engine() == Engine.POSTGRESQL)) {
                err.print(PostgresTarget.banner("PostgreSQL NOT measured: no server: neither -D" + PostgresTarget.URL_PROPERTY
                        + " nor " + PostgresTarget.URL_ENVIRONMENT + " is set; the " + Storage.POSTGRESQL
                        + " storage is left out.", "To measure it, " + PostgresTarget.HOW_TO + "."));
                passes = plan(paramsOf, options, EnumSet.of(Engine.SQLITE));
            }
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 1;
        }
        if (passes.isEmpty()) {
            err.println("Nothing to run: -p " + ForkKey.STRATEGY + " and -p " + ForkKey.STORAGE
                    + " leave no strategy with a storage of its own engine that can be measured here.");
            return 1;
        }
        String resultFile = null;
        ResultFormatType resultFormat = options.getResultFormat().orElse(Defaults.RESULT_FORMAT);
        if (options.getResult().hasValue() || options.getResultFormat().hasValue()) {
            resultFile = options.getResult().orElse(
                    Defaults.RESULT_FILE_PREFIX + resultFormat.toString().toLowerCase(Locale.ROOT));
            try {
                // As JMH does: a result file that cannot be written fails the run before it starts.
                FileUtils.touch(resultFile);
            } catch (IOException e) {
                err.println("ERROR: Can not touch the result file: " + resultFile);
                return 1;
            }
        }
        OutputFormat console = outputFormat(options);
        OnePassFormat merged = new OnePassFormat(console);
        List<RunResult> results = new ArrayList<>();
        try {
            for (Pass pass : passes) {
                results.addAll(new Runner(options(args, pass, paramsOf.keySet()), merged).run());
            }
        } catch (RunnerException | CommandLineOptionException e) {
            err.print("ERROR: ");
            e.printStackTrace(err);
            return 1;
        }
        merged.endAll(results);
        if (resultFile != null) {
            ResultFormatFactory.getInstance(resultFormat, resultFile).writeOut(results);
            console.println("");
            console.println("Benchmark result is saved to " + resultFile);
        }
        console.flush();
        console.close();
        return 0;
    }

    /** The user's options for one pass: the other benchmarks excluded, the two parameters narrowed, no result file. */
    static Options options(String[] args, Pass pass, Set<String> matched) throws CommandLineOptionException {
        ChainedOptionsBuilder b = new OptionsBuilder().parent(new WithoutResultFile(args));
        for (String name : matched) {
            if (!pass.benchmarks().contains(name)) {
                b.exclude("^" + Pattern.quote(name) + "$");
            }
        }
        if (!pass.strategies().isEmpty()) {
            b.param(ForkKey.STRATEGY, pass.strategies().toArray(String[]::new));
        }
        if (!pass.storages().isEmpty()) {
            b.param(ForkKey.STORAGE, pass.storages().toArray(String[]::new));
        }
        return b.build();
    }

    /** The benchmarks the includes and excludes select, each with the names of its parameters, as JMH would select them. */
    private static Map<String, Set<String>> matched(Options options) {
        List<String> includes = options.getIncludes().isEmpty() ? List.of(Defaults.INCLUDE_BENCHMARKS) : options.getIncludes();
        OutputFormat silent = OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT);
        Map<String, Set<String>> paramsOf = new LinkedHashMap<>();
        for (BenchmarkListEntry e : BenchmarkList.defaultList().find(silent, includes, options.getExcludes())) {
            Set<String> params = paramsOf.computeIfAbsent(e.getUsername(), k -> new LinkedHashSet<>());
            if (e.getParams().hasValue()) {
                params.addAll(e.getParams().get().keySet());
            }
        }
        return paramsOf;
    }

    /** A server named to this JVM, or to the forks with {@code -jvmArgs*}. */
    private static boolean postgresConfigured(Options options) {
        if (PostgresTarget.configured().isPresent()) {
            return true;
        }
        String property = "-D" + PostgresTarget.URL_PROPERTY + "=";
        return List.of(options.getJvmArgs(), options.getJvmArgsAppend(), options.getJvmArgsPrepend()).stream()
                .flatMap(o -> o.orElse(List.of()).stream()).anyMatch(a -> a.startsWith(property) && a.length() > property.length());
    }

    /** JMH's human-readable output, to {@code -o} or the console, as JMH's runner opens it. */
    private static OutputFormat outputFormat(Options options) {
        PrintStream out;
        try {
            out = options.getOutput().hasValue() ? new PrintStream(options.getOutput().get())
                    : new UnCloseablePrintStream(System.out, Utils.guessConsoleEncoding());
        } catch (FileNotFoundException | UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
        return OutputFormatFactory.createFormatInstance(out, options.verbosity().orElse(Defaults.VERBOSITY));
    }

    /** The command line as JMH parsed it, but without a result file: the launcher writes one for all passes. */
    static final class WithoutResultFile extends CommandLineOptions {

        private static final long serialVersionUID = 1L;

        WithoutResultFile(String... args) throws CommandLineOptionException {
            super(args);
        }

        @Override
        public org.openjdk.jmh.util.Optional<String> getResult() {
            return org.openjdk.jmh.util.Optional.none();
        }

        @Override
        public org.openjdk.jmh.util.Optional<ResultFormatType> getResultFormat() {
            return org.openjdk.jmh.util.Optional.none();
        }
    }

    /**
     * The output of several runner calls as one run's: the start of the run is shown once, and the
     * summary of all results once, at the end ({@link #endAll}); each call's close only flushes.
     */
    static final class OnePassFormat extends ForwardingOutputFormat {

        private final OutputFormat out;
        private boolean started;

        OnePassFormat(OutputFormat out) {
            super(out);
            this.out = out;
        }

        @Override
        public void startRun() {
            if (!started) {
                started = true;
                out.startRun();
            }
        }

        @Override
        public void endRun(Collection<RunResult> result) {
            // the summary comes once, in endAll
        }

        @Override
        public void close() {
            out.flush();
        }

        void endAll(Collection<RunResult> results) {
            out.endRun(results);
        }
    }

    /** The passes of a command line, against the benchmarks of this jar. */
    static List<Pass> plan(CommandLineOptions options, Set<Engine> engines) {
        return plan(matched(options), options, engines);
    }

    private static List<Pass> plan(Map<String, Set<String>> paramsOf, Options options, Set<Engine> engines) {
        return plan(paramsOf, options.getParameter(ForkKey.STRATEGY).orElse(null),
                options.getParameter(ForkKey.STORAGE).orElse(null), engines);
    }
}
