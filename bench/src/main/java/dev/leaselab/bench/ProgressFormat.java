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
    private final double[] planned;
    private final double plannedAfter;
    private final long startNanos;
    private int started;

    /**
     * @param planned the seconds each benchmark (one parameter combination, all its forks) of the
     *     run should take, in the order they run: a paired benchmark of three forks takes many
     *     times what a one-fork benchmark does, so a count of benchmarks is no clock
     * @param plannedAfter the seconds of what follows the JMH forks (open loops, processes)
     * @param alreadyStarted the benchmarks that earlier steps of this run started
     */
    ProgressFormat(OutputFormat log, PrintWriter console, double[] planned, double plannedAfter, int alreadyStarted,
                   long startNanos) {
        super(log);
        this.log = log;
        this.console = console;
        this.planned = planned.clone();
        this.plannedAfter = plannedAfter;
        this.started = alreadyStarted;
        this.startNanos = startNanos;
    }

    /**
     * The seconds left when benchmark number {@code started} (from 1) starts, {@code elapsed}
     * seconds into the run: what the plan gives for it, the benchmarks after it and what follows
     * the forks, scaled by how the run has kept to the plan so far (the plan alone for the first
     * three benchmarks, whose pace says little).
     */
    static long secondsLeft(double[] planned, double plannedAfter, int started, long elapsed) {
        double done = 0;
        double left = plannedAfter;
        for (int i = 0; i < planned.length; i++) {
            if (i < started - 1) {
                done += planned[i];
            } else {
                left += planned[i];
            }
        }
        double pace = started > 3 && done > 0 && elapsed > 0 ? elapsed / done : 1;
        return Math.round(left * pace);
    }

    int started() {
        return started;
    }

    @Override
    public void startBenchmark(BenchmarkParams params) {
        started++;
        long elapsed = (System.nanoTime() - startNanos) / 1_000_000_000L;
        long left = secondsLeft(planned, plannedAfter, started, elapsed);
        StringBuilder p = new StringBuilder();
        for (String k : params.getParamsKeys()) {
            p.append(' ').append(k).append('=').append(params.getParam(k));
        }
        console.printf(Locale.ROOT, "[%d/%d %s elapsed, ~%s left] %s %s threads=%d%s%n", started, planned.length,
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
