package dev.leaselab.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The physical floor: one plain {@code UPDATE jobs SET fence = fence + 1 WHERE id = ?} in
 * autocommit per operation, on one hot row, through sqlite-jdbc with a prepared statement that
 * each thread reuses on its own connection, with the same journal mode, {@code synchronous} and
 * busy timeout as the store. It is the least that any claim has to do (one write transaction that
 * changes the row), so every strategy's throughput is reported as a ratio to this floor, taken from
 * the same run and the same storage setting and thread count.
 *
 * <p>On {@link Storage#POSTGRESQL} it is the same statement through PgJDBC, one connection per
 * thread in autocommit with a 1 s {@code statement_timeout} (the store's), in a fresh schema: so a
 * PostgreSQL strategy is measured against PostgreSQL's own floor, never SQLite's. Run:
 * <pre>
 * java -jar bench/target/benchmarks.jar FloorBenchmark -t 8 -p storage=WAL_NORMAL,WAL_FULL,DELETE_FULL
 * ./with-postgres.sh java -jar bench/target/benchmarks.jar FloorBenchmark -t 8 -p storage=POSTGRESQL
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FloorBenchmark {

    static final String HOT = "hot";
    /** The one statement per operation, shared with {@link MachineReference}. */
    static final String UPDATE = "UPDATE jobs SET fence = fence + 1 WHERE id = ?";

    @Param
    public Storage storage;

    private BenchDb db;

    @Setup(Level.Trial)
    public void open() {
        db = BenchDb.openWithoutStore(storage);
        db.insertJobs(new String[] {HOT}, null, 0);
    }

    @TearDown(Level.Trial)
    public void close() {
        db.close();
    }

    /** One thread's connection and its prepared statement, reused for every operation. */
    @State(Scope.Thread)
    public static class Writer {
        Connection connection;
        PreparedStatement update;

        @Setup(Level.Trial)
        public void connect(FloorBenchmark bench) throws SQLException {
            connection = bench.db.connect();
            update = connection.prepareStatement(UPDATE);
            update.setString(1, HOT);
        }

        @TearDown(Level.Trial)
        public void disconnect() throws SQLException {
            update.close();
            connection.close();
        }
    }

    @Benchmark
    public int update(Writer writer, Outcomes o) {
        o.mark();
        return o.updated(writer.update::executeUpdate);
    }
}
