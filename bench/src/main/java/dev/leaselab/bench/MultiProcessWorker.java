package dev.leaselab.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LeaseStoreException;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.PostgresLeaseStore;
import dev.leaselab.lease.SqliteLeaseStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One worker process of {@link MultiProcessMain}: opens its own store (or, for the floor, its own
 * plain connections) on the shared SQLite file or PostgreSQL schema, says {@value #READY} on stdout, waits for a line on stdin
 * (the common start gate), runs its threads through a warmup and a measured window, writes what
 * each thread counted to a JSON file and exits. Not for direct use.
 *
 * <p>Arguments: {@code database storage strategy|FLOOR threads warmupMillis measureMillis out [rate]},
 * where {@code database} is the SQLite file or the schema's JDBC URL ({@link BenchDb#workerArgument()}).
 * Without {@code rate} the threads run back to back (a closed loop) and the JSON has each
 * thread's counts; with it, the process sends {@code rate} requests per second from the gate on
 * through an {@link OpenLoop} on its threads, and the JSON has the open loop's {@link OpenLoop.Result}
 * (its latency histogram among it) under {@code openLoop}: the parent merges the processes'
 * histograms. With {@code -D}{@value #TIMELINE_PROPERTY}{@code =file} it also writes the open loop's
 * timeline to that file.
 *
 * <p>With {@code PAIRED:strategy} as the work and {@code sliceMillis groups} in place of the rate,
 * each thread runs both the floor (on a connection of its own) and the strategy's claim, switching
 * at the slices of {@link PairedSlices} counted from the origin that the gate line carries, and
 * the JSON has each thread's counts per slice.
 *
 * <p>The hot-job claim across processes cannot share an in-JVM counter as {@link ClaimBenchmark}
 * does, so {@code now} is {@link System#nanoTime()} in seconds (CLOCK_MONOTONIC, one clock for
 * every process on the host) and a lease lasts {@value #TTL_SECONDS} s: every attempt that starts
 * after the previous claim committed finds the lease expired and is a real write; one that read
 * its {@code now} before that commit finds the lease live and is {@code lost}.
 */
public final class MultiProcessWorker {

    static final String READY = "ready";
    static final String FLOOR = "FLOOR";
    static final double TTL_SECONDS = 1e-6;
    static final String PAIRED = "PAIRED:";
    /** Where an open-loop worker writes its timeline ({@link OpenLoop#run(OpenLoop.Op, Path)}); none without it. */
    static final String TIMELINE_PROPERTY = "leaselab.bench.timeline";

    private MultiProcessWorker() {}

    public static void main(String[] args) throws Exception {
        String database = args[0];
        Storage storage = Storage.valueOf(args[1]);
        int threads = Integer.parseInt(args[3]);
        long warmupNanos = Long.parseLong(args[4]) * 1_000_000;
        long measureNanos = Long.parseLong(args[5]) * 1_000_000;
        Path out = Path.of(args[6]);
        if (args[2].startsWith(PAIRED)) {
            runPaired(database, storage, LockingStrategy.valueOf(args[2].substring(PAIRED.length())), threads, warmupNanos,
                    Long.parseLong(args[7]) * 1_000_000, Integer.parseInt(args[8]), out);
            return;
        }
        boolean floor = FLOOR.equals(args[2]);
        LockingStrategy strategy = floor ? null : LockingStrategy.valueOf(args[2]);
        double rate = args.length > 7 ? Double.parseDouble(args[7]) : Double.NaN;

        LeaseStore store = floor ? null : open(database, storage, strategy);
        List<Connection> connections = new ArrayList<>();
        List<Counts> counts = new ArrayList<>();
        List<Op> ops = new ArrayList<>();
        OpenLoop.Result openLoop = null;
        OpenLoop loop = Double.isNaN(rate) ? null
                : new OpenLoop(rate, threads, Duration.ofNanos(warmupNanos), Duration.ofNanos(measureNanos));
        List<Thread> workers = new ArrayList<>();
        Object gate = new Object();
        boolean[] open = {false};
        try {
            for (int t = 0; t < threads; t++) {
                Counts c = new Counts();
                counts.add(c);
                String owner = "p" + ProcessHandle.current().pid() + "-t" + t;
                Op op = floor ? floorOp(database, storage, connections) : claimOp(store, owner);
                ops.add(op);
                if (!Double.isNaN(rate)) {
                    continue; // the open loop runs the ops on threads of its own
                }
                Thread worker = new Thread(() -> {
                    synchronized (gate) {
                        while (!open[0]) {
                            try {
                                gate.wait();
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    }
                    c.run(op, warmupNanos, measureNanos);
                }, "multiprocess-" + t);
                workers.add(worker);
                worker.start();
            }

            System.out.println(READY);
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            if (loop != null) {
                OpenLoop.Op op = worker -> switch (ops.get(worker).run()) {
                    case WON -> OpenLoop.Outcome.WON;
                    case LOST -> OpenLoop.Outcome.LOST;
                    case FAILED -> OpenLoop.Outcome.FAILED;
                };
                String timeline = System.getProperty(TIMELINE_PROPERTY);
                openLoop = timeline == null ? loop.run(op) : loop.run(op, Path.of(timeline));
            }
            synchronized (gate) {
                open[0] = true;
                gate.notifyAll();
            }
            for (Thread worker : workers) {
                worker.join();
            }
        } finally {
            for (Connection c : connections) {
                c.close();
            }
            if (store != null) {
                store.close();
            }
        }
        ObjectNode result = Json.MAPPER.createObjectNode();
        result.put("pid", ProcessHandle.current().pid());
        putWaitSettings(result);
        if (openLoop != null) {
            result.set("openLoop", Json.MAPPER.valueToTree(openLoop));
        }
        ArrayNode perThread = result.putArray("threads");
        for (Counts c : loop == null ? counts : List.<Counts>of()) {
            perThread.addObject().put("won", c.won).put("lost", c.lost).put("failed", c.failed)
                    .put("warmupWon", c.warmupWon).put("startNanos", c.startNanos).put("endNanos", c.endNanos);
        }
        Files.writeString(out, Json.MAPPER.writeValueAsString(result));
    }

    /** The floor's plain {@code UPDATE} of its own row, on a connection of its own (added to {@code connections} to be closed). */
    private static Op floorOp(String database, Storage storage, List<Connection> connections) throws SQLException {
        Connection connection = connect(database, storage);
        connections.add(connection);
        PreparedStatement update = connection.prepareStatement(FloorBenchmark.UPDATE);
        update.setString(1, PairedClaimBenchmark.FLOOR_ROW);
        return () -> {
            try {
                return update.executeUpdate() == 1 ? Outcome.WON : Outcome.LOST;
            } catch (SQLException e) {
                return Outcome.FAILED;
            }
        };
    }

    /** The hot-job claim through the store, with {@code now} from the host's monotonic clock. */
    private static Op claimOp(LeaseStore store, String owner) {
        return () -> {
            try {
                OptionalLong fence = store.claim(ClaimBenchmark.HOT, owner, System.nanoTime() / 1e9, TTL_SECONDS);
                return fence.isPresent() ? Outcome.WON : Outcome.LOST;
            } catch (LeaseStoreException e) {
                return Outcome.FAILED;
            }
        };
    }

    /**
     * The paired mode: every thread runs the floor and the claim in the slices of {@link
     * PairedSlices}, from the origin that the gate line carries, and counts per slice.
     */
    private static void runPaired(String database, Storage storage, LockingStrategy strategy, int threads, long warmupNanos,
                                  long sliceNanos, int groups, Path out) throws Exception {
        LeaseStore store = open(database, storage, strategy);
        List<Connection> connections = new ArrayList<>();
        List<SliceCounts> counts = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        long[] origin = {Long.MIN_VALUE};
        try {
            for (int t = 0; t < threads; t++) {
                Op floorOp = floorOp(database, storage, connections);
                Op claimOp = claimOp(store, "p" + ProcessHandle.current().pid() + "-t" + t);
                SliceCounts c = new SliceCounts(2 * groups);
                counts.add(c);
                workers.add(new Thread(() -> {
                    long start;
                    synchronized (origin) {
                        while (origin[0] == Long.MIN_VALUE) {
                            try {
                                origin.wait();
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                        start = origin[0];
                    }
                    c.run(new PairedSlices(start, warmupNanos, sliceNanos, groups), floorOp, claimOp);
                }, "multiprocess-paired-" + t));
            }
            for (Thread worker : workers) {
                worker.setDaemon(true); // a gate that closes without an origin must not leave them holding the JVM
                worker.start();
            }
            System.out.println(READY);
            System.out.flush();
            String gate = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            if (gate == null) {
                throw new IllegalStateException("the start gate closed before it gave the slices' origin");
            }
            synchronized (origin) {
                origin[0] = Long.parseLong(gate.strip());
                origin.notifyAll();
            }
            for (Thread worker : workers) {
                worker.join();
            }
        } finally {
            for (Connection c : connections) {
                c.close();
            }
            store.close();
        }
        ObjectNode result = Json.MAPPER.createObjectNode();
        result.put("pid", ProcessHandle.current().pid());
        putWaitSettings(result);
        ArrayNode perThread = result.putArray("threads");
        for (SliceCounts c : counts) {
            ObjectNode t = perThread.addObject().put("claimWonTotal", c.claimWonTotal).put("floorWonTotal", c.floorWonTotal)
                    .put("acrossSwitch", c.acrossSwitch);
            ArrayNode won = t.putArray("won");
            ArrayNode lost = t.putArray("lost");
            ArrayNode failed = t.putArray("failed");
            for (int s = 0; s < c.won.length; s++) {
                won.add(c.won[s]);
                lost.add(c.lost[s]);
                failed.add(c.failed[s]);
            }
        }
        Files.writeString(out, Json.MAPPER.writeValueAsString(result));
    }

    /** What one thread of a paired run counted per slice, and every win of each work for the fence checks. */
    private static final class SliceCounts {
        final long[] won;
        final long[] lost;
        final long[] failed;
        long claimWonTotal;
        long floorWonTotal;
        /** Measured operations that ended in a later slice than they started in, counted for neither. */
        long acrossSwitch;

        SliceCounts(int slices) {
            won = new long[slices];
            lost = new long[slices];
            failed = new long[slices];
        }

        void run(PairedSlices slices, Op floorOp, Op claimOp) {
            LockSupport.parkNanos(slices.originNanos() - System.nanoTime());
            long end = slices.endNanos();
            for (long started; (started = System.nanoTime()) < end; ) {
                long slice = slices.sliceAt(started);
                boolean floor = PairedSlices.isFloor(slice);
                Outcome outcome = (floor ? floorOp : claimOp).run();
                if (outcome == Outcome.WON) {
                    if (floor) {
                        floorWonTotal++;
                    } else {
                        claimWonTotal++;
                    }
                }
                // Counted only within one slice: an operation across a switch belongs to neither side.
                boolean withinItsSlice = slices.sliceAt(System.nanoTime()) == slice;
                if (slice >= 0 && withinItsSlice) {
                    int s = (int) slice;
                    switch (outcome) {
                        case WON -> won[s]++;
                        case LOST -> lost[s]++;
                        case FAILED -> failed[s]++;
                    }
                } else if (slice >= 0) {
                    acrossSwitch++;
                }
            }
        }
    }

    /** The store on the file or schema, with the storage's settings and this JVM's busy (statement) timeout. */
    private static LeaseStore open(String database, Storage storage, LockingStrategy strategy) {
        return switch (storage.engine()) {
            case SQLITE -> SqliteLeaseStore.open(Path.of(database), strategy, storage.options());
            case POSTGRESQL -> PostgresLeaseStore.open(database, strategy, storage.postgresOptions());
        };
    }

    /** The floor's plain connection, with the same limit on waiting as the store's. */
    private static Connection connect(String database, Storage storage) throws SQLException {
        return switch (storage.engine()) {
            case SQLITE -> storage.connect(Path.of(database));
            case POSTGRESQL -> {
                Connection c = DriverManager.getConnection(database);
                try (Statement s = c.createStatement()) {
                    s.execute("SET statement_timeout = " + Storage.busyTimeout().toMillis());
                } catch (SQLException e) {
                    c.close();
                    throw e;
                }
                yield c;
            }
        };
    }

    enum Outcome { WON, LOST, FAILED }

    private interface Op {
        Outcome run();
    }

    /** What one thread counted: the warmup's wins (for the final fence check) and the measured window's outcomes. */
    private static final class Counts {
        long won;
        long lost;
        long failed;
        long warmupWon;
        long startNanos;
        long endNanos;

        void run(Op op, long warmupNanos, long measureNanos) {
            long warmupEnd = System.nanoTime() + warmupNanos;
            while (System.nanoTime() < warmupEnd) {
                warmupWon += op.run() == Outcome.WON ? 1 : 0;
            }
            startNanos = System.nanoTime();
            long end = startNanos + measureNanos;
            long now;
            do {
                switch (op.run()) {
                    case WON -> won++;
                    case LOST -> lost++;
                    case FAILED -> failed++;
                }
                now = System.nanoTime();
            } while (now < end);
            endNanos = now;
        }
    }

    /** What this worker's connections waited with: the main process refuses a worker that did not get its settings. */
    static void putWaitSettings(ObjectNode result) {
        result.put("busyTimeoutMillis", Storage.busyTimeout().toMillis());
        result.put("longestBusySleepMicros", Storage.longestBusySleep().toNanos() / 1000);
    }
}
