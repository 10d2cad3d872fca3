package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * leaselab and db-scheduler on the same work (issue 14): drain {@code --jobs} prefilled no-op jobs
 * with {@code --threads} workers, measured as jobs per wall second from the first claim (leaselab) or
 * the scheduler's start (db-scheduler) to the last completion, on a fresh database per round with
 * the same SQLite settings for both ({@code --storage}), and on PostgreSQL when a server is given
 * ({@link PostgresTarget}). The systems alternate within the run: each round runs every system once,
 * in the listed order on odd rounds and reversed on even ones, so that a ratio is taken from rounds
 * measured together. Before the measured rounds every system drains {@code --warmup-jobs} once per
 * storage, not counted (a fresh JVM's first seconds are slower).
 *
 * <p>Prints one line per round on stderr, then the Markdown table of the summaries on stdout (and to
 * {@code --out}); {@code --json} writes the settings, every round and the summaries. Every round is
 * also a correctness check: each job must run exactly once, be accepted once, and nothing may fail.
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.leaselab.bench.PeerDrainMain --jobs 20000 --threads 1,8 --rounds 5 \
 *     --out peer.md --json peer.json
 * ./with-postgres.sh java -cp bench/target/benchmarks.jar dev.leaselab.bench.PeerDrainMain --jobs 20000
 * </pre>
 * Exit codes: 0 every round clean, 1 a round ran a job twice, lost one or failed, 2 a usage or runtime error.
 */
@Command(name = "leaselab-peer-drain", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"leaselab and db-scheduler draining the same prefilled no-op jobs, alternating in rounds on "
                + "fresh databases: median, min and max jobs/s per system and thread count, duplicates, errors, and "
                + "the ratio leaselab / db-scheduler from rounds measured together."})
public final class PeerDrainMain implements Callable<Integer> {

    /** Exit code when a round was not clean: a job ran twice, was not completed, or something failed. */
    public static final int UNCLEAN = 1;

    /** How the zombie trials stall the worker that holds the job. */
    enum ZombieStall {
        SIGSTOP,
        IN_JVM
    }

    /** Whether PostgreSQL is measured. */
    enum PostgresMode {
        /** When a server is given ({@code LEASELAB_POSTGRES_URL} or {@code -Dleaselab.postgres.url}). */
        AUTO,
        SKIP,
        /** PostgreSQL only; an error without a server. */
        ONLY
    }

