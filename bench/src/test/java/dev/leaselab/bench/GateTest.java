package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.bench.GateStatistics.Verdict;
import dev.leaselab.lease.LockingStrategy;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.ProfilerException;
import org.openjdk.jmh.results.Result;

/**
 * The gate over whole rows, with {@link MachineReference}'s measurement around each iteration, on
 * synthetic runs modelled on this machine: one CPU runs SQLite at 0.7 of the other's speed, and a
 * thread spends whole iterations on one or the other. Each iteration's claims and reference move
 * with the CPU it ran on. The raw comparison ({@code byReference = false}) is the negative
 * control: on the same runs it must be fooled, or the runs would not show what the reference is for.
 */
class GateTest {

    private static final double FAST = 1.0;
    private static final double SLOW = 0.7;
    private final GateStatistics stats = GateStatistics.defaults();
    private final SplittableRandom random = new SplittableRandom(7);

    /** A throughput row: per iteration, claims and reference at the CPU speed given, with 2% noise each. */
    private BenchResults.Row throughput(double storeSpeed, double... cpu) {
        double[] samples = new double[cpu.length];
        double[] reference = new double[cpu.length];
        for (int i = 0; i < cpu.length; i++) {
            samples[i] = 50_000 * storeSpeed * cpu[i] * noise();
            reference[i] = 55_000 * cpu[i] * noise();
        }
        return row("ops/s", samples, reference);
    }

    /** A time row (us/op) at the CPU speed given. */
    private BenchResults.Row time(double storeSpeed, double... cpu) {
        double[] samples = new double[cpu.length];
        double[] reference = new double[cpu.length];
        for (int i = 0; i < cpu.length; i++) {
            samples[i] = 20 / (storeSpeed * cpu[i]) * noise();
            reference[i] = 55_000 * cpu[i] * noise();
        }
        return row("us/op", samples, reference);
    }

    private double noise() {
        return 1 + 0.02 * (2 * random.nextDouble() - 1);
    }

    private static BenchResults.Row row(String unit, double[] samples, double[] reference) {
        double score = java.util.Arrays.stream(samples).average().orElseThrow();
        ForkKey key = new ForkKey(BenchmarkId.CLAIM_HOT, unit.equals("ops/s") ? Mode.Throughput : Mode.SampleTime, 1,
                Storage.WAL_NORMAL, LockingStrategy.CONDITIONAL_UPDATE);
        return new BenchResults.Row(key, unit, score, Double.NaN, samples, Map.of(), null, reference);
    }

    private static double[] eight(double cpu) {
        double[] xs = new double[8];
        java.util.Arrays.fill(xs, cpu);
        return xs;
    }

    private Gate.Line line(BenchResults.Row baseline, BenchResults.Row current, boolean byReference) {
        Gate.Outcome o = Gate.compare(List.of(baseline), List.of(current), stats, byReference);
        assertEquals(1, o.lines().size());
        return o.lines().get(0);
    }

    @Test
    void theSameStoreOnTheSlowerCpuIsNotARegressionByReferenceButIsRaw() {
        BenchResults.Row a = throughput(1.0, eight(FAST));
        BenchResults.Row aOnSlowCpu = throughput(1.0, eight(SLOW));
        Gate.Line byReference = line(a, aOnSlowCpu, true);
        assertTrue(byReference.byReference());
        assertEquals(SLOW, byReference.machine(), 0.03, "the machine column shows the CPU's speed");
        assertEquals(1.0, byReference.comparison().ratio(), 0.03);
        assertEquals(Verdict.UNCHANGED, byReference.comparison().verdict());
        Gate.Line raw = line(a, aOnSlowCpu, false);
        assertFalse(raw.byReference());
        assertEquals(Verdict.REGRESSED, raw.comparison().verdict(), "the control: raw scores take the CPU for the store");
    }

    @Test
    void aQuarterSlowerStoreOnTheFasterCpuIsARegressionByReferenceButNotRaw() {
        BenchResults.Row aOnSlowCpu = throughput(1.0, eight(SLOW));
        BenchResults.Row slowedOnFastCpu = throughput(0.78, eight(FAST));
        Gate.Line byReference = line(aOnSlowCpu, slowedOnFastCpu, true);
        assertEquals(0.78, byReference.comparison().ratio(), 0.03);
        assertEquals(Verdict.REGRESSED, byReference.comparison().verdict());
        assertNotEquals(Verdict.REGRESSED, line(aOnSlowCpu, slowedOnFastCpu, false).comparison().verdict(),
                "the control: raw scores hide the slowdown behind the faster CPU");
    }

