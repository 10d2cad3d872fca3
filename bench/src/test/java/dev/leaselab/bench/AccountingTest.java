package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.Completion;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.SqliteLeaseStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.opentest4j.AssertionFailedError;

/**
 * The accounting has a control. {@link #checkAccounting} forces every outcome through the
 * classification of {@link Outcomes} ({@code claimed}, {@code accepted}, {@code cycled},
 * {@code updated}, which every benchmark calls) on a real SQLite store, and after each asserts the
 * exact counters: the outcome in its own counter and in no other. A failure is forced the way it
 * happens in a benchmark: a second plain JDBC connection holds the write lock ({@code BEGIN
 * IMMEDIATE}) past the busy timeout. {@link #checkThroughputCountsWonOnly} then folds those counters
 * as tally lines and asserts that the report's won per wall second counts {@code won} only.
 *
 * <p>The negative control: each {@link BrokenAccounting} variant miscounts one outcome, and must be
 * rejected by the very same check, at the scenario it breaks. A check that let one pass would
 * not tell a benchmark that counts a failure as a win from a correct one.
 */
class AccountingTest {

    /**
     * Shorter than the benchmarks' 1 s ({@link Storage#BUSY_TIMEOUT}) so that the forced failures
     * are quick; the classification does not depend on how long the store waited.
     */
    static final Duration BUSY = Duration.ofMillis(200);
    static final Storage STORAGE = Storage.WAL_NORMAL;
    static final double NOW = 1.0;
    static final double TTL = 1.0e9;

    // The scenarios, as the check's messages name them; BrokenAccounting says which one must catch it.
    static final String CLAIM_OF_FREE_JOB = "a claim of a claimable job";
    static final String CLAIM_OF_HELD_JOB = "a claim of a job another owner holds";
    static final String CLAIM_UNDER_LOCK = "a claim while another connection holds the write lock";
    static final String CLAIM_BUG = "a claim whose call throws something other than LeaseStoreException";
    static final String RENEW_BY_OWNER = "a renew by the owner";
    static final String RENEW_BY_WRONG_OWNER = "a renew by the wrong owner";
    static final String COMPLETE_BY_WRONG_OWNER = "a complete by the wrong owner";
    static final String RENEW_UNDER_LOCK = "a renew while another connection holds the write lock";
    static final String ACCEPTED_BUG = "a renew whose call throws something other than LeaseStoreException";
    static final String CYCLE_OF_FREE_JOB = "a worker cycle of a fresh job";
    static final String CYCLE_OF_HELD_JOB = "a worker cycle of a job another owner holds";
    static final String CYCLE_REFUSED = "a worker cycle whose renew is refused (wrong fence)";
    static final String CYCLE_UNDER_LOCK = "a worker cycle while another connection holds the write lock";
    static final String CYCLE_BUG = "a worker cycle whose call throws something other than LeaseStoreException";
    static final String QUEUE_OF_TWO_JOBS = "a queue turn handed two jobs, both completed";
    static final String QUEUE_EMPTY = "a queue turn on an empty queue";
    static final String QUEUE_REFUSED = "a queue turn whose complete is refused (wrong fence)";
    static final String QUEUE_UNDER_LOCK = "a queue turn while another connection holds the write lock";
    static final String QUEUE_BUG = "a queue turn whose call throws something other than LeaseStoreException";
    static final String QUEUE_TOGETHER_ONE_REFUSED = "a queue turn completed in one completeAll, one of its two completions refused (wrong fence)";
    static final String QUEUE_TOGETHER_UNDER_LOCK = "a queue turn whose one completeAll meets another connection's write lock";
    static final String FLOOR_UPDATE = "the floor's update of its row";
    static final String FLOOR_MISSING_ROW = "the floor's update of a missing row";
    static final String FLOOR_UNDER_LOCK = "the floor's update while another connection holds the write lock";
    static final String FLOOR_BUG = "the floor's update whose call throws something other than SQLException";

    @TempDir
    Path dir;

    static Stream<LockingStrategy> sqliteStrategies() {
        return LockingStrategy.of(Engine.SQLITE).stream();
    }

    /** Every strategy the benchmarks run on SQLite answers busy, held and wrong-owner the same way. */
    @ParameterizedTest
    @MethodSource("sqliteStrategies")
    void everyOutcomeLandsInItsOwnCounterAndOnlyWonIsThroughput(LockingStrategy strategy) {
        List<Outcomes> counted = checkAccounting(strategy, dir, Outcomes::new);
        checkThroughputCountsWonOnly(counted, dir, BenchResults.Tally::wonPerWallSecond);
    }