    @Spec
    CommandSpec spec;
    @Option(names = "--jobs", defaultValue = "20000", description = "jobs per round (default: ${DEFAULT-VALUE})")
    int jobs;
    @Option(names = "--threads", split = ",", defaultValue = "1,8", description = "worker threads (default: ${DEFAULT-VALUE})")
    List<Integer> threads;
    @Option(names = "--rounds", defaultValue = "5", description = "measured rounds per system and thread count (default: ${DEFAULT-VALUE})")
    int rounds;
    @Option(names = "--warmup-jobs", defaultValue = "2000",
            description = "jobs of the one uncounted round per system and storage, with the largest thread count "
                    + "(default: ${DEFAULT-VALUE}; 0 for none)")
    int warmupJobs;
    @Option(names = "--storage", defaultValue = "WAL_NORMAL",
            description = "the SQLite setting of both systems: WAL_NORMAL, WAL_FULL or DELETE_FULL (default: ${DEFAULT-VALUE}); busy timeout 1 s")
    Storage storage;
    @Option(names = "--strategies", split = ",", defaultValue = "CONDITIONAL_UPDATE,GROUP_COMMIT",
            description = "leaselab's SQLite strategies (default: ${DEFAULT-VALUE})")
    List<LockingStrategy> strategies;
    @Option(names = "--batches", split = ",", defaultValue = "1",
            description = "the most jobs one leaselab claimNext asks for; each size is a system of its own (default: "
                    + "${DEFAULT-VALUE}; db-scheduler's polling fetches up to its upper fetch limit x threads at a time)")
    List<Integer> batches;
    @Option(names = "--completes", split = ",", defaultValue = "EACH",
            description = "how a leaselab worker completes the jobs of one claimNext: EACH (a complete per job) or ALL "
                    + "(one completeAll per batch, one commit); each is a system of its own (default: ${DEFAULT-VALUE})")
    List<LeaselabDrain.Completes> completes;
    @Option(names = "--polling", split = ",", defaultValue = "FETCH",
            description = "db-scheduler's polling on SQLite: FETCH (fetch-and-lock-on-execute), the only one it supports "
                    + "there (default: ${DEFAULT-VALUE})")
    List<DbSchedulerDrain.Polling> polling;
    @Option(names = "--postgres", defaultValue = "AUTO", description = "AUTO (when a server is given), SKIP or ONLY (default: ${DEFAULT-VALUE})")
    PostgresMode postgres;
    @Option(names = "--pg-strategies", split = ",", defaultValue = "PG_ROW_LOCK,PG_CONDITIONAL_UPDATE",
            description = "leaselab's PostgreSQL strategies (default: ${DEFAULT-VALUE})")
    List<LockingStrategy> pgStrategies;
    @Option(names = "--pg-polling", split = ",", defaultValue = "LOCK_AND_FETCH",
            description = "db-scheduler's polling on PostgreSQL (default: ${DEFAULT-VALUE}); the ratios are taken against the first")
    List<DbSchedulerDrain.Polling> pgPolling;
    @Option(names = "--fetch-limits", split = ",", defaultValue = "0.5,3.0",
            description = "FETCH's lower and upper limit, fractions of the thread count (default: ${DEFAULT-VALUE}, db-scheduler's)")
    List<Double> fetchLimits;
    @Option(names = "--lock-and-fetch-limits", split = ",", defaultValue = "0.5,1.0",
            description = "LOCK_AND_FETCH's lower and upper limit, fractions of the thread count (default: ${DEFAULT-VALUE})")
    List<Double> lockAndFetchLimits;
    @Option(names = "--polling-interval", defaultValue = "10ms", converter = OpenLoopMain.DurationConverter.class,
            description = "db-scheduler's pollingInterval (default: ${DEFAULT-VALUE})")
    Duration pollingInterval;
    @Option(names = "--deadline", defaultValue = "10m", converter = OpenLoopMain.DurationConverter.class,
            description = "a round still running after this is stopped and reported as timed out (default: ${DEFAULT-VALUE})")
    Duration deadline;
    @Option(names = "--zombie-trials", defaultValue = "0",
            description = "after the drains, this many zombie trials per system and storage (PeerZombie): a worker stalls "
                    + "past its lease or heartbeats, another takes the job over, the stalled one completes late (default: ${DEFAULT-VALUE})")
    int zombieTrials;
    @Option(names = "--zombie-stall", defaultValue = "SIGSTOP",
            description = "how the zombie stalls: SIGSTOP (a worker in a child JVM stopped by kill -STOP while it works on "
                    + "the job, ProcessZombie) or IN_JVM (an explicit clock, a latched task, PeerZombie) (default: ${DEFAULT-VALUE})")
    ZombieStall zombieStall;
    @Option(names = "--out", description = "also write the Markdown table to this file")
    Path out;
    @Option(names = "--json", description = "write the settings, every round and the summaries to this file")
    Path json;

    /** Wraps leaselab's stores; the identity except in the tests that prove the counters count. */
    UnaryOperator<LeaseStore> leaselabDecorator = UnaryOperator.identity();

    public static void main(String[] args) {
        if (System.getProperty(BenchMain.SLF4J_VERBOSITY) == null) {
            System.setProperty(BenchMain.SLF4J_VERBOSITY, "ERROR");
        }
        System.exit(execute(System.out, System.err, args));
    }

    /** Runs the command and returns its exit code instead of exiting (tests call this). */
    static int execute(PrintStream out, PrintStream err, String... args) {
        return execute(new PeerDrainMain(), out, err, args);
    }

    static int execute(PeerDrainMain command, PrintStream out, PrintStream err, String... args) {
        CommandLine cli = new CommandLine(command);
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        return BenchMain.execute(cli, out, err, args);
    }

