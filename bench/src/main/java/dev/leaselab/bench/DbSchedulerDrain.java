package dev.leaselab.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.event.SchedulerListener.CandidateEventType;
import com.github.kagkarlsson.scheduler.event.SchedulerListener.SchedulerEventType;
import com.github.kagkarlsson.scheduler.jdbc.JdbcCustomization;
import com.github.kagkarlsson.scheduler.jdbc.PostgreSqlJdbcCustomization;
import com.github.kagkarlsson.scheduler.jdbc.SqliteJdbcCustomization;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leaselab.lease.LockingStrategy.Engine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The db-scheduler side of {@link PeerDrainMain}: its own {@code scheduled_tasks} table on a fresh
 * database with the same connection settings as the lease store's benchmarks
 * ({@link ConnectionFactoryDataSource}) behind a HikariCP pool, one one-time task whose execution is
 * a no-op that counts its instance id, {@code jobs} executions written with
 * {@link SchedulerClient#scheduleBatch} before the scheduler starts, and a scheduler with
 * {@code threads} executor threads. A round is timed from {@link Scheduler#start()} to the moment the
 * last execution has finished: db-scheduler tells its listeners of a finished execution after its
 * completion handler ran, which for a one-time task deletes the row.
 *
 * <p>The settings are db-scheduler's own defaults except where stated in {@link Settings}; on SQLite
 * the dialect is db-scheduler's {@link SqliteJdbcCustomization} (set explicitly, not autodetected),
 * which persists timestamps in UTC and writes {@code LIMIT}; on PostgreSQL its
 * {@link PostgreSqlJdbcCustomization}.
 */
final class DbSchedulerDrain {

    static final String TASK_NAME = "peer-noop";

    /**
     * db-scheduler's two polling strategies. Each takes two fractions of the thread count: when to
     * fetch again, and how much to take.
     */
    enum Polling {
        /**
         * {@code pollUsingFetchAndLockOnExecute(0.5, 3.0)} (its default): selects up to 3 x threads due
         * executions, and each executor thread then picks its own with an {@code UPDATE ... WHERE
         * version = ?} before running it; fetches again when fewer than 0.5 x threads are left.
         * The only strategy db-scheduler supports on SQLite.
         */
        FETCH(0.5, 3.0),
        /**
         * {@code pollUsingLockAndFetch(0.5, 1.0)}: picks up to 1 x threads executions in one
         * {@code SELECT ... FOR UPDATE SKIP LOCKED} statement and runs them; PostgreSQL (and a few
         * others) only: on SQLite db-scheduler refuses it at every poll.
         */
        LOCK_AND_FETCH(0.5, 1.0);

        /** The default fractions of the thread count, as above. */
        final double defaultLowerLimit;
        final double defaultUpperLimit;

        Polling(double defaultLowerLimit, double defaultUpperLimit) {
            this.defaultLowerLimit = defaultLowerLimit;
            this.defaultUpperLimit = defaultUpperLimit;
        }
    }

    /**
     * What the scheduler is built with besides its task.
     *
     * @param lowerLimit fetch again when fewer than this many x threads executions are left
     * @param upperLimit take up to this many x threads executions per fetch
     * @param pollingInterval how often it looks for due executions when it did not just fetch some
     * @param poolSize HikariCP's fixed pool size
     */
    record Settings(Polling polling, double lowerLimit, double upperLimit, Duration pollingInterval, int poolSize) {

        static Settings defaults(Polling polling, int threads) {
            return new Settings(polling, polling.defaultLowerLimit, polling.defaultUpperLimit, Duration.ofMillis(10), 0)
                    .withPoolFor(threads);
        }

        SchedulerBuilder apply(SchedulerBuilder builder) {
            return switch (polling) {
                case FETCH -> builder.pollUsingFetchAndLockOnExecute(lowerLimit, upperLimit);
                case LOCK_AND_FETCH -> builder.pollUsingLockAndFetch(lowerLimit, upperLimit);
            };
        }

        /**
         * As the lease store's 16 connections: more than the executor threads plus the polling,
         * heartbeat and housekeeping threads, so nothing waits for a connection.
         */
        Settings withPoolFor(int threads) {
            return new Settings(polling, lowerLimit, upperLimit, pollingInterval, Math.max(16, threads + 4));
        }

        String describe() {
            return String.format(Locale.ROOT, "%s (lower %.1f, upper %.1f x threads), pollingInterval %d ms, "
                            + "HikariCP pool %d", polling, lowerLimit, upperLimit,
                    pollingInterval.toMillis(), poolSize);
        }
    }

    /** The scheduler events that are errors: anything else (the housekeeping's "ran" events) is routine. */
    static final Set<SchedulerEventType> ERRORS = EnumSet.of(SchedulerEventType.UNEXPECTED_ERROR,
            SchedulerEventType.FAILED_HEARTBEAT, SchedulerEventType.FAILED_MULTIPLE_HEARTBEATS,
            SchedulerEventType.COMPLETIONHANDLER_ERROR, SchedulerEventType.FAILUREHANDLER_ERROR,
            SchedulerEventType.DEAD_EXECUTION, SchedulerEventType.UNRESOLVED_TASK);

    private DbSchedulerDrain() {}

    static String systemName(Polling polling) {
        return "db-scheduler " + polling.name();
    }

    /**
     * Runs one round on a fresh database.
     *
     * @param storage a SQLite storage, or {@link Storage#POSTGRESQL}
     * @param failOn the executions (by instance id) whose no-op throws instead: none, except in the
     *     tests that prove failed executions are counted
     */
    /**
     * Waits (5 s at most) until HikariCP has opened every connection of the pool, which it does in
     * the background from its start (minimum idle = size): the clock then starts with the
     * connections open, as it does for leaselab ({@link LeaselabDrain}'s warm-up).
     */
    private static void awaitFullPool(HikariDataSource pool) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (pool.getHikariPoolMXBean() != null && pool.getHikariPoolMXBean().getTotalConnections() < pool.getMaximumPoolSize()
                && System.nanoTime() - deadline < 0) {
            Thread.sleep(5);
        }
    }

    static PeerRound run(Storage storage, Settings settings, int jobs, int threads, int round, Duration deadline,
                         Predicate<String> failOn) throws InterruptedException {
        try (SchedulerDb db = SchedulerDb.create(storage); HikariDataSource pool = db.pool(settings.poolSize())) {
            ExecutionTally tally = new ExecutionTally();
            OneTimeTask<Void> task = Tasks.oneTime(TASK_NAME).execute((instance, context) -> {
                tally.ran(instance.getId());
                if (failOn.test(instance.getId())) {
                    throw new IllegalStateException("deliberate failure of " + instance.getId());
                }
            });
            JdbcCustomization dialect = db.dialect();

            long prefillStart = System.nanoTime();
            SchedulerClient client = SchedulerClient.Builder.create(pool, task).jdbcCustomization(dialect).build();
            Instant due = Instant.now().minusSeconds(1);
            List<TaskInstance<?>> instances = new ArrayList<>(jobs);
            for (int i = 0; i < jobs; i++) {
                instances.add(task.instance("job-" + i));
            }
            client.scheduleBatch(instances, due);
            if (storage == Storage.POSTGRESQL) {
                // The planner's statistics, as autovacuum has them for a running scheduler (and as leaselab's table gets them).
                db.execute(List.of("ANALYZE scheduled_tasks"));
            }
            double prefillSeconds = (System.nanoTime() - prefillStart) / 1e9;
            long prefilled = db.rows();
            if (prefilled != jobs) {
                throw new IllegalStateException("scheduleBatch wrote " + prefilled + " executions, not " + jobs);
            }

            Finished finished = new Finished(jobs, tally);
            SchedulerBuilder builder = Scheduler.create(pool, task)
                    .threads(threads)
                    .pollingInterval(settings.pollingInterval())
                    .jdbcCustomization(dialect)
                    .schedulerName(new SchedulerName.Fixed("peer-drain"))
                    .addSchedulerListener(finished)
                    // Its default of 30 minutes would hold a round that failed for that long.
                    .shutdownMaxWait(Duration.ofSeconds(5));
            Scheduler scheduler = settings.apply(builder).build();
            awaitFullPool(pool);
            long start = System.nanoTime();
            scheduler.start();
            boolean timedOut;
            try {
                timedOut = !finished.all.await(deadline.toNanos(), TimeUnit.NANOSECONDS);
            } finally {
                scheduler.stop();
            }
            long end = timedOut ? System.nanoTime() : finished.lastNanos.get();
            return PeerRound.of(systemName(settings.polling()), storage.name(), threads, round, jobs, start, end, tally,
                    db.rows(), timedOut, prefillSeconds);
        }
    }

    /** Counts finished executions (successful ones as accepted completions) and the scheduler's error events. */
    private static final class Finished extends AbstractSchedulerListener {
        private final CountDownLatch all;
        private final ExecutionTally tally;
        private final AtomicLong lastNanos = new AtomicLong(Long.MIN_VALUE);

        Finished(int jobs, ExecutionTally tally) {
            this.all = new CountDownLatch(jobs);
            this.tally = tally;
        }

        @Override
        public void onExecutionComplete(ExecutionComplete complete) {
            String id = complete.getExecution().taskInstance.getId();
            if (complete.getResult() == ExecutionComplete.Result.OK) {
                tally.accepted(id);
            } else {
                tally.error("execution failed", complete.getCause().map(Throwable::toString).orElse(id));
            }
            lastNanos.accumulateAndGet(System.nanoTime(), Math::max);
            all.countDown();
        }

        @Override
        public void onSchedulerEvent(SchedulerEventType type) {
            if (ERRORS.contains(type)) {
                tally.error("scheduler event " + type, (String) null);
            }
        }

        @Override
        public void onCandidateEvent(CandidateEventType type) {
            // STALE and ALREADY_PICKED are db-scheduler's optimistic picks that another thread won:
            // routine under FETCH with several threads, so not errors.
        }
    }

    /**
     * db-scheduler's own database: a fresh SQLite file with the storage's settings, or a fresh
     * schema of the PostgreSQL server, with the {@code scheduled_tasks} table of db-scheduler's
     * schema files for that database ({@code sqlite_tables.sql}, {@code postgresql_tables.sql}).
     */
    abstract static sealed class SchedulerDb implements AutoCloseable {

        static SchedulerDb create(Storage storage) {
            SchedulerDb db = storage.engine() == Engine.SQLITE ? new SqliteDb(storage) : new PostgresDb();
            try {
                db.execute(db.ddl());
            } catch (RuntimeException e) {
                db.close();
                throw e;
            }
            return db;
        }

        /**
         * The database of another process's {@link #create}: the file or schema that
         * {@link #location()} named there, with its table. Closing it leaves them alone.
         */
        static SchedulerDb attach(Storage storage, String location) {
            return storage.engine() == Engine.SQLITE ? new SqliteDb(storage, Path.of(location)) : new PostgresDb(location);
        }

        /** Where the database is, for {@link #attach} in another process: the SQLite file or the PostgreSQL schema. */
        abstract String location();

        abstract Connection connect() throws SQLException;

        abstract Connection connectForSetup() throws SQLException;

        abstract List<String> ddl();

        abstract JdbcCustomization dialect();

        @Override
        public abstract void close();

        HikariDataSource pool(int size) {
            HikariConfig config = new HikariConfig();
            config.setDataSource(new ConnectionFactoryDataSource(this::connect));
            config.setPoolName("db-scheduler-peer");
            config.setMaximumPoolSize(size);
            config.setMinimumIdle(size);
            config.setAutoCommit(true);
            return new HikariDataSource(config);
        }

        void execute(List<String> statements) {
            try (Connection c = connectForSetup(); Statement s = c.createStatement()) {
                for (String sql : statements) {
                    s.execute(sql);
                }
            } catch (SQLException e) {
                throw new IllegalStateException("could not create db-scheduler's table: " + e.getMessage(), e);
            }
        }

        long rows() {
            try (Connection c = connectForSetup(); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT count(*) FROM scheduled_tasks")) {
                r.next();
                return r.getLong(1);
            } catch (SQLException e) {
                throw new IllegalStateException("could not count db-scheduler's executions: " + e.getMessage(), e);
            }
        }
    }

    private static final class SqliteDb extends SchedulerDb {
        private final Storage storage;
        /** The directory this object created and removes on close; null for an attached file. */
        private final Path dir;
        private final Path file;

        SqliteDb(Storage storage) {
            this.storage = storage;
            try {
                this.dir = Files.createTempDirectory("leaselab-peer-");
            } catch (IOException e) {
                throw new UncheckedIOException("could not create a directory for db-scheduler's database", e);
            }
            this.file = dir.resolve("db-scheduler.db");
        }

        SqliteDb(Storage storage, Path file) {
            this.storage = storage;
            this.dir = null;
            this.file = file;
        }

        @Override
        String location() {
            return file.toString();
        }

        @Override
        Connection connect() throws SQLException {
            return storage.connect(file);
        }

        @Override
        Connection connectForSetup() throws SQLException {
            return storage.connect(file, BenchDb.SETUP_BUSY_TIMEOUT);
        }

        /** db-scheduler's {@code sqlite_tables.sql}. */
        @Override
        List<String> ddl() {
            return List.of("""
                    create table scheduled_tasks (
                        task_name varchar(100),
                        task_instance varchar(100),
                        task_data blob,
                        execution_time TIMESTAMP,
                        picked BIT,
                        picked_by varchar(50),
                        last_success TIMESTAMP,
                        last_failure TIMESTAMP,
                        consecutive_failures INT,
                        last_heartbeat TIMESTAMP,
                        version BIGINT,
                        priority SMALLINT,
                        PRIMARY KEY (task_name, task_instance))""",
                    "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)",
                    "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
                    "CREATE INDEX priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc)");
        }

        @Override
        JdbcCustomization dialect() {
            return new SqliteJdbcCustomization();
        }

        @Override
        public void close() {
            if (dir != null) {
                SqliteBenchDb.deleteDirectory(dir);
            }
        }
    }

    private static final class PostgresDb extends SchedulerDb {
        private final PostgresTarget server = PostgresTarget.require();
        private final String schema;
        /** Whether this object created the schema, and so drops it on close. */
        private final boolean owned;

        PostgresDb() {
            this.schema = server.createSchema();
            this.owned = true;
        }

        PostgresDb(String schema) {
            this.schema = schema;
            this.owned = false;
        }

        @Override
        String location() {
            return schema;
        }

        @Override
        Connection connect() throws SQLException {
            return server.connect(schema, Storage.busyTimeout());
        }

        @Override
        Connection connectForSetup() throws SQLException {
            return server.connect(schema, BenchDb.SETUP_BUSY_TIMEOUT);
        }

        /** db-scheduler's {@code postgresql_tables.sql} (16.x has no {@code state} column). */
        @Override
        List<String> ddl() {
            return List.of("""
                    create table scheduled_tasks (
                      task_name text not null,
                      task_instance text not null,
                      task_data bytea,
                      execution_time timestamp with time zone not null,
                      picked BOOLEAN not null,
                      picked_by text,
                      last_success timestamp with time zone,
                      last_failure timestamp with time zone,
                      consecutive_failures INT,
                      last_heartbeat timestamp with time zone,
                      version BIGINT not null,
                      priority SMALLINT,
                      PRIMARY KEY (task_name, task_instance))""",
                    "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)",
                    "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)",
                    "CREATE INDEX priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc)");
        }

        @Override
        JdbcCustomization dialect() {
            return new PostgreSqlJdbcCustomization(false, false);
        }

        @Override
        public void close() {
            if (owned) {
                server.dropSchema(schema);
            }
        }
    }

    /** The settings of a round, for the JSON file. */
    static Map<String, Object> describe(Storage storage, Settings settings) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("version", Scheduler.class.getPackage().getImplementationVersion());
        m.put("dialect", storage.engine() == Engine.SQLITE ? "SqliteJdbcCustomization" : "PostgreSqlJdbcCustomization");
        m.put("polling", settings.polling().name());
        m.put("lowerLimitFractionOfThreads", settings.lowerLimit());
        m.put("upperLimitFractionOfThreads", settings.upperLimit());
        m.put("pollingIntervalMillis", settings.pollingInterval().toMillis());
        m.put("hikariPoolSize", settings.poolSize());
        m.put("prefill", "SchedulerClient.scheduleBatch before Scheduler.start, not timed");
        return m;
    }
}