    @ParameterizedTest
    @EnumSource(BrokenAccounting.class)
    void theCheckRejectsBrokenAccounting(BrokenAccounting broken) {
        AssertionFailedError caught = assertThrows(AssertionFailedError.class,
                () -> checkAccounting(LockingStrategy.IMMEDIATE, dir, broken::outcomes),
                broken + " passed the accounting check: the check cannot tell it from the real classification");
        assertTrue(caught.getMessage().startsWith(broken.caughtBy + ":"),
                broken + " must be caught by '" + broken.caughtBy + "', was: " + caught.getMessage());
        System.out.println("control " + broken + " caught: " + caught.getMessage());
    }

    /**
     * A throughput that adds every call, as JMH's primary score does, is rejected by the same
     * throughput check: the check can see lost, refused and failed in it.
     */
    @Test
    void theThroughputCheckRejectsAThroughputOfEveryCall() {
        List<Outcomes> counted = checkAccounting(LockingStrategy.IMMEDIATE, dir, Outcomes::new);
        AssertionFailedError caught = assertThrows(AssertionFailedError.class,
                () -> checkThroughputCountsWonOnly(counted, dir,
                        t -> (t.won() + t.lost() + t.refused() + t.failed()) / t.wallSeconds()),
                "a throughput of every call passed the throughput check");
        System.out.println("control EVERY_CALL_IS_THROUGHPUT caught: " + caught.getMessage());
    }

