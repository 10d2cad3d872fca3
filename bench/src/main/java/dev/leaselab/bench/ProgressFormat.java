package dev.leaselab.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Collection;
import java.util.Locale;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.format.OutputFormat;

/**
 * JMH output for a long run: JMH's full log goes to a file, and the console gets one line as each
 * benchmark starts and one with its score as it ends, with a count and an estimate of the time left.
 */
final class ProgressFormat implements OutputFormat {

    private final OutputFormat log;
    private final PrintWriter console;
    private final int total;
    private final double secondsPerFork;
    private final long startNanos;
    private int started;

    ProgressFormat(OutputFormat log, PrintWriter console, int total, double secondsPerFork, int alreadyStarted, long startNanos) {
        this.log = log;
        this.console = console;
        this.total = total;
        this.secondsPerFork = secondsPerFork;
        this.started = alreadyStarted;
        this.startNanos = startNanos;
    }

    int started() {
        return started;
    }

    @Override
    public void startBenchmark(BenchmarkParams params) {
        started++;
        long elapsed = (System.nanoTime() - startNanos) / 1_000_000_000L;
        // The static estimate until a few benchmarks have run, then the pace actually observed.
        double pace = started > 3 ? (double) elapsed / (started - 1) : secondsPerFork * Math.max(1, params.getForks());
        long left = Math.round((total - started + 1) * pace);
        StringBuilder p = new StringBuilder();
        for (String k : params.getParamsKeys()) {
            p.append(' ').append(k).append('=').append(params.getParam(k));
        }
        console.printf(Locale.ROOT, "[%d/%d %s elapsed, ~%s left] %s %s threads=%d%s%n", started, total,
                clock(elapsed), clock(left), BenchmarkId.shortName(params.getBenchmark()), params.getMode().shortLabel(),
                params.getThreads(), p);
        log.startBenchmark(params);
    }

    @Override
    public void endBenchmark(BenchmarkResult result) {
        if (result != null) {
            Result<?> primary = result.getPrimaryResult();
            StringBuilder aux = new StringBuilder();
            result.getSecondaryResults().forEach((name, r) -> {
                if (name.equals("won") || name.equals("failed")) {
                    aux.append(String.format(Locale.ROOT, " %s=%s", name, Report.number(r.getScore())));
                }
            });
            console.printf(Locale.ROOT, "    -> %s %s%s%n", Report.number(primary.getScore()), primary.getScoreUnit(), aux);
        }
        log.endBenchmark(result);
    }

    private static String clock(long seconds) {
        Duration d = Duration.ofSeconds(Math.max(0, seconds));
        return String.format(Locale.ROOT, "%d:%02d", d.toMinutes(), d.toSecondsPart());
    }

    @Override
    public void iteration(BenchmarkParams benchParams, IterationParams params, int iteration) {
        log.iteration(benchParams, params, iteration);
    }

    @Override
    public void iterationResult(BenchmarkParams benchParams, IterationParams params, int iteration, IterationResult data) {
        log.iterationResult(benchParams, params, iteration, data);
    }

    @Override
    public void startRun() {
        log.startRun();
    }

    @Override
    public void endRun(Collection<RunResult> result) {
        log.endRun(result);
    }

    @Override
    public void print(String s) {
        log.print(s);
    }

    @Override
    public void println(String s) {
        log.println(s);
    }

    @Override
    public void flush() {
        log.flush();
        console.flush();
    }

    @Override
    public void close() {
        log.flush();
    }

    @Override
    public void verbosePrintln(String s) {
        log.verbosePrintln(s);
    }

    @Override
    public void write(int b) {
        log.write(b);
    }

    @Override
    public void write(byte[] b) throws IOException {
        log.write(b);
    }
}
