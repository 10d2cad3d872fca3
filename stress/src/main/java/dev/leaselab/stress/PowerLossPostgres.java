package dev.leaselab.stress;

import dev.leaselab.lease.JobState;
import dev.leaselab.powerloss.ForgetfulMount;
import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.PostgresServer;
import dev.leaselab.testkit.process.Processes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server whose data directory lives on a {@link ForgetfulMount}, for the power-loss
 * races: it is killed with the power, and started again on what the layer kept.
 *
 * <ul>
 *   <li>The cluster is made by {@code initdb} on an ordinary directory ({@code initdb} through the
 *       layer would only be slower: every file it writes goes through FUSE), with 1 MB WAL segments
 *       (each segment lives in the layer's memory), then copied into the mount with {@code cp} (so
 *       the copy is the layer's first workout: directories, {@code chown}, {@code chmod}) and made
 *       durable with the layer's {@code sync} before the first cut, as a cluster that was shut down
 *       cleanly would be.</li>
 *   <li>The server is Debian's ({@code /usr/lib/postgresql/<newest>/bin}, or
 *       {@code -Dleaselab.postgres.bin}), on a free loopback port, its socket and log outside the
 *       mount, with {@code fsync} and {@code synchronous_commit} of the {@link PowerLossDriver.PostgresStorage}
 *       raced and the rest at the defaults but autovacuum (off: the two cores are for the race).
 *       As root it runs as user {@code postgres} ({@code setpriv}, which execs rather than forks,
 *       so the postmaster is this JVM's child and is reaped by it); {@link #crash} kills it and
 *       every process it forked.</li>
 *   <li>The integrity check after a restart: the server started (crash recovery ran), the table
 *       can be read, and {@code amcheck}'s {@code verify_heapam} on the table and
 *       {@code bt_index_check} (with {@code heapallindexed}) on each of its indexes find nothing.</li>
 * </ul>
 */
final class PowerLossPostgres implements AutoCloseable {

    static final String BIN_PROPERTY = PostgresServer.BIN_PROPERTY;
    private static final String SERVER_USER = "postgres";
    private static final long START_TIMEOUT_MILLIS = 180_000;

    private final PowerLossDriver.PostgresStorage storage;
    private final Path bin;
    /** Outside the mount and open to the server's user: its scratch, socket and log. */
    private final Path scratch;
    private final Path run;
    private final Path log;
    private final Path keepLog;
    private final List<String> asServerUser;
    private final ForgetfulMount disk;
    private final Path data;
    private final int port;
    private Process postmaster;
    private boolean amcheck;

    private PowerLossPostgres(PowerLossDriver.PostgresStorage storage, Path bin, Path scratch, Path keepLog,
            List<String> asServerUser, ForgetfulMount disk, int port) {
        this.storage = storage;
        this.bin = bin;
        this.scratch = scratch;
        this.run = scratch.resolve("run");
        this.log = run.resolve("server.log");
        this.keepLog = keepLog;
        this.asServerUser = asServerUser;
        this.disk = disk;
        this.data = disk.mountPoint().resolve("pgdata");
        this.port = port;
    }

    /**
     * Makes a cluster on a new mount and starts its server; the server's log is copied to
     * {@code dir/server.log} when it is closed.
     *
     * @throws IllegalStateException if there are no PostgreSQL binaries, saying how to get them, or
     *     the server does not start
     */
    static PowerLossPostgres start(PowerLossDriver.PostgresStorage storage, Path dir) {
        Path bin = binaries().orElseThrow(() -> new IllegalStateException("the PostgreSQL power-loss races need"
                + " PostgreSQL's binaries under /usr/lib/postgresql/<version>/bin or in -D" + BIN_PROPERTY
                + " (apt-get install postgresql), or run SQLite only: --engine sqlite"));
        boolean root = "root".equals(System.getProperty("user.name"));
        List<String> asServerUser = root
                ? List.of("setpriv", "--reuid=" + SERVER_USER, "--regid=" + SERVER_USER, "--init-groups")
                : List.of();
        Path scratch;
        ForgetfulMount disk = null;
        PowerLossPostgres server = null;
        try {
            // The mount point's parents must be open to the server's user, which a test's or a
            // run's temporary folder (mode 0700) is not.
            scratch = Files.createTempDirectory("leaselab-powerloss-pg-");
            Files.setPosixFilePermissions(scratch, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path run = Files.createDirectories(scratch.resolve("run"));
            Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx------"));
            if (root) {
                UserPrincipalLookupService users = FileSystems.getDefault().getUserPrincipalLookupService();
                Files.setOwner(run, users.lookupPrincipalByName(SERVER_USER));
                Files.getFileAttributeView(run, PosixFileAttributeView.class)
                        .setGroup(users.lookupPrincipalByGroupName(SERVER_USER));
            }
            Path template = run.resolve("template");
            List<String> initdb = new ArrayList<>(asServerUser);
            initdb.addAll(List.of(bin.resolve("initdb").toString(), "-D", template.toString(), "-U", SERVER_USER,
                    "--auth=trust", "-E", "UTF8", "--locale=C", "--wal-segsize=1", "--no-sync"));
            Processes.run(initdb, 300);
            disk = ForgetfulMount.start(scratch.resolve("backing"), scratch.resolve("mnt"));
            Processes.run(List.of("cp", "-R", "--preserve=mode,ownership", template.toString(),
                    disk.mountPoint().resolve("pgdata").toString()), 300);
            Processes.deleteTree(template);
            // What cp wrote is in the layer's memory only: a cluster shut down cleanly is on the disk.
            disk.syncAll();
            server = new PowerLossPostgres(storage, bin, scratch, dir.resolve("server.log"), asServerUser, disk, Processes.freeLoopbackPort());
            server.launch();
            return server;
        } catch (IOException | RuntimeException e) {
            if (server != null) {
                server.close();
            } else if (disk != null) {
                disk.destroy();
            }
            if (e instanceof IOException io) {
                throw new UncheckedIOException("cannot set up PostgreSQL on the forgetful file system", io);
            }
            throw (RuntimeException) e;
        }
    }

    /** The newest {@code /usr/lib/postgresql/<version>/bin}, or {@code -Dleaselab.postgres.bin}. */
    static Optional<Path> binaries() {
        return PostgresServer.binaries("initdb", "postgres");
    }

    /** The layer under the data directory. */
    ForgetfulMount disk() {
        return disk;
    }

    /** The server's URL, as its superuser. */
    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=" + SERVER_USER;
    }

    /**
     * A new schema for the race, and {@code amcheck} in the database if this PostgreSQL has it
     * (Debian's server package does), both before the first cut.
     */
    Database.PostgresSchema createSchema(String label) {
        Database.PostgresSchema schema = Database.PostgresSchema.create(url(), "powerloss", label);
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS amcheck");
            amcheck = true;
        } catch (SQLException e) {
            System.err.println("amcheck is not available (" + e.getMessage() + "): the integrity check after a cut"
                    + " reads the table only");
        }
        return schema;
    }

    /**
     * A checkpoint, then the layer's {@code sync}: the set-up is durable whatever the setting raced
     * (with {@code fsync=off} nothing else ever is), and the first recovery starts from it.
     */
    void checkpointAndSyncAll() {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            s.execute("CHECKPOINT");
        } catch (SQLException e) {
            throw new IllegalStateException("CHECKPOINT failed: " + e.getMessage(), e);
        }
        disk.syncAll();
    }

    /**
     * The server dies as with the power: {@code kill -9} of the postmaster and every process it
     * started, and waits until none of them is left, so that nothing the server acknowledges can
     * come after the layer's cut. The postmaster is stopped first ({@code SIGSTOP}), so that it
     * forks no process after its children are listed. Its process group would not do: PostgreSQL
     * makes every backend the leader of a group of its own ({@code setsid} in
     * {@code InitPostmasterChild}, so that the postmaster can signal a backend's children).
     */
    void crash() {
        long pid = postmaster.pid();
        try {
            signal("-STOP", List.of(pid));
            List<Long> server = new ArrayList<>();
            server.add(pid);
            ProcessHandle.of(pid).ifPresent(p -> p.children().forEach(child -> server.add(child.pid())));
            signal("-KILL", server);
            if (!postmaster.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the postmaster " + pid + " did not die within 30 s of kill -9");
            }
            long giveUp = System.currentTimeMillis() + 30_000;
            for (long process : server) {
                while (alive(process)) {
                    if (System.currentTimeMillis() > giveUp) {
                        throw new IllegalStateException("the server's process " + process + " was still alive 30 s after kill -9");
                    }
                    Thread.sleep(2);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot kill the server", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing the server", e);
        }
    }

    /** Sends a signal with kill(1); a process that is gone already (a PANIC) is no failure. */
    private static void signal(String signal, List<Long> pids) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("kill", signal, "--"));
        pids.forEach(pid -> command.add(Long.toString(pid)));
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
                .waitFor(30, TimeUnit.SECONDS);
    }

    /** Whether the process runs (a zombie, dead but not yet reaped by its new parent, does not), from {@code /proc}. */
    private static boolean alive(long pid) {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (IOException e) {
            return false;
        }
        // "pid (comm) state ...": comm may hold spaces and parentheses.
        return !stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    }

    /**
     * Starts the server again after a cut (the power is back): crash recovery replays the WAL that
     * the layer kept.
     *
     * @throws IllegalStateException with the end of the server's log, if it does not start
     */
    void restart() {
        try {
            // After a reboot no process of the old server exists, so postmaster.pid, if the cut
            // kept it, is stale, and PostgreSQL would remove it, unless its pid has been reused by
            // another process since (pids wrap around at 32768 here, and a run starts thousands):
            // then it would refuse to start, which a real reboot cannot cause. So it goes.
            Files.deleteIfExists(data.resolve("postmaster.pid"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the stale postmaster.pid", e);
        }
        launch();
    }

    /** "ok", or what the checks found: the table unreadable, a damaged heap page, a damaged index. */
    String integrityCheck(String schema) {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            String table = schema + ".jobs";
            try (ResultSet r = s.executeQuery("SELECT count(*) FROM " + table)) {
                r.next();
            }
            if (!amcheck) {
                return "ok";
            }
            List<String> problems = new ArrayList<>();
            try (ResultSet r = s.executeQuery("SELECT blkno, offnum, msg FROM public.verify_heapam('" + table + "')")) {
                while (r.next()) {
                    problems.add("heap block " + r.getLong(1) + " item " + r.getLong(2) + ": " + r.getString(3));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT i.indexrelid::regclass::text FROM pg_index i WHERE i.indrelid = '"
                    + table + "'::regclass")) {
                List<String> indexes = new ArrayList<>();
                while (r.next()) {
                    indexes.add(r.getString(1));
                }
                for (String index : indexes) {
                    try (Statement check = c.createStatement()) {
                        check.executeQuery("SELECT public.bt_index_check('" + index + "'::regclass, true)").close();
                    } catch (SQLException e) {
                        problems.add("index " + index + ": " + e.getMessage());
                    }
                }
            }
            return problems.isEmpty() ? "ok" : String.join("; ", problems);
        } catch (SQLException e) {
            return "failed: " + e.getMessage();
        }
    }

    /** Every row of the schema's {@code jobs}, read with plain JDBC on a new connection (the last one died with the server). */
    Map<String, JobState> rows(String schema) {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement();
                ResultSet row = s.executeQuery("SELECT id, owner, until, fence, result, done FROM " + schema + ".jobs")) {
            Map<String, JobState> rows = new TreeMap<>();
            while (row.next()) {
                rows.put(row.getString(1), new JobState(row.getString(1), row.getString(2), row.getDouble(3),
                        row.getLong(4), row.getString(5), row.getInt(6) != 0));
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the jobs of schema " + schema + ": " + e.getMessage(), e);
        }
    }

    /** Kills the server, unmounts (it is no longer used), keeps the log in the race's folder and deletes the rest. */
    @Override
    public void close() {
        try {
            if (postmaster != null && postmaster.isAlive()) {
                crash();
            }
        } finally {
            try {
                disk.close();
            } finally {
                try {
                    if (Files.exists(log)) {
                        Files.copy(log, keepLog, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                } catch (IOException e) {
                    System.err.println("could not keep the server's log " + log + ": " + e.getMessage());
                }
                Processes.deleteTree(scratch);
            }
        }
    }

    /** Starts the postmaster and waits until it accepts connections. */
    private void launch() {
        List<String> command = new ArrayList<>();
        command.addAll(asServerUser);
        command.addAll(List.of(bin.resolve("postgres").toString(), "-D", data.toString(), "-p", Integer.toString(port),
                "-k", run.toString(), "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=" + storage.fsync, "-c", "synchronous_commit=" + storage.synchronousCommit,
                "-c", "full_page_writes=on", "-c", "autovacuum=off", "-c", "max_connections=40",
                "-c", "shared_buffers=16MB", "-c", "max_wal_size=64MB", "-c", "min_wal_size=4MB",
                "-c", "log_min_messages=warning", "-c", "log_checkpoints=off"));
        try {
            Files.writeString(log, "== " + String.join(" ", command) + "\n", StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            postmaster = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        long giveUp = System.currentTimeMillis() + START_TIMEOUT_MILLIS;
        SQLException last = null;
        while (System.currentTimeMillis() < giveUp) {
            if (!postmaster.isAlive()) {
                throw new IllegalStateException("the server exited with " + postmaster.exitValue() + "; its log ends: "
                        + logTail());
            }
            try (Connection c = DriverManager.getConnection(url())) {
                return;
            } catch (SQLException e) {
                // Not listening yet, or "the database system is starting up" (crash recovery).
                last = e;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the server started", e);
            }
        }
        throw new IllegalStateException("the server did not accept connections within " + START_TIMEOUT_MILLIS / 1000
                + " s (" + (last == null ? "" : last.getMessage()) + "); its log ends: " + logTail());
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