    @Test
    void iterationsThatMoveBetweenTheCpusAreComparedIterationByIteration() {
        double[] mixed = {FAST, SLOW, SLOW, FAST, FAST, FAST, SLOW, FAST};
        double[] otherMix = {SLOW, SLOW, SLOW, SLOW, FAST, SLOW, SLOW, SLOW};
        assertEquals(Verdict.UNCHANGED, line(throughput(1.0, mixed), throughput(1.0, otherMix), true).comparison().verdict());
        assertEquals(Verdict.REGRESSED, line(throughput(1.0, mixed), throughput(0.78, otherMix), true).comparison().verdict());
    }

    @Test
    void aTimePerOperationIsMultipliedByTheReferenceSoItsDirectionStays() {
        Gate.Line same = line(time(1.0, eight(FAST)), time(1.0, eight(SLOW)), true);
        assertEquals(1.0, same.comparison().ratio(), 0.03);
        assertEquals(Verdict.UNCHANGED, same.comparison().verdict());
        Gate.Line slowed = line(time(1.0, eight(SLOW)), time(0.78, eight(FAST)), true);
        assertEquals(0.78, slowed.comparison().ratio(), 0.03, "speed ratio below 1 for a longer time per operation");
        assertEquals(Verdict.REGRESSED, slowed.comparison().verdict());
    }

    @Test
    void aRegressedGeomeanIsShownAsASummaryAndDoesNotFailTheGate() {
        GateStatistics.Comparison lower = new GateStatistics.Comparison(0.884, 0.842, 0.915, Double.NaN,
                Verdict.REGRESSED, new double[0]);
        Gate.Outcome o = new Gate.Outcome(List.of(), List.of(), lower, List.of(), List.of(), 0.10, 0.05,
                GateStatistics.Test.values()[0]);
        assertFalse(o.regressed());
        String md = Gate.markdown(o, "a", "b");
        assertTrue(md.contains("## Benchmark gate: passed"), md);
        String geomean = md.lines().filter(l -> l.contains("**geomean**")).findFirst().orElseThrow();
        assertTrue(geomean.contains("not part of the verdict") && geomean.endsWith("| regressed |"), geomean);
        assertFalse(md.contains("**regressed**"), md);
    }

    @Test
    void aRunWithoutReferenceIsComparedRawAndSaysSo() {
        BenchResults.Row withReference = throughput(1.0, eight(FAST));
        BenchResults.Row older = row("ops/s", withReference.samples().clone(), new double[0]);
        Gate.Outcome o = Gate.compare(List.of(older), List.of(withReference), stats);
        assertFalse(o.lines().get(0).byReference());
        assertTrue(Double.isNaN(o.lines().get(0).machine()));
        String md = Gate.markdown(o, "old", "new");
        assertTrue(md.contains("| raw | - |"), md);
        String byReference = Gate.markdown(Gate.compare(List.of(withReference), List.of(withReference), stats), "a", "a");
        assertTrue(byReference.contains("| ÷ ref | 1.000 |"), byReference);
    }

    @Test
    void theProfilerReportsTheGeometricMeanOfItsThreadsPerIteration() throws ProfilerException {
        MachineReference profiler = new MachineReference("millis=20");
        assertEquals(20_000_000L, MachineReference.windowNanos());
        MachineReference.record(123);
        profiler.beforeIteration(null, null);
        assertTrue(profiler.afterIteration(null, null, null).isEmpty(),
                "a value left from before the iteration is not reported, and no thread reported this time");
        MachineReference.record(40_000);
        MachineReference.record(90_000);
        List<? extends Result> results = List.copyOf(profiler.afterIteration(null, null, null));
        assertEquals(1, results.size());
        assertEquals(MachineReference.LABEL, results.get(0).getLabel());
        assertEquals(60_000, results.get(0).getScore(), 1e-6);
        assertEquals("ops/s", results.get(0).getScoreUnit());
    }

    @Test
    void theProfilerRejectsBadOptionsNamingThem() {
        assertTrue(assertThrows(ProfilerException.class, () -> new MachineReference("window=5")).getMessage()
                .contains("window=5"));
        assertTrue(assertThrows(ProfilerException.class, () -> new MachineReference("millis=x")).getMessage()
                .contains("millis=x"));
        assertTrue(assertThrows(ProfilerException.class, () -> new MachineReference("millis=0")).getMessage()
                .contains("at least 1"));
    }

    @Test
    void aReferenceLoopTimesItsUpdatesAndFailsLoudlyOnceClosed() {
        ReferenceLoop loop = ReferenceLoop.open(5_000_000L);
        double rate = loop.window();
        assertTrue(rate > 0 && Double.isFinite(rate), "updates per second: " + rate);
        loop.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, loop::window);
        assertTrue(e.getMessage().contains("machine reference"), e.getMessage());
    }
}