    /** One system of the comparison on one storage. */
    private record Contestant(String name, Storage storage, LockingStrategy strategy, int batch,
                              LeaselabDrain.Completes completes, DbSchedulerDrain.Settings settings) {

        PeerRound run(int jobs, int threads, int round, Duration deadline, UnaryOperator<LeaseStore> decorator)
                throws InterruptedException {
            return strategy != null
                    ? LeaselabDrain.run(strategy, batch, completes, storage, jobs, threads, round, deadline, decorator)
                    : DbSchedulerDrain.run(storage, settings.withPoolFor(threads), jobs, threads, round, deadline, id -> false);
        }
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        validate();
        List<Storage> storages = new ArrayList<>();
        if (postgres != PostgresMode.ONLY) {
            storages.add(storage);
        }
        boolean server = PostgresTarget.configured().isPresent();
        if (postgres == PostgresMode.ONLY && !server) {
            throw new IllegalArgumentException("--postgres ONLY needs a PostgreSQL server: " + PostgresTarget.HOW_TO);
        }
        if (postgres != PostgresMode.SKIP && server) {
            storages.add(Storage.POSTGRESQL);
        }
        PrintWriter err = spec.commandLine().getErr();
        if (postgres == PostgresMode.AUTO && !server) {
            err.println("PostgreSQL not measured: no server given (" + PostgresTarget.HOW_TO + ")");
        }
        int maxThreads = Collections.max(threads);
        List<PeerRound> all = new ArrayList<>();
        Map<String, Object> settings = settings(storages);
        for (Storage s : storages) {
            List<Contestant> contestants = contestants(s);
            if (warmupJobs > 0) {
                for (Contestant c : contestants) {
                    PeerRound r = c.run(warmupJobs, maxThreads, 0, deadline, leaselabDecorator);
                    err.println("warmup " + r.line());
                    all.add(r);
                }
            }
            for (int t : threads) {
                for (int round = 1; round <= rounds; round++) {
                    List<Contestant> order = new ArrayList<>(contestants);
                    if (round % 2 == 0) {
                        Collections.reverse(order);
                    }
                    for (Contestant c : order) {
                        PeerRound r = c.run(jobs, t, round, deadline, leaselabDecorator);
                        err.println(r.line());
                        err.flush();
                        all.add(r);
                    }
                }
            }
        }
        List<PeerSummary> summaries = PeerSummary.of(all, "db-scheduler");
        String table = PeerSummary.markdown(summaries);
        List<PeerZombie.Result> zombies = new ArrayList<>();
        if (zombieTrials > 0) {
            for (Storage s : storages) {
                for (LockingStrategy strategy : s.engine() == Engine.SQLITE ? strategies : pgStrategies) {
                    zombies.add(zombieStall == ZombieStall.SIGSTOP ? ProcessZombie.leaselab(strategy, s, zombieTrials, null)
                            : PeerZombie.leaselab(strategy, s, zombieTrials));
                }
                zombies.add(zombieStall == ZombieStall.SIGSTOP ? ProcessZombie.dbScheduler(s, zombieTrials)
                        : PeerZombie.dbScheduler(s, zombieTrials));
            }
            StringBuilder z = new StringBuilder("\nZombie trials, stalled by " + zombieStall + ":\n\n| storage | system | zombie trials | work ran twice | late completion accepted "
                    + "| late completion refused | errors |\n|---|---|---:|---:|---:|---:|---:|\n");
            for (PeerZombie.Result r : zombies) {
                err.println(r.line());
                z.append("| ").append(r.storage()).append(" | ").append(r.system()).append(" | ").append(r.trials())
                        .append(" | ").append(r.workRanTwice()).append(" | ").append(r.lateCompletionAccepted())
                        .append(" | ").append(r.lateCompletionRefused()).append(" | ").append(r.errors()).append(" |\n");
            }
            table += z;
        }
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.print(table);
        stdout.flush();
        if (out != null) {
            Files.writeString(out, table);
            err.println("wrote " + out);
        }
        if (json != null) {
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("settings", settings);
            report.put("rounds", all);
            report.put("summaries", summaries);
            report.put("zombies", zombies);
            Json.writeFile(json, report);
            err.println("wrote " + json);
        }
        List<PeerZombie.Result> acceptedLate = zombies.stream().filter(z -> z.lateCompletionAccepted() > 0).toList();
        if (!acceptedLate.isEmpty()) {
            err.println("NOT CLEAN: a stalled worker's late completion was accepted: " + acceptedLate.get(0).line());
            return UNCLEAN;
        }
        List<PeerRound> unclean = all.stream().filter(r -> !r.clean()).toList();
        if (!unclean.isEmpty()) {
            err.println("NOT CLEAN: " + unclean.size() + " rounds ran a job twice, left one, or failed; the first: "
                    + unclean.get(0).line());
            return UNCLEAN;
        }
        return 0;
    }

