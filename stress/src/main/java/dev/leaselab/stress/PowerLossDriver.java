package dev.leaselab.stress;

import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.PostgresOptions;
import dev.leaselab.lease.StoreOptions;
import dev.leaselab.lease.StoreOptions.JournalMode;
import dev.leaselab.lease.StoreOptions.Synchronous;
import dev.leaselab.powerloss.CutMode;
import dev.leaselab.powerloss.ForgetfulMount;
import dev.leaselab.powerloss.PowerCut;
import dev.leaselab.testkit.Database;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;

/**
 * Power-loss races: worker JVMs ({@link PowerLossWorker}) claim, renew, complete and release on a
 * database inside a {@link ForgetfulMount}; at a random moment every worker is killed with
 * {@code kill -9} and then the power is cut (every write no fsync covered is lost): as in a real
 * power cut, no program hears from the disk after the moment of the cut (one that runs on can be
 * told a commit is done that the cut took back, see ForgetfulMountTest); the power comes back, a
 * fresh store opens the file, {@code PRAGMA integrity_check} runs, and {@link PowerLossChecker}
 * looks for every operation acknowledged so far in the rows; then new workers go on, until the
 * last cut. At the end the {@link HistoryChecker}
 * judges the whole history of every cut with the final rows: a fence handed out twice, two
 * accepted completes, a write accepted from a stale holder.
 *
 * <p>A setting that syncs what it commits (WAL or DELETE with {@code synchronous=FULL}, DELETE with
 * {@code EXTRA}) must lose nothing; the controls ({@code NORMAL}, {@code OFF}) must be caught losing
 * acknowledged writes.
 *
 * <p>On PostgreSQL ({@link PostgresStorage}) the layer holds the server's data directory
 * ({@link PowerLossPostgres}), and the workers talk to the server over TCP: at the cut the whole
 * server (postmaster and every backend, one process group) is killed with {@code kill -9} first,
 * so that nothing is acknowledged after the moment of the cut, then the power goes and the workers
 * are killed; with the power back the server starts again (crash recovery from what the layer kept),
 * {@code amcheck} checks the table and its indexes, and the same checker reads the rows. A server
 * that does not start is an integrity failure and ends the race. {@code fsync=on} (with
 * {@code synchronous_commit=on}) must lose nothing; {@code synchronous_commit=off} and
 * {@code fsync=off} are the controls.
 */
final class PowerLossDriver {

    /**
     * A storage setting a race runs in: SQLite's journal mode and sync ({@link SqliteStorage}), or
     * PostgreSQL's {@code fsync} and {@code synchronous_commit} ({@link PostgresStorage}).
     */
    sealed interface Storage permits SqliteStorage, PostgresStorage {

        /** {@code WAL_FULL}, {@code FSYNC_ON}, ...: what {@link #parse} reads back. */
        String name();

        /** The engine whose setting this is. */
        Engine engine();

        /** Whether the engine promises that an acknowledged commit survives a power cut in this setting. */
        boolean durable();

        /** A {@link PostgresStorage} constant's name, or a SQLite {@code JOURNAL_SYNC}. */
        static Storage parse(String name) {
            for (PostgresStorage postgres : PostgresStorage.values()) {
                if (postgres.name().equals(name)) {
                    return postgres;
                }
            }
            return SqliteStorage.parse(name);
        }
    }

    /** A journal mode and a sync setting: {@code WAL_FULL}, {@code DELETE_EXTRA}, ... */
    record SqliteStorage(JournalMode journal, Synchronous sync) implements Storage {
        SqliteStorage {
            Objects.requireNonNull(journal, "journal");
            Objects.requireNonNull(sync, "sync");
        }