    /**
     * Forces each outcome through a fresh {@link Outcomes} from {@code outcomes} on a real store
     * of {@code strategy} and the floor's plain connection, and asserts its counters right after.
     *
     * @return the counters of each scenario that ran the store, for the throughput check
     * @throws AssertionFailedError naming the first scenario that was miscounted
     */
    static List<Outcomes> checkAccounting(LockingStrategy strategy, Path dir, Supplier<? extends Outcomes> outcomes) {
        Path file = dir.resolve("accounting-" + strategy + ".db");
        List<Outcomes> counted = new ArrayList<>();
        try (LeaseStore store = SqliteLeaseStore.open(file, strategy, STORAGE.options().withBusyTimeout(BUSY))) {
            for (String job : List.of("free", "held", "locked", "cycle", "cycle-held", "cycle-refused", "cycle-locked")) {
                store.enqueue(job);
            }
            long heldFence = store.claim("held", "other", NOW, TTL).orElseThrow();
            store.claim("cycle-held", "other", NOW, TTL).orElseThrow();

            // claimed: fence -> won, empty -> lost, LeaseStoreException -> failed
            Outcomes o = outcomes.get();
            long fence = o.claimed(() -> store.claim("free", "me", NOW, TTL));
            expect(CLAIM_OF_FREE_JOB, o, 1, 0, 0, 0);
            assertEquals(store.state("free").orElseThrow().fence(), fence, CLAIM_OF_FREE_JOB + ": returns the fence");
            counted.add(o);

            o = outcomes.get();
            assertEquals(Outcomes.LOST, o.claimed(() -> store.claim("held", "me", NOW, TTL)), CLAIM_OF_HELD_JOB);
            expect(CLAIM_OF_HELD_JOB, o, 0, 1, 0, 0);
            assertEquals("other", store.state("held").orElseThrow().owner(), CLAIM_OF_HELD_JOB + ": the lease stays");
            counted.add(o);

            Outcomes locked = outcomes.get();
            long result = underWriteLock(file, () -> locked.claimed(() -> store.claim("locked", "me", NOW, TTL)));
            expect(CLAIM_UNDER_LOCK, locked, 0, 0, 0, 1);
            assertEquals(Outcomes.FAILED, result, CLAIM_UNDER_LOCK);
            counted.add(locked);

            Outcomes bug = outcomes.get();
            assertThrows(IllegalStateException.class, () -> bug.claimed(() -> {
                throw new IllegalStateException("a bug in the benchmark");
            }), CLAIM_BUG + ": a bug is not a measurement, it must propagate");
            expect(CLAIM_BUG, bug, 0, 0, 0, 0);

            // accepted: true -> won, false -> refused, LeaseStoreException -> failed
            o = outcomes.get();
            assertTrue(o.accepted(() -> store.renew("free", "me", fence, NOW, TTL)), RENEW_BY_OWNER);
            expect(RENEW_BY_OWNER, o, 1, 0, 0, 0);
            counted.add(o);

            o = outcomes.get();
            assertEquals(false, o.accepted(() -> store.renew("held", "me", heldFence, NOW, TTL)), RENEW_BY_WRONG_OWNER);
            expect(RENEW_BY_WRONG_OWNER, o, 0, 0, 1, 0);
            counted.add(o);

            o = outcomes.get();
            assertEquals(false, o.accepted(() -> store.complete("held", "me", heldFence, NOW, "mine")), COMPLETE_BY_WRONG_OWNER);
            expect(COMPLETE_BY_WRONG_OWNER, o, 0, 0, 1, 0);
            assertEquals(false, store.state("held").orElseThrow().done(), COMPLETE_BY_WRONG_OWNER + ": the job stays open");
            counted.add(o);

            Outcomes lockedRenew = outcomes.get();
            boolean renewed = underWriteLock(file, () -> lockedRenew.accepted(() -> store.renew("free", "me", fence, NOW, TTL)));
            expect(RENEW_UNDER_LOCK, lockedRenew, 0, 0, 0, 1);
            assertEquals(false, renewed, RENEW_UNDER_LOCK);
            counted.add(lockedRenew);

            Outcomes acceptedBug = outcomes.get();
            assertThrows(IllegalStateException.class, () -> acceptedBug.accepted(() -> {
                throw new IllegalStateException("a bug in the benchmark");
            }), ACCEPTED_BUG + ": a bug is not a measurement, it must propagate");
            expect(ACCEPTED_BUG, acceptedBug, 0, 0, 0, 0);

            // cycled: one outcome per job; its rest is WorkerCycleBenchmark's (renew, then complete)
            o = outcomes.get();
            assertTrue(o.cycled(() -> store.claim("cycle", "me", NOW, TTL),
                    f -> store.renew("cycle", "me", f, NOW, TTL) && store.complete("cycle", "me", f, NOW, "ok")), CYCLE_OF_FREE_JOB);
            expect(CYCLE_OF_FREE_JOB, o, 1, 0, 0, 0);
            assertEquals(true, store.state("cycle").orElseThrow().done(), CYCLE_OF_FREE_JOB + ": the job is done");
            counted.add(o);

            o = outcomes.get();
            assertEquals(false, o.cycled(() -> store.claim("cycle-held", "me", NOW, TTL),
                    f -> store.renew("cycle-held", "me", f, NOW, TTL)), CYCLE_OF_HELD_JOB);
            expect(CYCLE_OF_HELD_JOB, o, 0, 1, 0, 0);
            counted.add(o);

            o = outcomes.get();
            assertEquals(false, o.cycled(() -> store.claim("cycle-refused", "me", NOW, TTL),
                    f -> store.renew("cycle-refused", "me", f + 1, NOW, TTL)), CYCLE_REFUSED);
            expect(CYCLE_REFUSED, o, 0, 0, 1, 0);
            counted.add(o);

            Outcomes lockedCycle = outcomes.get();
            boolean cycled = underWriteLock(file, () -> lockedCycle.cycled(() -> store.claim("cycle-locked", "me", NOW, TTL),
                    f -> store.renew("cycle-locked", "me", f, NOW, TTL)));
            expect(CYCLE_UNDER_LOCK, lockedCycle, 0, 0, 0, 1);
            assertEquals(false, cycled, CYCLE_UNDER_LOCK);
            counted.add(lockedCycle);

            Outcomes cycleBug = outcomes.get();
            assertThrows(IllegalStateException.class, () -> cycleBug.cycled(() -> store.claim("cycle-locked", "me", NOW, TTL), f -> {
                throw new IllegalStateException("a bug in the benchmark");
            }), CYCLE_BUG + ": a bug is not a measurement, it must propagate");
            expect(CYCLE_BUG, cycleBug, 0, 0, 0, 0);
        }

        // drained: QueueBenchmark's turn, one outcome per job handed out, on a queue of its own
        Path queueFile = dir.resolve("accounting-queue-" + strategy + ".db");
        try (LeaseStore store = SqliteLeaseStore.open(queueFile, strategy, STORAGE.options().withBusyTimeout(BUSY))) {
            Outcomes o = outcomes.get();
            store.enqueue("q1");
            store.enqueue("q2");
            assertEquals(2, o.drained(() -> store.claimNext("me", NOW, TTL, 2),
                    lease -> store.complete(lease.jobId(), lease.owner(), lease.fence(), NOW, "ok")), QUEUE_OF_TWO_JOBS);
            expect(QUEUE_OF_TWO_JOBS, o, 2, 0, 0, 0);
            assertEquals(true, store.state("q2").orElseThrow().done(), QUEUE_OF_TWO_JOBS + ": the jobs are done");
            counted.add(o);

            o = outcomes.get();
            assertEquals(0, o.drained(() -> store.claimNext("me", NOW, TTL, 2),
                    lease -> store.complete(lease.jobId(), lease.owner(), lease.fence(), NOW, "ok")), QUEUE_EMPTY);
            expect(QUEUE_EMPTY, o, 0, 1, 0, 0);
            counted.add(o);

            o = outcomes.get();
            store.enqueue("q3");
            assertEquals(0, o.drained(() -> store.claimNext("me", NOW, TTL, 2),
                    lease -> store.complete(lease.jobId(), lease.owner(), lease.fence() + 1, NOW, "ok")), QUEUE_REFUSED);
            expect(QUEUE_REFUSED, o, 0, 0, 1, 0);
            counted.add(o);

            Outcomes lockedQueue = outcomes.get();
            store.enqueue("q4");
            int drained = underWriteLock(queueFile, () -> lockedQueue.drained(() -> store.claimNext("me", NOW, TTL, 2),
                    lease -> store.complete(lease.jobId(), lease.owner(), lease.fence(), NOW, "ok")));
            expect(QUEUE_UNDER_LOCK, lockedQueue, 0, 0, 0, 1);
            assertEquals(-1, drained, QUEUE_UNDER_LOCK);
            counted.add(lockedQueue);

            Outcomes queueBug = outcomes.get();
            assertThrows(IllegalStateException.class, () -> queueBug.drained(() -> {
                throw new IllegalStateException("a bug in the benchmark");
            }, lease -> true), QUEUE_BUG + ": a bug is not a measurement, it must propagate");
            expect(QUEUE_BUG, queueBug, 0, 0, 0, 0);

            // drainedTogether: QueueBenchmark.batchAll's turn, the jobs completed in one call
            o = outcomes.get();
            store.enqueue("t1");
            store.enqueue("t2");
            assertEquals(1, o.drainedTogether(() -> store.claimNext("me", NOW, TTL, 2), leases -> store.completeAll(List.of(
                    new Completion(leases.get(0).jobId(), "me", leases.get(0).fence(), "ok"),
                    new Completion(leases.get(1).jobId(), "me", leases.get(1).fence() + 1, "ok")), NOW)),
                    QUEUE_TOGETHER_ONE_REFUSED);
            expect(QUEUE_TOGETHER_ONE_REFUSED, o, 1, 0, 1, 0);
            counted.add(o);

            Outcomes lockedTogether = outcomes.get();
            store.enqueue("t3");
            store.enqueue("t4");
            List<Lease> held = store.claimNext("me", NOW, TTL, 2);
            assertEquals(2, held.size(), QUEUE_TOGETHER_UNDER_LOCK + ": two jobs handed out before the lock");
            int together = underWriteLock(queueFile, () -> lockedTogether.drainedTogether(() -> held, leases -> store.completeAll(
                    leases.stream().map(l -> new Completion(l.jobId(), l.owner(), l.fence(), "ok")).toList(), NOW)));
            expect(QUEUE_TOGETHER_UNDER_LOCK, lockedTogether, 0, 0, 0, 2);
            assertEquals(0, together, QUEUE_TOGETHER_UNDER_LOCK);
            assertEquals(false, store.state("t3").orElseThrow().done(), QUEUE_TOGETHER_UNDER_LOCK + ": nothing was completed");
            counted.add(lockedTogether);
        }

        // updated: FloorBenchmark's statement on a plain connection with the storage's settings
        try (Connection c = STORAGE.connect(file, BUSY); PreparedStatement update = c.prepareStatement(FloorBenchmark.UPDATE)) {
            Outcomes o = outcomes.get();
            update.setString(1, "free");
            assertEquals(1, o.updated(update::executeUpdate), FLOOR_UPDATE);
            expect(FLOOR_UPDATE, o, 1, 0, 0, 0);
            counted.add(o);

            o = outcomes.get();
            update.setString(1, "missing");
            assertEquals(0, o.updated(update::executeUpdate), FLOOR_MISSING_ROW);
            expect(FLOOR_MISSING_ROW, o, 0, 0, 1, 0);
            counted.add(o);

            Outcomes lockedFloor = outcomes.get();
            update.setString(1, "free");
            int changed = underWriteLock(file, () -> lockedFloor.updated(update::executeUpdate));
            expect(FLOOR_UNDER_LOCK, lockedFloor, 0, 0, 0, 1);
            assertEquals(-1, changed, FLOOR_UNDER_LOCK);
            counted.add(lockedFloor);

            Outcomes floorBug = outcomes.get();
            assertThrows(IllegalStateException.class, () -> floorBug.updated(() -> {
                throw new IllegalStateException("a bug in the benchmark");
            }), FLOOR_BUG + ": a bug is not a measurement, it must propagate");
            expect(FLOOR_BUG, floorBug, 0, 0, 0, 0);
        } catch (SQLException e) {
            throw new IllegalStateException("the floor's connection to " + file + " failed outside the forced failure", e);
        }
        return counted;
    }

