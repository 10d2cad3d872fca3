package dev.leaselab.bench;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.runner.format.OutputFormat;

/**
 * JMH output for a long run: JMH's full log goes to a file, and the console gets one line as each
 * benchmark starts and one with its score as it ends, with a count and an estimate of the time left.
 */
final class ProgressFormat extends ForwardingOutputFormat {

    private final OutputFormat log;
    private final PrintWriter console;
    private final int total;
    private final double secondsPerFork;
    private final long startNanos;
    private int started;

    ProgressFormat(OutputFormat log, PrintWriter console, int total, double secondsPerFork, int alreadyStarted, long startNanos) {
        super(log);
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
    public void flush() {
        log.flush();
        console.flush();
    }

    /** Flushes and leaves the log open: the runner calls this after every step, and the log is the whole run's. */
    @Override
    public void close() {
        log.flush();
    }
}
