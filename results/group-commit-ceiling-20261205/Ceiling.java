import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The single-connection ceiling of issue 17, paired: how many hot-job claims one connection runs
 * per second with k claims per transaction and no threads (nothing to hand off), against the
 * floor's plain UPDATE at 8 threads (the floor GROUP_COMMIT's "x floor, 8 threads" is taken
 * against) and at 1 thread, in shuffled 100 ms slices of one JVM, on one file. Each group holds
 * every slice once; a ratio is the median over groups of the claim slice's rate over the floor
 * slice's rate of the same group, with the 10th and 90th percentiles of those per-group ratios.
 *
 * Run (sqlite-jdbc from the benchmarks jar; the statements are the store's, copied here):
 *     java -cp bench/target/benchmarks.jar results/group-commit-ceiling-20261205/Ceiling.java WAL_NORMAL 40
 * A third argument lists the claims per transaction (default 1,8,64), e.g. 1,2,8 for
 * ../group-commit-partner-20261205. Since 2026-12-07 it also prints where a transaction's time
 * went, per claims per transaction: its BEGIN, its statements and its COMMIT (../group-commit-time-20261207).
 */
public class Ceiling {

    static final String SCHEMA = "CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, owner TEXT, until REAL NOT NULL DEFAULT 0,"
            + " fence INTEGER NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0)";
    /** ConditionalUpdateProtocol.claimStatement: the compare-and-set every SQLite strategy's claim ends in. */
    static final String CLAIM = "UPDATE jobs SET owner = ?2, until = ?4, fence = fence + 1 WHERE id = ?1 AND (done = 0 AND until <= ?3) RETURNING fence";
    /** FloorBenchmark.UPDATE. */
    static final String FLOOR = "UPDATE jobs SET fence = fence + 1 WHERE id = ?";
    static final String DEFAULT_PER_TRANSACTION = "1,8,64";
    static final int FLOOR_THREADS = 8;
    static final long SLICE_NANOS = 100_000_000L;

    public static void main(String[] args) throws Exception {
        String storage = args.length > 0 ? args[0] : "WAL_NORMAL";
        int groups = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        int[] perTransaction = Arrays.stream((args.length > 2 ? args[2] : DEFAULT_PER_TRANSACTION).split(","))
                .mapToInt(Integer::parseInt).toArray();
        if (Arrays.stream(perTransaction).anyMatch(k -> k < 1)) {
            throw new IllegalArgumentException("claims per transaction must each be at least 1: " + Arrays.toString(perTransaction));
        }
        String synchronous = switch (storage) {
            case "WAL_NORMAL" -> "NORMAL";
            case "WAL_FULL" -> "FULL";
            default -> throw new IllegalArgumentException("storage: WAL_NORMAL or WAL_FULL, not " + storage);
        };
        Path dir = Files.createTempDirectory("ceiling");
        String url = "jdbc:sqlite:" + dir.resolve("ceiling.db");
        Connection[] connections = new Connection[FLOOR_THREADS];
        for (int i = 0; i < FLOOR_THREADS; i++) {
            connections[i] = DriverManager.getConnection(url);
            // The store's jittered busy wait, as the paired benchmarks use (until 2026-12-06 a copy of it
            // lived here, whose doubling stopped at 51.2 ms: the same steps at its 4 ms longest sleep).
            dev.leaselab.lease.StoreOptions.defaults().withBusyTimeout(java.time.Duration.ofSeconds(5)).installBusyWait(connections[i]);
            try (Statement s = connections[i].createStatement()) {
                s.execute("PRAGMA journal_mode = WAL");
                s.execute("PRAGMA synchronous = " + synchronous);
                if (i == 0) {
                    s.execute(SCHEMA);
                    s.execute("INSERT INTO jobs (id) VALUES ('hot'), ('floor')");
                }
            }
        }
        PreparedStatement claim = connections[0].prepareStatement(CLAIM);
        PreparedStatement[] floor = new PreparedStatement[FLOOR_THREADS];
        for (int i = 0; i < FLOOR_THREADS; i++) {
            floor[i] = connections[i].prepareStatement(FLOOR);
            floor[i].setString(1, "floor");
        }
        List<String> slices = new ArrayList<>(List.of("FLOOR_1", "FLOOR_8"));
        for (int k : perTransaction) {
            slices.add("CLAIM_" + k);
        }
        double[] clock = {0};
        Random order = new Random(42);
        // Two groups of warmup, then the measured groups.
        double[][] rates = new double[groups][slices.size()];
        for (int g = -2; g < groups; g++) {
            List<Integer> plan = new ArrayList<>();
            for (int i = 0; i < slices.size(); i++) {
                plan.add(i);
            }
            Collections.shuffle(plan, order);
            for (int i : plan) {
                String slice = slices.get(i);
                double rate = switch (slice) {
                    case "FLOOR_1" -> floorSlice(floor, 1);
                    case "FLOOR_8" -> floorSlice(floor, FLOOR_THREADS);
                    default -> claimSlice(connections[0], claim, Integer.parseInt(slice.substring(6)), clock);
                };
                if (g >= 0) {
                    rates[g][i] = rate;
                }
            }
        }
        System.out.printf("%s, %d groups of %d slices of %d ms (median rate over groups):%n", storage, groups, slices.size(), SLICE_NANOS / 1_000_000);
        for (int i = 0; i < slices.size(); i++) {
            int column = i;
            System.out.printf("  %-8s %,10.0f /s%n", slices.get(i), median(Arrays.stream(rates).mapToDouble(r -> r[column]).toArray()));
        }
        for (int k = 0; k < perTransaction.length; k++) {
            int c = 2 + k;
            double[] over8 = Arrays.stream(rates).mapToDouble(r -> r[c] / r[1]).toArray();
            double[] over1 = Arrays.stream(rates).mapToDouble(r -> r[c] / r[0]).toArray();
            System.out.printf("  %d claims per transaction: x floor at 8 threads %.2f [p10 %.2f, p90 %.2f]; x floor at 1 thread %.2f [p10 %.2f, p90 %.2f]%n",
                    perTransaction[k], median(over8), percentile(over8, 0.1), percentile(over8, 0.9),
                    median(over1), percentile(over1, 0.1), percentile(over1, 0.9));
        }
        PHASES.forEach((k, p) -> System.out.printf("  %d claims per transaction, mean per transaction: BEGIN %.1f us, statements %.1f us, COMMIT %.1f us (%,d transactions)%n",
                k, p.beginNanos / 1e3 / p.transactions, p.statementsNanos / 1e3 / p.transactions, p.commitNanos / 1e3 / p.transactions, p.transactions));
        for (Connection c : connections) {
            c.close();
        }
    }

    /** Claims the hot job for one slice, k claims per transaction (k = 1: autocommit); returns claims won per second. */
    /** Where a transaction's time went, per claims per transaction, over every slice (warmup included). */
    static final class Phases {
        long transactions;
        long beginNanos;
        long statementsNanos;
        long commitNanos;
    }

    static final Map<Integer, Phases> PHASES = new TreeMap<>();

    static double claimSlice(Connection c, PreparedStatement claim, int k, double[] clock) throws SQLException {
        long won = 0;
        long start = System.nanoTime();
        long end = start + SLICE_NANOS;
        try (Statement s = c.createStatement()) {
            while (System.nanoTime() < end) {
                long begin = System.nanoTime();
                if (k > 1) {
                    s.execute("BEGIN IMMEDIATE");
                }
                long begun = System.nanoTime();
                for (int i = 0; i < k; i++) {
                    double now = clock[0]++;
                    claim.setString(1, "hot");
                    claim.setString(2, "me");
                    claim.setDouble(3, now);
                    claim.setDouble(4, now + 1);
                    try (ResultSet rows = claim.executeQuery()) {
                        if (rows.next()) {
                            won++;
                        }
                    }
                }
                long committing = System.nanoTime();
                if (k > 1) {
                    s.execute("COMMIT");
                }
                Phases phases = PHASES.computeIfAbsent(k, key -> new Phases());
                phases.transactions++;
                phases.beginNanos += begun - begin;
                phases.statementsNanos += committing - begun;
                phases.commitNanos += System.nanoTime() - committing;
            }
        }
        return won / ((System.nanoTime() - start) / 1e9);
    }

    /** The floor's UPDATE on the floor row from {@code threads} connections for one slice; returns updates per second. */
    static double floorSlice(PreparedStatement[] floor, int threads) throws Exception {
        AtomicLong done = new AtomicLong();
        long[] start = new long[1];
        CyclicBarrier gate = new CyclicBarrier(threads, () -> start[0] = System.nanoTime());
        List<Thread> workers = new ArrayList<>();
        AtomicLong failure = new AtomicLong();
        for (int t = 0; t < threads; t++) {
            PreparedStatement update = floor[t];
            Thread w = new Thread(() -> {
                try {
                    gate.await();
                    long end = start[0] + SLICE_NANOS;
                    long n = 0;
                    while (System.nanoTime() < end) {
                        n += update.executeUpdate();
                    }
                    done.addAndGet(n);
                } catch (Exception e) {
                    failure.incrementAndGet();
                    e.printStackTrace();
                }
            });
            workers.add(w);
        }
        workers.forEach(Thread::start);
        for (Thread w : workers) {
            w.join();
        }
        if (failure.get() > 0) {
            throw new IllegalStateException(failure.get() + " floor threads failed");
        }
        // Timed from the gate: the last update of a slice may end after it, which counts against the floor by at most one update a thread.
        return done.get() / (SLICE_NANOS / 1e9);
    }

    static double median(double[] values) {
        return percentile(values, 0.5);
    }

    static double percentile(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        double position = p * (sorted.length - 1);
        int low = (int) Math.floor(position);
        int high = (int) Math.ceil(position);
        return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
    }
}