    /**
     * Folds the counters of {@code counted}, one thread each, as one measurement iteration of the
     * tally file (the lines {@link Outcomes#tally} writes, with a made-up span of 2 s: no clock is
     * read) through {@link BenchResults#readTally}, and asserts that {@code throughput}, the
     * report's won per wall second, counts {@code won} only: the same tally without any lost,
     * refused or failed operation has the same throughput.
     */
    static void checkThroughputCountsWonOnly(List<Outcomes> counted, Path dir, ToDoubleFunction<BenchResults.Tally> throughput) {
        long won = counted.stream().mapToLong(o -> o.won).sum();
        BenchResults.Tally all = fold(dir.resolve("tally-all.jsonl"), counted, false);
        BenchResults.Tally wonOnly = fold(dir.resolve("tally-won-only.jsonl"), counted, true);
        assertEquals(List.of(won, counted.stream().mapToLong(o -> o.lost).sum(), counted.stream().mapToLong(o -> o.refused).sum(),
                counted.stream().mapToLong(o -> o.failed).sum()), List.of(all.won(), all.lost(), all.refused(), all.failed()),
                "the tally holds the counters: won, lost, refused, failed");
        assertTrue(all.lost() > 0 && all.refused() > 0 && all.failed() > 0, "every outcome is in the tally: " + all);
        assertEquals(2.0, all.wallSeconds(), 1e-9, "the iteration's span");
        assertEquals(won / 2.0, throughput.applyAsDouble(all), 1e-9, "won per wall second counts won only");
        assertEquals(throughput.applyAsDouble(wonOnly), throughput.applyAsDouble(all), 1e-9,
                "lost, refused and failed do not add to won per wall second");
    }

