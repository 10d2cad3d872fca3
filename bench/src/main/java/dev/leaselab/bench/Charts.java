package dev.leaselab.bench;

import dev.leaselab.bench.BenchResults.Row;
import dev.leaselab.lease.LockingStrategy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.openjdk.jmh.annotations.Mode;

/**
 * The charts of a report, as PNG files in {@code charts/}: throughput against threads per
 * strategy for each benchmark and storage, the ratio to the floor, latency percentiles,
 * outcomes (won / lost / refused / failed) and fairness.
 */
final class Charts {

    private static final int WIDTH = 900;
    private static final int HEIGHT = 520;

    private Charts() {}

    /** Writes every chart the rows allow and returns their paths relative to {@code folder}. */
    static List<String> write(Path folder, List<Row> rows) {
        System.setProperty("java.awt.headless", "true");
        Path dir = folder.resolve("charts");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + dir, e);
        }
        List<String> written = new ArrayList<>();
        List<Row> thrpt = rows.stream().filter(r -> r.mode() == Mode.Throughput).toList();
        List<Row> sample = rows.stream().filter(r -> r.mode() == Mode.SampleTime).toList();
        for (Storage storage : storages(rows)) {
            List<Row> inStorage = thrpt.stream().filter(r -> r.storage() == storage).toList();
            for (BenchmarkId benchmark : benchmarks(inStorage)) {
                if (benchmark == BenchmarkId.FLOOR || benchmark == BenchmarkId.PAIRED) {
                    continue;
                }
                List<Row> b = inStorage.stream().filter(r -> r.benchmark() == benchmark).toList();
                written.add(save(dir, "throughput-" + benchmark.toString().replace('.', '-') + "-" + storage,
                        throughput(benchmark + " (" + storage + ")", b, floors(inStorage, benchmark))));
            }
            List<Row> hot = inStorage.stream().filter(r -> r.benchmark() == BenchmarkId.CLAIM_HOT).toList();
            if (!hot.isEmpty() && hot.stream().anyMatch(r -> Report.floorOf(thrpt, r).isPresent())) {
                written.add(save(dir, "floor-ratio-" + storage, floorRatio(storage, hot, thrpt)));
            }
            if (!hot.isEmpty()) {
                written.add(save(dir, "outcomes-" + storage, outcomes(storage, hot)));
                written.add(save(dir, "fairness-" + storage, fairness(storage, hot)));
            }
            List<Row> lat = sample.stream().filter(r -> r.storage() == storage).toList();
            for (int threads : Report.threadCounts(lat)) {
                written.add(save(dir, "latency-" + storage + "-t" + threads,
                        latency(storage, threads, lat.stream().filter(r -> r.threads() == threads).toList())));
            }
        }
        return written.stream().map(p -> "charts/" + p).toList();
    }

    /** The claim charts show the floor too: it is the least a claim has to do. */
    private static List<Row> floors(List<Row> inStorage, BenchmarkId benchmark) {
        return benchmark.type() == ClaimBenchmark.class
                ? inStorage.stream().filter(r -> r.benchmark() == BenchmarkId.FLOOR).toList() : List.of();
    }

    private static XYChart throughput(String title, List<Row> rows, List<Row> floor) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle("threads").yAxisTitle("ops/s (JMH score)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        for (LockingStrategy strategy : strategies(rows)) {
            List<Row> s = Report.sorted(rows.stream().filter(r -> r.strategy() == strategy).toList());
            chart.addSeries(strategy.name(), s.stream().mapToDouble(Row::threads).toArray(), s.stream().mapToDouble(Row::score).toArray());
        }
        if (!floor.isEmpty()) {
            List<Row> f = Report.sorted(floor);
            chart.addSeries("floor (plain UPDATE)", f.stream().mapToDouble(Row::threads).toArray(),
                    f.stream().mapToDouble(Row::score).toArray());
        }
        return chart;
    }

    private static CategoryChart floorRatio(Storage storage, List<Row> hot, List<Row> thrpt) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Claim (hot job) / floor, " + storage).xAxisTitle("threads").yAxisTitle("ratio of JMH scores").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        List<String> threads = Report.threadCounts(hot).stream().map(String::valueOf).toList();
        for (LockingStrategy strategy : strategies(hot)) {
            List<Double> ys = new ArrayList<>();
            for (String t : threads) {
                Optional<Row> r = hot.stream().filter(x -> x.strategy() == strategy && x.threads() == Integer.parseInt(t))
                        .findFirst();
                ys.add(r.flatMap(x -> Report.floorOf(thrpt, x).map(f -> x.score() / f.score())).orElse(0.0));
            }
            chart.addSeries(strategy.name(), threads, ys);
        }
        return chart;
    }

    private static CategoryChart outcomes(Storage storage, List<Row> hot) {
        int threads = Report.threadCounts(hot).stream().max(Integer::compare).orElse(1);
        List<Row> rows = Report.sorted(hot.stream().filter(r -> r.threads() == threads && r.tally() != null).toList());
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Claim (hot job) outcomes, " + storage + ", " + threads + " threads, measurement iterations")
                .xAxisTitle("strategy").yAxisTitle("operations (log scale; 0 drawn as 0.5)").build();
        // Log scale, side by side: a handful of failures next to tens of thousands of wins must stay visible.
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisMin(0.5);
        chart.getStyler().setXAxisLabelRotation(20);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        List<String> names = rows.stream().map(r -> r.strategy().name()).toList();
        if (names.isEmpty()) {
            chart.addSeries("no tally", List.of("-"), List.of(0.5));
            return chart;
        }
        chart.addSeries("won", names, rows.stream().map(r -> visible(r.tally().won())).toList());
        chart.addSeries("lost", names, rows.stream().map(r -> visible(r.tally().lost())).toList());
        chart.addSeries("refused", names, rows.stream().map(r -> visible(r.tally().refused())).toList());
        chart.addSeries("failed", names, rows.stream().map(r -> visible(r.tally().failed())).toList());
        return chart;
    }

    private static Number visible(long count) {
        return count > 0 ? count : 0.5;
    }

    private static XYChart fairness(Storage storage, List<Row> hot) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Claim (hot job) fairness, " + storage).xAxisTitle("threads").yAxisTitle("Jain's index").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisMax(1.05);
        for (LockingStrategy strategy : strategies(hot)) {
            List<Row> s = Report.sorted(hot.stream().filter(r -> r.strategy() == strategy && r.tally() != null).toList());
            if (!s.isEmpty()) {
                chart.addSeries(strategy.name(), s.stream().mapToDouble(Row::threads).toArray(),
                        s.stream().mapToDouble(r -> r.tally().jain()).toArray());
            }
        }
        return chart;
    }

    private static CategoryChart latency(Storage storage, int threads, List<Row> rows) {
        String unit = rows.isEmpty() ? "" : rows.get(0).unit();
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Latency percentiles, " + storage + ", " + threads + " threads").xAxisTitle("percentile")
                .yAxisTitle(unit + " (log scale)").build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        List<String> labels = List.of("p50", "p99", "p99.9", "max");
        double smallest = Double.POSITIVE_INFINITY;
        for (Row r : rows) {
            for (double p : Report.PERCENTILES) {
                double v = Report.pct(r, p);
                if (v > 0) {
                    smallest = Math.min(smallest, v);
                }
            }
        }
        // Bars on a log axis need a floor above zero: the power of ten below the smallest value.
        double axisMin = Double.isInfinite(smallest) ? 1e-3 : Math.pow(10, Math.floor(Math.log10(smallest)));
        chart.getStyler().setYAxisMin(axisMin);
        for (Row r : Report.sorted(rows)) {
            List<Double> ys = new ArrayList<>();
            for (double p : Report.PERCENTILES) {
                double v = Report.pct(r, p);
                ys.add(Double.isNaN(v) || v <= axisMin ? axisMin : v);
            }
            String name = r.benchmark() == BenchmarkId.FLOOR ? "floor" : r.strategy().name();
            chart.addSeries(name, labels, ys);
        }
        return chart;
    }

    private static String save(Path dir, String name, Chart<?, ?> chart) {
        try {
            BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the chart " + name, e);
        }
        return name + ".png";
    }

    /** The storages of the rows, in the order of the enum. */
    private static Set<Storage> storages(List<Row> rows) {
        Set<Storage> s = new TreeSet<>();
        rows.forEach(r -> s.add(r.storage()));
        return s;
    }

    private static Set<BenchmarkId> benchmarks(List<Row> rows) {
        Set<BenchmarkId> s = new LinkedHashSet<>();
        rows.forEach(r -> s.add(r.benchmark()));
        return s;
    }

    private static Set<LockingStrategy> strategies(List<Row> rows) {
        Set<LockingStrategy> s = new LinkedHashSet<>();
        Report.sorted(rows).forEach(r -> {
            if (r.strategy() != null) {
                s.add(r.strategy());
            }
        });
        return s;
    }
}
