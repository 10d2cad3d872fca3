package dev.leaselab.testkit;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;
import dev.leaselab.lease.PostgresLeaseStore;
import dev.leaselab.testkit.process.Processes;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server of the tests, one per test JVM ({@link #get()}), for every module's tests.
 *
 * <ul>
 *   <li>With a server given ({@link PostgresUrl}: {@code -Dleaselab.postgres.url=jdbc:postgresql://host:port/db?user=...}
 *       or {@code LEASELAB_POSTGRES_URL}), the tests use that server: every test works in a schema
 *       of its own, which it drops at the end.
 *   <li>Otherwise the tests start a throwaway server from Debian's packages: the newest
 *       {@code /usr/lib/postgresql/<version>/bin/initdb} (or the one in the directory given with
 *       {@code -Dleaselab.postgres.bin=...}, for other layouts) creates a cluster in a fresh temporary
 *       directory, and {@code pg_ctl} starts it on a free loopback port with its socket inside
 *       that directory. As root, it runs as the {@code postgres} user ({@code runuser}), since
 *       PostgreSQL refuses to run as root. {@code fsync} is off: the tests check rules, not
 *       durability through a power loss. A shutdown hook stops it ({@code pg_ctl stop -m fast})
 *       and deletes the directory; a server left behind by a test JVM that was killed is stopped
 *       and deleted by the next test JVM.
 *   <li>Without the binaries the PostgreSQL tests fail and say what to install, unless
 *       {@code -Dleaselab.postgres=skip} is set: then they are skipped, with a banner on stderr.
 *       A server given by URL that does not answer, or binaries that fail to start a server,
 *       always fail the tests.
 * </ul>
 *
 * <p>{@link #startPrivate()} starts another throwaway server for a test that restarts its server.
 */
public final class PostgresServer implements AutoCloseable {

    /** {@code -Dleaselab.postgres=skip}: without PostgreSQL binaries, skip its tests instead of failing them. */
    public static final String MODE_PROPERTY = "leaselab.postgres";
    public static final String BIN_PROPERTY = "leaselab.postgres.bin";

    private static final Path DEBIAN_PACKAGES = Path.of("/usr/lib/postgresql");
    private static final String DIR_PREFIX = "leaselab-pg-";
    private static final String USER = "leaselab";
    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    private static PostgresServer shared;
    private static String unavailable;
    private static boolean skipped;

    private final String url;
    /** The throwaway cluster, or null for a server given by URL. */
    private final Cluster cluster;
    private Connection admin;

    private PostgresServer(String url, Cluster cluster) {
        this.url = url;
        this.cluster = cluster;
    }

    /**
     * The server of this test JVM, started on first use.
     *
     * @throws org.opentest4j.TestAbortedException if there is no server and the tests are skipped
     * @throws AssertionError if there is no server, saying how to get one
     */
    public static synchronized PostgresServer get() {
        if (shared == null && unavailable == null) {
            try {
                shared = connectOrStart();
            } catch (Unavailable e) {
                unavailable = e.getMessage();
                // Only a machine without PostgreSQL may skip: a server that was asked for by URL
                // and does not answer, or binaries that fail to start one, are failures.
                skipped = e.skippable && "skip".equals(System.getProperty(MODE_PROPERTY));
                if (skipped) {
                    System.err.println(banner(unavailable));
                }
            }
        }
        if (shared != null) {
            return shared;
        }
        if (skipped) {
            Assumptions.abort("PostgreSQL tests skipped (-D" + MODE_PROPERTY + "=skip): " + unavailable);
        }
        throw new AssertionError(unavailable);
    }

    /** A throwaway server of its own, for a test that stops and starts it. The caller closes it. */
    public static PostgresServer startPrivate() {
        Optional<Path> bin = binaries();
        if (bin.isEmpty()) {
            // Without binaries this fails or is skipped like every PostgreSQL test; with a server
            // given by URL there is just nothing this test may restart.
            get();
            Assumptions.abort("this test starts a server of its own and needs PostgreSQL's binaries under "
                    + DEBIAN_PACKAGES + " or in -D" + BIN_PROPERTY + " (apt-get install postgresql)");
        }
        try {
            Cluster cluster = Cluster.create(bin.get());
            return new PostgresServer(cluster.url(), cluster);
        } catch (IOException e) {
            throw new AssertionError("could not start a private PostgreSQL server: " + e.getMessage(), e);
        }
    }

    private static PostgresServer connectOrStart() throws Unavailable {
        Optional<PostgresUrl> given = PostgresUrl.configured();
        if (given.isPresent()) {
            PostgresServer server = new PostgresServer(given.get().url(), null);
            try (Connection c = server.connect()) {
                return server;
            } catch (SQLException e) {
                throw new Unavailable("cannot connect to " + given.get() + ": " + e.getMessage(), false);
            }
        }
        Optional<Path> bin = binaries();
        if (bin.isEmpty()) {
            String where = System.getProperty(BIN_PROPERTY, "").isBlank() ? DEBIAN_PACKAGES + "/*/bin"
                    : System.getProperty(BIN_PROPERTY) + " (-D" + BIN_PROPERTY + ")";
            throw new Unavailable("the PostgreSQL tests need a PostgreSQL server, and there is no initdb and pg_ctl in "
                    + where + " to start one. Install PostgreSQL with `apt-get install postgresql` "
                    + "(Debian, Ubuntu), or run the tests against a server with -D" + PostgresUrl.PROPERTY
                    + "=jdbc:postgresql://HOST:PORT/DATABASE?user=USER&password=PASSWORD, "
                    + "or skip them with -D" + MODE_PROPERTY + "=skip", true);
        }
        try {
            Cluster.removeLeftovers();
            Cluster cluster = Cluster.create(bin.get());
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::destroy, "leaselab-postgres-stop"));
            return new PostgresServer(cluster.url(), cluster);
        } catch (IOException e) {
            throw new Unavailable("could not start a throwaway PostgreSQL server from " + bin.get() + ": " + e.getMessage(), false);
        }
    }

    private static String banner(String reason) {
        String line = "!".repeat(100);
        return "\n" + line + "\n!! PostgreSQL tests SKIPPED (-D" + MODE_PROPERTY + "=skip): the PostgreSQL strategies are NOT tested.\n!! "
                + reason + "\n" + line + "\n";
    }

    /** The directory of {@code -Dleaselab.postgres.bin}, else the newest {@code /usr/lib/postgresql/<version>/bin}. */
    private static Optional<Path> binaries() {
        return binaries(SERVER_PROGRAMS);
    }

    private static final String[] SERVER_PROGRAMS = {"initdb", "pg_ctl"};

    private static boolean hasServerBinaries(Path bin) {
        return hasPrograms(bin, SERVER_PROGRAMS);
    }

    private static boolean hasPrograms(Path bin, String... programs) {
        return Arrays.stream(programs).allMatch(program -> Files.isExecutable(bin.resolve(program)));
    }

    /**
     * The directory of PostgreSQL's programs that holds every one of {@code programs}: the one
     * given with {@code -Dleaselab.postgres.bin}, else the newest of Debian's
     * {@code /usr/lib/postgresql/<version>/bin}; empty when there is none. For other harnesses
     * that run a server of their own (the power-loss races start {@code postgres} directly).
     */
    public static Optional<Path> binaries(String... programs) {
        Predicate<Path> hasAll = bin -> hasPrograms(bin, programs);
        String given = System.getProperty(BIN_PROPERTY, "").strip();
        if (!given.isEmpty()) {
            return Optional.of(Path.of(given)).filter(hasAll);
        }
        if (!Files.isDirectory(DEBIAN_PACKAGES)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(DEBIAN_PACKAGES)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(hasAll)
                    .max(Comparator.comparing((Path bin) -> version(bin.getParent().getFileName().toString())));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static double version(String name) {
        try {
            return Double.parseDouble(name);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The URL of the server's database, with its user (and password, if given). */
    public String url() {
        return url;
    }

    /** A plain connection to the server's database. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url);
    }

    /**
     * A new, empty schema with a name no other test uses, as a database of its own for one test;
     * {@link Database#drop()} removes it.
     */
    public Database.PostgresSchema createSchema() {
        String schema = "t" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
        try {
            admin("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new AssertionError("could not create schema " + schema + ": " + e.getMessage(), e);
        }
        return new Database.PostgresSchema(url, schema);
    }

    /**
     * Runs a statement on the one administrative connection of this server. Schemas are created
     * for every test; on a small VM a new PostgreSQL connection costs tens of
     * milliseconds of the server's CPU, so they share one.
     */
    private synchronized void admin(String sql) throws SQLException {
        for (int attempt = 0; ; attempt++) {
            try {
                if (admin == null || admin.isClosed()) {
                    admin = connect();
                    try (Statement s = admin.createStatement()) {
                        s.execute("SET lock_timeout = '5s'");
                    }
                }
                try (Statement s = admin.createStatement()) {
                    s.execute(sql);
                    return;
                }
            } catch (SQLException e) {
                // A connection that broke (a restart) is replaced once; a failing statement is not retried.
                boolean broken = admin == null || !admin.isValid(1);
                if (!broken || attempt > 0) {
                    throw e;
                }
                admin = null;
            }
        }
    }

    /** Whether this test can stop and start the server: only a throwaway server of the tests. */
    public boolean restartable() {
        return cluster != null;
    }

    /** Stops the server as {@code pg_ctl stop -m fast} does: connections are cut, nothing committed is lost. */
    public void stop() throws IOException {
        requireCluster().stop();
    }

    /** Starts the stopped server again on the same port. */
    public void start() throws IOException {
        requireCluster().start();
    }

    private Cluster requireCluster() {
        if (cluster == null) {
            throw new IllegalStateException("the server at " + PostgresLeaseStore.redact(url) + " is not the tests' own");
        }
        return cluster;
    }

    /** Stops and deletes a private server; the shared one goes with the JVM. */
    @Override
    public void close() {
        if (cluster != null && this != shared) {
            synchronized (this) {
                try {
                    if (admin != null) {
                        admin.close();
                    }
                } catch (SQLException e) {
                    // The server goes away next anyway.
                }
            }
            cluster.destroy();
        }
    }

    private static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        /** Whether {@code -Dleaselab.postgres=skip} may turn this into skipped tests. */
        final boolean skippable;

        Unavailable(String message, boolean skippable) {
            super(message);
            this.skippable = skippable;
        }
    }

    /** A cluster in a temporary directory, run by {@code pg_ctl}. */
    private static final class Cluster {

        private final Path bin;
        private final Path dir;
        private final Path data;
        private final List<String> runAs;
        private int port;

        private Cluster(Path bin, Path dir, List<String> runAs) {
            this.bin = bin;
            this.dir = dir;
            this.data = dir.resolve("data");
            this.runAs = runAs;
        }

        static Cluster create(Path bin) throws IOException {
            Path dir = Files.createTempDirectory(DIR_PREFIX);
            // Who owns this server: the next test JVM removes it if this one dies without its hook.
            Files.writeString(dir.resolve("owner.pid"), Long.toString(ProcessHandle.current().pid()));
            List<String> runAs = List.of();
            if ("root".equals(System.getProperty("user.name"))) {
                runAs = List.of("runuser", "-u", "postgres", "--");
                Processes.run(List.of("chown", "-R", "postgres:postgres", dir.toString()), 30);
            }
            Cluster cluster = new Cluster(bin, dir, runAs);
            try {
                cluster.initdb();
                cluster.startOnAFreePort();
                return cluster;
            } catch (IOException | RuntimeException e) {
                cluster.destroy();
                throw e;
            }
        }

        String url() {
            return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=" + USER;
        }

        private void initdb() throws IOException {
            Processes.run(command(bin.resolve("initdb").toString(), "-D", data.toString(), "--username=" + USER,
                    "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"), 300);
        }

        private void startOnAFreePort() throws IOException {
            IOException last = null;
            for (int attempt = 0; attempt < 5; attempt++) {
                port = Processes.freeLoopbackPort();
                try {
                    start();
                    return;
                } catch (IOException e) {
                    // Another process may have taken the port between the probe and the start.
                    last = e;
                }
            }
            throw last;
        }

        void start() throws IOException {
            String options = "-p " + port + " -k '" + dir + "' -c listen_addresses=127.0.0.1"
                    + " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
                    + " -c max_connections=300";
            try {
                Processes.run(command(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", dir.resolve("server.log").toString(),
                        "-w", "-t", "300", "-o", options, "start"), 330);
            } catch (IOException e) {
                throw new IOException(e.getMessage() + "\nserver log:\n" + tail(dir.resolve("server.log")), e);
            }
        }

        public void stop() throws IOException {
            Processes.run(command(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "fast", "-w", "-t", "120", "stop"), 150);
        }

        /** Stops the server if it runs and deletes its directory; best effort, for hooks and cleanup. */
        void destroy() {
            if (Files.exists(data.resolve("postmaster.pid"))) {
                try {
                    stop();
                } catch (IOException e) {
                    System.err.println("could not stop the test PostgreSQL server in " + dir + ": " + e.getMessage());
                }
            }
            Processes.deleteTree(dir);
        }

        /** Stops and deletes the servers of test JVMs that are gone. */
        static void removeLeftovers() {
            Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
            try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tmp, DIR_PREFIX + "*")) {
                for (Path dir : dirs) {
                    Path owner = dir.resolve("owner.pid");
                    Path bin = binaryOf(dir);
                    if (!Files.isRegularFile(owner) || bin == null) {
                        continue;
                    }
                    long pid = Long.parseLong(Files.readString(owner).strip());
                    if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                        continue;
                    }
                    List<String> runAs = "root".equals(System.getProperty("user.name"))
                            ? List.of("runuser", "-u", "postgres", "--") : List.of();
                    new Cluster(bin, dir, runAs).destroy();
                }
            } catch (IOException | RuntimeException e) {
                System.err.println("could not clean up old test PostgreSQL servers: " + e.getMessage());
            }
        }

        /** The binaries of the version that created the cluster in {@code dir}. */
        private static Path binaryOf(Path dir) throws IOException {
            Path version = dir.resolve("data").resolve("PG_VERSION");
            if (!Files.isRegularFile(version)) {
                return null;
            }
            Path bin = DEBIAN_PACKAGES.resolve(Files.readString(version).strip()).resolve("bin");
            return hasServerBinaries(bin) ? bin : binaries().orElse(null);
        }

        private List<String> command(String... words) {
            List<String> command = new ArrayList<>(runAs);
            command.addAll(List.of(words));
            return command;
        }

        private static String tail(Path log) {
            try {
                List<String> lines = Files.readAllLines(log);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
            } catch (IOException e) {
                return "(no log: " + e.getMessage() + ")";
            }
        }
    }
}