        static SqliteStorage parse(String name) {
            int underscore = name.indexOf('_');
            if (underscore < 0) {
                throw new IllegalArgumentException("storage must be JOURNAL_SYNC, e.g. WAL_FULL, or one of "
                        + List.of(PostgresStorage.values()) + ": " + name);
            }
            try {
                return new SqliteStorage(JournalMode.valueOf(name.substring(0, underscore)),
                        Synchronous.valueOf(name.substring(underscore + 1)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("storage must be JOURNAL_SYNC, e.g. WAL_FULL, or one of "
                        + List.of(PostgresStorage.values()) + ": " + name, e);
            }
        }

        @Override
        public String name() {
            return journal + "_" + sync;
        }

        @Override
        public Engine engine() {
            return Engine.SQLITE;
        }

        /**
         * Whether SQLite promises that a commit survives a power cut in this setting: {@code FULL}
         * in WAL, {@code EXTRA} in every journal mode. DELETE with {@code FULL} does not sync the
         * directory after deleting the journal, so its last commit can come back undone (SQLite's
         * documentation of {@code synchronous=EXTRA} says so, and ForgetfulMountTest shows it).
         */
        @Override
        public boolean durable() {
            return sync == Synchronous.EXTRA || (sync == Synchronous.FULL && journal == JournalMode.WAL);
        }

        StoreOptions options() {
            return StoreOptions.defaults().withPoolSize(1).withJournalMode(journal).withSynchronous(sync);
        }
    }

    /**
     * PostgreSQL's durability settings, the server's data directory on the layer: only with both
     * {@code fsync} and {@code synchronous_commit} on is a commit acknowledged after its WAL record
     * is synced.
     */
    enum PostgresStorage implements Storage {
        /** The defaults, {@code fsync=on} and {@code synchronous_commit=on}: must lose nothing. */
        FSYNC_ON("on", "on"),
        /**
         * The control {@code synchronous_commit=off}: a commit is acknowledged before its WAL record
         * is flushed, which the WAL writer does within three times {@code wal_writer_delay} (200 ms).
         * PostgreSQL's documentation says such commits can be lost, the database stays consistent.
         */
        SYNCHRONOUS_COMMIT_OFF("on", "off"),
        /** The control {@code fsync=off}: nothing is ever synced; a cut may even leave a cluster that cannot start. */
        FSYNC_OFF("off", "on");

        final String fsync;
        final String synchronousCommit;

        PostgresStorage(String fsync, String synchronousCommit) {
            this.fsync = fsync;
            this.synchronousCommit = synchronousCommit;
        }

        @Override
        public Engine engine() {
            return Engine.POSTGRESQL;
        }

        @Override
        public boolean durable() {
            return this == FSYNC_ON;
        }
    }

    /**
     * @param cuts how many power cuts
     * @param workers worker JVMs between two cuts (at least 1)
     * @param slots jobs in play at once
     * @param ttlMillis the lease time
     * @param minRunMillis shortest time the workers run before a cut
     * @param maxRunMillis longest
     * @param mode what a disk cache writes out of the unsynced changes at a cut
     * @param seed the driver's and the workers' choices
     * @param stopAtFirstLoss whether to stop after the first cut that lost an acknowledged write:
     *     for a control whose loss needs a cut at the right moment, {@code cuts} is then a budget
     */
    record Settings(int cuts, int workers, int slots, long ttlMillis, long minRunMillis, long maxRunMillis,
            CutMode mode, long seed, boolean stopAtFirstLoss) {
        Settings {
            if (cuts < 1 || workers < 1 || slots < 1) {
                throw new IllegalArgumentException("cuts, workers and slots must be at least 1: " + cuts + ", "
                        + workers + ", " + slots);
            }
            if (ttlMillis < 10 || minRunMillis < 0 || maxRunMillis < minRunMillis) {
                throw new IllegalArgumentException("need ttlMillis >= 10 and 0 <= minRunMillis <= maxRunMillis: "
                        + ttlMillis + ", " + minRunMillis + ", " + maxRunMillis);
            }
            Objects.requireNonNull(mode, "mode");
        }
    }

    /**
     * What a power-loss race saw.
     *
     * @param store the strategy (or control) raced
     * @param storage the journal mode and sync setting
     * @param cuts power cuts made
     * @param acknowledged operations acknowledged before a cut, each looked for after it
     * @param lostWrites of those, the ones a cut took back (each counted at the first cut that lost it)
     * @param cutsWithLoss cuts after which at least one acknowledged write was missing
     * @param interrupted operations a cut interrupted (no answer): the cuts hit running work
     * @param reissuedFences claims answered with a fence some earlier claim of the job had been given
     * @param integrityFailures cuts after which {@code PRAGMA integrity_check} did not answer ok or
     *     the rows could not be read
     * @param unsyncedChangesLost writes and truncations the layer threw away, over all cuts
     * @param check the history checker's verdict on the whole history with the final rows
     * @param firstProblem the first lost write, integrity failure or violation, or null
     * @param millis how long the race took
     */
    record Result(String store, String storage, int cuts, long acknowledged, long lostWrites, int cutsWithLoss,
            long interrupted, long reissuedFences,
            int integrityFailures, long unsyncedChangesLost, CheckReport check, String firstProblem, long millis) {

        /** Whether anything acknowledged was lost or broken. */
        boolean lostAnything() {
            return lostWrites > 0 || reissuedFences > 0 || integrityFailures > 0 || !check.passed();
        }
    }

    private final StoreUnderTest sut;
    private final Storage storage;
    private final Path dir;
    private final Settings settings;
    private final Random random;

    private PowerLossDriver(StoreUnderTest sut, Storage storage, Path dir, Settings settings) {
        this.sut = sut;
        this.storage = storage;
        this.dir = dir.resolve("powerloss-" + sut.name().replace('/', '-') + "-" + storage.name());
        this.settings = settings;
        this.random = new Random(settings.seed());
    }

    /** Races {@code sut} in {@code storage} across {@code settings.cuts()} power cuts, in a new folder under {@code dir}. */
    static Result run(StoreUnderTest sut, Storage storage, Path dir, Settings settings) {
        Objects.requireNonNull(sut, "sut");
        Objects.requireNonNull(storage, "storage");
        if (sut.engine() != storage.engine()) {
            throw new IllegalArgumentException("storage " + storage.name() + " is a setting of " + storage.engine()
                    + ", and " + sut.name() + " runs on " + sut.engine());
        }
        return new PowerLossDriver(sut, storage, Objects.requireNonNull(dir, "dir"),
                Objects.requireNonNull(settings, "settings")).run();
    }

    /**
     * The database the workers run on, and what happens to it at a cut besides the power and the
     * workers: a SQLite file, or a PostgreSQL server (which dies with the power, and must start again).
     */
    private interface Target {

        /** How a worker is told which database to open: {@link Database#argument()}. */
        String argument();

        /**
         * What dies at the moment of the cut, just before the layer's power goes: everything that
         * could still hear an answer from the disk, so that nothing is acknowledged after the cut.
         */
        void crash(WorkerFleet workers);

        /**
         * After the power is back: recovers, and says "ok" or what is damaged.
         *
         * @throws Unrecoverable when the database cannot be used at all any more
         */
        String recover();

        Map<String, JobState> rows();
    }

    /** The database an earlier cut left cannot be opened: damage, and the end of the race. */
    static final class Unrecoverable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unrecoverable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private Result run() {
        long begun = System.nanoTime();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        if (storage instanceof SqliteStorage sqlite) {
            try (ForgetfulMount disk = ForgetfulMount.start(dir.resolve("backing"), dir.resolve("mnt"))) {
                Path file = disk.mountPoint().resolve("jobs.db");
                try (LeaseStore store = sut.open(file, sqlite.options())) {
                    for (int slot = 0; slot < settings.slots(); slot++) {
                        store.enqueue(StressWorker.jobId(slot, 0));
                    }
                }
                // The jobs to race on are set up before the first cut, whatever the sync setting does.
                disk.syncAll();
                return race(disk, new SqliteTarget(new Database.SqliteFile(file)), begun);
            }
        }
        try (PowerLossPostgres server = PowerLossPostgres.start((PostgresStorage) storage, dir)) {
            Database.PostgresSchema schema = server.createSchema(sut.name());
            try (LeaseStore store = sut.open(schema.url(), PostgresOptions.defaults().withPoolSize(1))) {
                for (int slot = 0; slot < settings.slots(); slot++) {
                    store.enqueue(StressWorker.jobId(slot, 0));
                }
            }
            server.checkpointAndSyncAll();
            return race(server.disk(), postgresTarget(server, schema), begun);
        }
    }

    private static final class SqliteTarget implements Target {
        private final Database.SqliteFile db;

        SqliteTarget(Database.SqliteFile db) {
            this.db = db;
        }

        @Override
        public String argument() {
            return db.argument();
        }

        @Override
        public void crash(WorkerFleet workers) {
            // The workers use the file themselves. One still running after the cut can be told a
            // commit is done whose last step (the directory's sync) SQLite skipped when the
            // directory would not open: kill -9 each, and wait until it is gone.
            workers.close();
        }

        @Override
        public String recover() {
            // The first connection rolls a hot journal back or replays the WAL.
            return db.integrityCheck();
        }

        @Override
        public Map<String, JobState> rows() {
            return db.rows();
        }
    }

    /** A Target for a PostgreSQL schema on a server on the layer; see {@link PowerLossPostgres}. */
    private static Target postgresTarget(PowerLossPostgres server, Database.PostgresSchema schema) {
        return new Target() {
            @Override
            public String argument() {
                return schema.argument();
            }

            @Override
            public void crash(WorkerFleet workers) {
                // Only the server touches the disk; the workers are killed after the power.
                server.crash();
            }

            @Override
            public String recover() {
                try {
                    server.restart();
                } catch (RuntimeException e) {
                    throw new Unrecoverable("the server does not start after the cut: " + e.getMessage(), e);
                }
                return server.integrityCheck(schema.schema());
            }

            @Override
            public Map<String, JobState> rows() {
                return server.rows(schema.schema());
            }
        };
    }

    private Result race(ForgetfulMount disk, Target db, long begun) {
        int cutsMade = 0;
        List<Op> ops = new ArrayList<>();
        long acknowledged = 0;
        long lost = 0;
        int cutsWithLoss = 0;
        long interrupted = 0;
        int integrityFailures = 0;
        long unsyncedLost = 0;
        String first = null;
        for (int cut = 1; cut <= settings.cuts() && !(settings.stopAtFirstLoss() && cutsWithLoss > 0); cut++) {
            cutsMade = cut;
            Path epoch = dir.resolve("cut-" + cut);
            Path stop = epoch.resolve("stop");
            List<Op> before;
            try {
                Files.createDirectories(epoch);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + epoch, e);
            }
            final int cutNumber = cut;
            try (WorkerFleet fleet = new WorkerFleet(epoch, random, (name, history) -> workerCommand(db.argument(),
                    history, "c" + cutNumber + name, stop))) {
                try {
                    fleet.startAndAwaitReady(settings.workers());
                } catch (WorkerFleet.WorkerDidNotStart e) {
                    // The file an earlier cut left cannot even be opened: damage, and the end of the race.
                    integrityFailures++;
                    first = first == null ? "after cut " + (cut - 1) + ": " + e.getMessage() : first;
                    cutsMade = cut - 1;
                    break;
                }
                sleep(settings.minRunMillis()
                        + (long) (random.nextDouble() * (settings.maxRunMillis() - settings.minRunMillis())));
                db.crash(fleet);
                PowerCut power = disk.cutPower(settings.mode(), random.nextLong());
                unsyncedLost += power.lostChanges();
                // Kills every worker still running (kill -9: on SQLite they are gone already) and waits until each is gone.
                fleet.close();
                before = new ArrayList<>();
                for (Path history : fleet.histories()) {
                    before.addAll(JsonLinesHistory.read(history));
                }
            }
            disk.powerOn();
            String integrity;
            try {
                integrity = db.recover();
            } catch (Unrecoverable e) {
                integrityFailures++;
                first = first == null ? "cut " + cut + ": " + e.getMessage() : first;
                // The first problem of a control is mostly a lost write; damage is worth its own line.
                System.err.println(sut.name() + " " + storage.name() + ": cut " + cut + ": " + e.getMessage());
                break;
            }
            if (!integrity.equals("ok")) {
                integrityFailures++;
                first = first == null ? "cut " + cut + ": integrity check: " + integrity : first;
                System.err.println(sut.name() + " " + storage.name() + ": cut " + cut + ": integrity check: " + integrity);
            }
            Map<String, JobState> rows;
            try {
                rows = db.rows();
            } catch (RuntimeException e) {
                // A torn page can leave a file that integrity_check passes but whose rows make no
                // sense (a NULL id was seen with synchronous=OFF): damage, and nothing of it is kept.
                integrityFailures++;
                first = first == null ? "cut " + cut + ": the rows cannot be read: " + e : first;
                rows = Map.of();
            }
            acknowledged += before.stream().filter(Op::ok).count();
            interrupted += before.stream().filter(op -> op.outcome() == Op.Outcome.UNKNOWN).count();
            // Every acknowledged operation so far, not only this cut's: a later cut must not take
            // back what an earlier one kept. A write is counted once, at the first cut that lost it.
            ops.addAll(before);
            List<PowerLossChecker.LostWrite> missing = PowerLossChecker.lostWrites(ops, rows);
            if (!missing.isEmpty()) {
                first = first == null ? "cut " + cut + ": " + missing.get(0).describe() : first;
                lost += missing.size();
                cutsWithLoss++;
                ops.removeAll(missing.stream().map(PowerLossChecker.LostWrite::op).toList());
            }
        }
        List<Op> all = new ArrayList<>();
        for (int cut = 1; cut <= cutsMade; cut++) {
            try (var files = Files.list(dir.resolve("cut-" + cut))) {
                files.filter(f -> f.toString().endsWith(".jsonl")).sorted().forEach(f -> all.addAll(JsonLinesHistory.read(f)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Map<String, JobState> finalRows;
        try {
            finalRows = db.rows();
        } catch (RuntimeException e) {
            finalRows = null;
            first = first == null ? "the final rows cannot be read: " + e : first;
        }
        CheckReport check = HistoryChecker.check(all, finalRows);
        long reissued = PowerLossChecker.reissuedFences(all);
        if (first == null && !check.passed()) {
            first = check.describeViolations(1);
        }
        return new Result(sut.name(), storage.name(), cutsMade, acknowledged, lost, cutsWithLoss, interrupted,
                reissued, integrityFailures,
                unsyncedLost, check, first, (System.nanoTime() - begun) / 1_000_000);
    }

    private List<String> workerCommand(String database, Path history, String name, Path stop) {
        return List.of(PowerLossWorker.class.getName(), database, history.toString(), sut.name(), storage.name(), name,
                Long.toString(random.nextLong()), Integer.toString(settings.slots()), Long.toString(settings.ttlMillis()),
                stop.toString(), Long.toString(settings.maxRunMillis() + 120_000));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during a power-loss race", e);
        }
    }
}