    private void validate() {
        if (jobs < 1 || rounds < 1 || warmupJobs < 0) {
            throw new IllegalArgumentException("--jobs and --rounds must be at least 1 and --warmup-jobs at least 0");
        }
        if (batches.isEmpty() || batches.stream().anyMatch(b -> b < 1)) {
            throw new IllegalArgumentException("--batches must list sizes of at least 1: " + batches);
        }
        if (completes.isEmpty()) {
            throw new IllegalArgumentException("--completes needs EACH, ALL or both");
        }
        if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1)) {
            throw new IllegalArgumentException("--threads must list counts of at least 1: " + threads);
        }
        if (!storage.engine().equals(Engine.SQLITE)) {
            throw new IllegalArgumentException("--storage is the SQLite setting (WAL_NORMAL, WAL_FULL, DELETE_FULL); "
                    + "PostgreSQL is measured when a server is given (--postgres)");
        }
        for (LockingStrategy s : strategies) {
            if (s.engine() != Engine.SQLITE) {
                throw new IllegalArgumentException("--strategies takes SQLite strategies: " + s + "; see --pg-strategies");
            }
        }
        for (LockingStrategy s : pgStrategies) {
            if (s.engine() != Engine.POSTGRESQL) {
                throw new IllegalArgumentException("--pg-strategies takes PostgreSQL strategies: " + s);
            }
        }
        if (polling.contains(DbSchedulerDrain.Polling.LOCK_AND_FETCH)) {
            // Its builder says so itself, but only after the rounds before it have run.
            throw new IllegalArgumentException("--polling LOCK_AND_FETCH: db-scheduler refuses it on SQLite (\"Database "
                    + "using jdbc-customization 'SQLite' does not support lock-and-fetch polling\"); use FETCH");
        }
        for (List<Double> limits : List.of(fetchLimits, lockAndFetchLimits)) {
            if (limits.size() != 2 || !(limits.get(0) > 0) || !(limits.get(1) >= limits.get(0))) {
                throw new IllegalArgumentException("--fetch-limits and --lock-and-fetch-limits take LOWER,UPPER with "
                        + "0 < LOWER <= UPPER: " + limits);
            }
        }
        if (polling.isEmpty() || pgPolling.isEmpty()) {
            throw new IllegalArgumentException("--polling and --pg-polling need at least one strategy: db-scheduler is the reference");
        }
    }

    private List<Contestant> contestants(Storage s) {
        boolean sqlite = s.engine() == Engine.SQLITE;
        List<Contestant> list = new ArrayList<>();
        for (LockingStrategy strategy : sqlite ? strategies : pgStrategies) {
            for (int batch : batches) {
                for (LeaselabDrain.Completes c : completes) {
                    list.add(new Contestant(LeaselabDrain.systemName(strategy, batch, c), s, strategy, batch, c, null));
                }
            }
        }
        for (DbSchedulerDrain.Polling p : sqlite ? polling : pgPolling) {
            list.add(new Contestant(DbSchedulerDrain.systemName(p), s, null, 0, null, schedulerSettings(p)));
        }
        return list;
    }

    private DbSchedulerDrain.Settings schedulerSettings(DbSchedulerDrain.Polling p) {
        List<Double> limits = p == DbSchedulerDrain.Polling.FETCH ? fetchLimits : lockAndFetchLimits;
        return new DbSchedulerDrain.Settings(p, limits.get(0), limits.get(1), pollingInterval, 0);
    }

    private Map<String, Object> settings(List<Storage> storages) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobs", jobs);
        m.put("threads", threads);
        m.put("rounds", rounds);
        m.put("warmupJobs", warmupJobs);
        m.put("zombieTrials", zombieTrials);
        m.put("zombieStall", zombieStall.name());
        m.put("order", "every round runs each system once: listed order on odd rounds, reversed on even rounds");
        m.put("storages", storages.stream().map(Storage::name).toList());
        m.put("busyTimeoutMillis", Storage.busyTimeout().toMillis());
        m.put("busyWait", Storage.busyWait().name());
        Map<String, Object> leaselab = new LinkedHashMap<>();
        leaselab.put("strategies", strategies.stream().map(Enum::name).toList());
        leaselab.put("pgStrategies", pgStrategies.stream().map(Enum::name).toList());
        leaselab.put("batches", batches);
        leaselab.put("completes", completes.stream().map(Enum::name).toList());
        leaselab.put("loop", "claimNext(owner, now, ttl, batch), then complete(jobId, owner, fence, now, \"ok\") for each "
                + "job handed out (EACH) or one completeAll of them all (ALL), until claimNext is empty");
        leaselab.put("now", LeaselabDrain.NOW);
        leaselab.put("ttl", LeaselabDrain.TTL);
        leaselab.put("poolSize", storage.options().poolSize());
        leaselab.put("prefill", "BenchDb.insertJobs: one transaction of plain JDBC inserts, not timed; on PostgreSQL then ANALYZE jobs (db-scheduler: ANALYZE scheduled_tasks)");
        m.put("leaselab", leaselab);
        Map<String, Object> dbScheduler = new LinkedHashMap<>();
        dbScheduler.put("sqlite", polling.stream().map(p -> DbSchedulerDrain.describe(storage,
                schedulerSettings(p).withPoolFor(Collections.max(threads)))).toList());
        dbScheduler.put("postgresql", pgPolling.stream().map(p -> DbSchedulerDrain.describe(Storage.POSTGRESQL,
                schedulerSettings(p).withPoolFor(Collections.max(threads)))).toList());
        dbScheduler.put("poolSize", "max(16, threads + 4), fixed");
        m.put("dbScheduler", dbScheduler);
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        m.put("availableProcessors", Runtime.getRuntime().availableProcessors());
        m.put("tmpdir", System.getProperty("java.io.tmpdir"));
        return m;
    }
}
