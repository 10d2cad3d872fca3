package dev.leaselab.bench;

import dev.leaselab.bench.PairedClaimBenchmark.Slice;
import dev.leaselab.lease.LockingStrategy;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Mode;

/** Synthetic gate runs for the gate's tests: what a paired gate run holds, with noise of a known size. */
final class SyntheticGateRuns {

    private SyntheticGateRuns() {}

    /**
     * Every SQLite strategy on both WAL storages, {@code groups} groups a row, the floor at 10k/s
     * and each claim slice lognormal around 0.8 of it with {@code noise} as the standard deviation
     * of its logarithm; {@code slowed}'s claim slices (if any) run at {@code factor} of that.
     */
    static Gate.Run run(SplittableRandom random, LockingStrategy slowed, double factor, int groups, double noise) {
        Map<ForkKey, PairedRatios.Row> rows = new LinkedHashMap<>();
        for (Storage storage : List.of(Storage.WAL_NORMAL, Storage.WAL_FULL)) {
            for (LockingStrategy s : LockingStrategy.of(LockingStrategy.Engine.SQLITE)) {
                double speed = s == slowed ? factor : 1.0;
                List<PairedRatios.Group> list = new ArrayList<>();
                for (int g = 0; g < groups; g++) {
                    Map<Slice, PairedRatios.SliceResult> slices = new EnumMap<>(Slice.class);
                    double floor = 10_000;
                    slices.put(Slice.FLOOR_ALL, result(floor));
                    slices.put(Slice.FLOOR_ONE, result(floor));
                    slices.put(Slice.CLAIM_ALL, result(floor * 0.8 * speed * Math.exp(noise * gaussian(random))));
                    slices.put(Slice.CLAIM_ONE, result(floor * 0.8 * speed * Math.exp(noise * gaussian(random))));
                    list.add(new PairedRatios.Group(1, g, slices));
                }
                rows.put(new ForkKey(BenchmarkId.PAIRED, Mode.Throughput, 8, storage, s), new PairedRatios.Row(list));
            }
        }
        return new Gate.Run(List.of(), rows, null);
    }

    private static PairedRatios.SliceResult result(double perSecond) {
        return new PairedRatios.SliceResult(Math.round(perSecond * 0.15), 0, 0, 0.15, 1);
    }

    private static double gaussian(SplittableRandom random) {
        // Box-Muller: SplittableRandom has no nextGaussian on Java 17.
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }
}