    private static BenchResults.Tally fold(Path file, List<Outcomes> counted, boolean wonOnly) {
        List<String> lines = new ArrayList<>();
        for (int thread = 0; thread < counted.size(); thread++) {
            Outcomes o = counted.get(thread);
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("benchmark", ClaimBenchmark.class.getName() + ".hotJob");
            line.put("mode", "thrpt");
            line.put("params", Map.of("strategy", "IMMEDIATE", "storage", STORAGE.name()));
            line.put("threads", counted.size());
            line.put("thread", thread);
            line.put("pid", 1);
            line.put("iterationType", "measurement");
            line.put("iteration", 1);
            line.put("won", o.won);
            line.put("lost", wonOnly ? 0 : o.lost);
            line.put("refused", wonOnly ? 0 : o.refused);
            line.put("failed", wonOnly ? 0 : o.failed);
            line.put("refills", 0);
            line.put("startNanos", 1_000_000_000L);
            line.put("endNanos", 3_000_000_000L);
            lines.add(Json.write(line));
        }
        try {
            Files.write(file, lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<ForkKey, BenchResults.Tally> tallies = BenchResults.readTally(file);
        assertEquals(1, tallies.size(), tallies.toString());
        return tallies.values().iterator().next();
    }

    /** Exactly these counters: the outcome in its own counter and nowhere else. */
    private static void expect(String scenario, Outcomes o, long won, long lost, long refused, long failed) {
        assertEquals(List.of(won, lost, refused, failed), List.of(o.won, o.lost, o.refused, o.failed),
                scenario + ": won, lost, refused, failed");
    }

    /** What runs while the write lock is held. */
    @FunctionalInterface
    interface Locked<T> {
        T run() throws SQLException;
    }

    /**
     * Runs {@code work} while a second plain connection holds SQLite's write lock ({@code BEGIN
     * IMMEDIATE}), and releases it only after {@code work} returned: so the store's writer waits
     * its whole busy timeout and gives up, as a starved benchmark thread does.
     */
    private static <T> T underWriteLock(Path file, Locked<T> work) {
        try (Connection holder = STORAGE.connect(file); Statement s = holder.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            try {
                return work.run();
            } finally {
                s.execute("ROLLBACK");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not hold or release the write lock of " + file, e);
        }
    }
}
