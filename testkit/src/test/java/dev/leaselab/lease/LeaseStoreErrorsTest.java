package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.StopAtFirstCatch;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input and database failures: the caller's mistakes are exceptions that name the argument and
 * are raised before the database is touched; the database's failures are
 * {@link LeaseStoreException}s that name the file, never a {@code false}, and leave the stored
 * jobs exactly as they were.
 *
 * <p>Bad numbers, nulls and a closed store are checked for every strategy of both engines. The
 * tests of files (a missing directory, a file that is not a database, a corrupt or read-only file)
 * and of SQLite's busy timeout are about SQLite only and run its strategies only; the failures of a
 * PostgreSQL server are in {@link PostgresFaultsTest} and {@link PostgresRestartTest}.
 */
@ExtendWith({StoreUnderTest.class, StopAtFirstCatch.class})
class LeaseStoreErrorsTest {

    @TempDir
    Path dir;

    private StoreFactory stores;
    private Path file;
    private Database db;
    private LeaseStore store;

    @BeforeEach
    void setUp(StoreFactory stores) {
        this.stores = stores;
        this.file = dir.resolve("jobs.db");
        this.db = new Database.SqliteFile(file);
    }

    /** The strategies of the tests that are about SQLite's files and settings. */
    static List<LockingStrategy> sqliteStrategies() {
        return LockingStrategy.of(LockingStrategy.Engine.SQLITE);
    }

    /**
     * Skips a SQLite test in a kill matrix run of a PostgreSQL variant. It must come first: inside
     * an {@code assertThrows}, the factory's own skip would count as the wrong exception.
     */
    private void assumeCovered(LockingStrategy strategy) {
        assumeTrue(stores.covers(strategy), "this run does not test " + strategy);
    }

    @AfterEach
    void tearDown() {
        if (store != null) {
            store.close();
        }
    }

    /** A SQLite store with a held job "j" (A, fence 1, until 130) and a done job "d". */
    private LeaseStore seeded(LockingStrategy strategy, StoreOptions options) {
        return seed(stores.openSqlite(file, strategy, options));
    }

    /** The same on a fresh database of the strategy's engine, which becomes {@link #db}. */
    private LeaseStore seeded(LockingStrategy strategy) {
        db = stores.database(strategy);
        return seed(stores.open(db, strategy));
    }

    private LeaseStore seed(LeaseStore opened) {
        store = opened;
        store.enqueue("j");
        store.claim("j", "A", 100, 30);
        store.enqueue("d");
        long fence = store.claim("d", "A", 100, 30).orElseThrow();
        store.complete("d", "A", fence, 101, "kept");
        return store;
    }

    private static final double NAN = Double.NaN;
    private static final double INF = Double.POSITIVE_INFINITY;

    /** A call with one bad argument, and the argument its message must name. */
    private record Bad(String argument, Consumer<LeaseStore> call) {}

    /** Every call with one bad number. */
    private static List<Bad> badNumbers() {
        return List.of(
                bad("ttl", s -> s.claim("j", "B", 200, 0)),
                bad("ttl", s -> s.claim("j", "B", 200, -1)),
                bad("ttl", s -> s.claim("j", "B", 200, NAN)),
                bad("ttl", s -> s.claim("j", "B", 200, INF)),
                bad("ttl", s -> s.claim("j", "B", 200, -INF)),
                bad("now", s -> s.claim("j", "B", NAN, 30)),
                bad("now", s -> s.claim("j", "B", INF, 30)),
                bad("now", s -> s.claim("j", "B", -INF, 30)),
                bad("now + ttl", s -> s.claim("j", "B", Double.MAX_VALUE, Double.MAX_VALUE)),
                bad("ttl", s -> s.renew("j", "A", 1, 110, 0)),
                bad("ttl", s -> s.renew("j", "A", 1, 110, -5)),
                bad("ttl", s -> s.renew("j", "A", 1, 110, NAN)),
                bad("ttl", s -> s.renew("j", "A", 1, 110, INF)),
                bad("now", s -> s.renew("j", "A", 1, NAN, 30)),
                bad("now", s -> s.renew("j", "A", 1, -INF, 30)),
                bad("now", s -> s.complete("j", "A", 1, NAN, "r")),
                bad("now", s -> s.complete("j", "A", 1, INF, "r")),
                bad("now", s -> s.completeAll(List.of(new Completion("j", "A", 1, "r")), NAN)),
                bad("now", s -> s.completeAll(List.of(new Completion("j", "A", 1, "r")), -INF)),
                bad("ttl", s -> s.claimMany("j", List.of("B", "C"), 200, 0)),
                bad("ttl", s -> s.claimMany("j", List.of("B", "C"), 200, NAN)),
                bad("now", s -> s.claimMany("j", List.of("B", "C"), INF, 30)));
    }

    private static Bad bad(String argument, Consumer<LeaseStore> call) {
        return new Bad(argument, call);
    }

    /** Every call with one null. */
    private static List<Bad> nulls() {
        return List.of(
                bad("jobId", s -> s.enqueue(null)),
                bad("jobId", s -> s.state(null)),
                bad("jobId", s -> s.claim(null, "B", 200, 30)),
                bad("owner", s -> s.claim("j", null, 200, 30)),
                bad("jobId", s -> s.renew(null, "A", 1, 110, 30)),
                bad("owner", s -> s.renew("j", null, 1, 110, 30)),
                bad("jobId", s -> s.complete(null, "A", 1, 110, "r")),
                bad("owner", s -> s.complete("j", null, 1, 110, "r")),
                bad("result", s -> s.complete("j", "A", 1, 110, null)),
                bad("completions", s -> s.completeAll(null, 110)),
                bad("completions[1]", s -> s.completeAll(Arrays.asList(new Completion("j", "A", 1, "r"), null), 110)),
                // Refused by Completion itself, before any store: the rule a store's own completions follow.
                bad("result", s -> s.completeAll(List.of(new Completion("j", "A", 1, null)), 110)),
                bad("jobId", s -> s.release(null, "A", 1)),
                bad("owner", s -> s.release("j", null, 1)),
                bad("jobId", s -> s.claimMany(null, List.of("B"), 200, 30)),
                bad("owners", s -> s.claimMany("j", null, 200, 30)),
                bad("owners[1]", s -> s.claimMany("j", Arrays.asList("B", null), 200, 30)));
    }

    /**
     * One store per strategy takes every bad call: each must be refused before the database is
     * touched, so the seeded jobs are still exactly as they were after all of them.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void badNumbersAreRejectedByNameAndChangeNothing(LockingStrategy strategy) throws Exception {
        seeded(strategy);
        SortedMap<String, JobState> before = db.rows();
        List<Bad> cases = badNumbers();
        for (int i = 0; i < cases.size(); i++) {
            Bad bad = cases.get(i);
            String name = "case " + i + " (" + bad.argument() + ")";
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> bad.call().accept(store), name);
            assertTrue(e.getMessage().startsWith(bad.argument() + " "), name + ": " + e.getMessage());
        }
        assertEquals(before, db.rows());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void nullsAreRejectedByNameAndChangeNothing(LockingStrategy strategy) throws Exception {
        seeded(strategy);
        SortedMap<String, JobState> before = db.rows();
        List<Bad> cases = nulls();
        for (int i = 0; i < cases.size(); i++) {
            Bad bad = cases.get(i);
            String name = "case " + i + " (" + bad.argument() + ")";
            NullPointerException e = assertThrows(NullPointerException.class, () -> bad.call().accept(store), name);
            assertEquals(bad.argument(), e.getMessage(), name);
        }
        assertEquals(before, db.rows());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void aClosedStoreRefusesEveryOperation(LockingStrategy strategy) throws Exception {
        seeded(strategy).close();
        SortedMap<String, JobState> before = db.rows();
        List<Executable> calls = List.of(
                () -> store.enqueue("k"),
                () -> store.state("j"),
                () -> store.claim("j", "B", 200, 30),
                () -> store.renew("j", "A", 1, 110, 30),
                () -> store.complete("j", "A", 1, 110, "r"),
                () -> store.completeAll(List.of(new Completion("j", "A", 1, "r")), 110),
                () -> store.completeAll(List.of(), 110),
                () -> store.release("j", "A", 1),
                () -> store.claimMany("j", List.of("B", "C"), 200, 30));
        for (Executable call : calls) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call);
            assertTrue(e.getMessage().contains(db.label()), e.getMessage());
        }
        store.close();
        assertEquals(before, db.rows());
    }

    /**
     * A batch of completes whose last write the database refuses (a trigger that another program
     * on the database might have installed) is a failure, and the completes before it in the
     * batch are not stored either: one transaction, rolled back whole. Job "j" sorts before "k",
     * so its write has run when "k"'s fails. Twice: each job once, and with "j" named twice. Then
     * the store goes on: the batch without the refused result is accepted and stored (a store that
     * left the failed transaction open on its connection would fail it, or never commit it).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void aBatchOfCompletesThatFailsHalfWayStoresNoneOfThem(LockingStrategy strategy) throws Exception {
        seeded(strategy);
        long k = refuseBoomAndClaimK(store, db);
        assertEquals(List.of(true, true), storedOnlyWhenAllSucceed(store, db, List.of(
                new Completion("j", "A", 1, "fine"), new Completion("k", "A", k, "boom"))));
        assertEquals(List.of(true, true), storedOnlyWhenAllSucceed(store, db, List.of(
                new Completion("j", "A", 1, "fine"), new Completion("j", "A", 1, "again"), new Completion("k", "A", k, "boom"))));
        assertEquals(List.of(true, true), store.completeAll(List.of(
                new Completion("j", "A", 1, "fine"), new Completion("k", "A", k, "not boom")), 110));
        assertEquals("fine", db.rows().get("j").result());
        assertEquals("not boom", db.rows().get("k").result());
    }

    /**
     * The negative control of the test above: completes one after another, each its own commit, as
     * {@link LeaseStore#completeAll}'s default does, keep the write before the failure.
     */
    @Test
    void completesOneAfterAnotherAreCaughtKeepingTheWriteBeforeTheFailure() throws Exception {
        assumeCovered(LockingStrategy.CONDITIONAL_UPDATE);
        seeded(LockingStrategy.CONDITIONAL_UPDATE);
        LeaseStore oneByOne = new ForwardingLeaseStore(store) {
            @Override
            public List<Boolean> completeAll(List<Completion> completions, double now) {
                return completions.stream().map(c -> complete(c.jobId(), c.owner(), c.fence(), now, c.result())).toList();
            }
        };
        long k = refuseBoomAndClaimK(store, db);
        assertEquals(List.of(true, false), storedOnlyWhenAllSucceed(oneByOne, db, List.of(
                new Completion("j", "A", 1, "fine"), new Completion("k", "A", k, "boom"))));
    }

    /** Installs a trigger that refuses the result "boom", and claims job "k" for A; returns its fence. */
    private static long refuseBoomAndClaimK(LeaseStore store, Database db) throws Exception {
        store.enqueue("k");
        long k = store.claim("k", "A", 100, 30).orElseThrow();
        switch (db.engine()) {
            case SQLITE -> db.execute("CREATE TRIGGER refuse_boom BEFORE UPDATE OF result ON jobs WHEN NEW.result = 'boom' "
                    + "BEGIN SELECT RAISE(ABORT, 'boom refused'); END");
            case POSTGRESQL -> {
                db.execute("CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                        + "IF NEW.result = 'boom' THEN RAISE EXCEPTION 'boom refused'; END IF; RETURN NEW; END $$");
                db.execute("CREATE TRIGGER refuse_boom BEFORE UPDATE ON jobs FOR EACH ROW EXECUTE FUNCTION refuse_boom()");
            }
        }
        return k;
    }

    /** Runs the batch; answers whether it failed as a {@link LeaseStoreException}, and whether the stored jobs are as before it. */
    private static List<Boolean> storedOnlyWhenAllSucceed(LeaseStore store, Database db, List<Completion> batch) throws Exception {
        SortedMap<String, JobState> before = db.rows();
        boolean failed;
        try {
            store.completeAll(batch, 110);
            failed = false;
        } catch (LeaseStoreException e) {
            failed = true;
        }
        return List.of(failed, before.equals(db.rows()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sqliteStrategies")
    void aMissingDirectoryIsAFailureNamingTheFile(LockingStrategy strategy) {
        assumeCovered(strategy);
        Path missing = dir.resolve("no-such-dir").resolve("jobs.db");
        LeaseStoreException e = assertThrows(LeaseStoreException.class,
                () -> stores.openSqlite(missing, strategy, StoreOptions.defaults()));
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        assertNotNull(e.getCause());
        assertFalse(Files.exists(missing.getParent()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sqliteStrategies")
    void aFileThatIsNotADatabaseIsAFailureAndIsLeftAlone(LockingStrategy strategy) throws IOException {
        assumeCovered(strategy);
        byte[] text = "these are my notes, not a database\n".repeat(200).getBytes(StandardCharsets.UTF_8);
        Files.write(file, text);
        LeaseStoreException e = assertThrows(LeaseStoreException.class,
                () -> stores.openSqlite(file, strategy, StoreOptions.defaults()));
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertArrayEquals(text, Files.readAllBytes(file));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sqliteStrategies")
    void aCorruptFileIsAFailureNotAnAnswer(LockingStrategy strategy) throws Exception {
        assumeCovered(strategy);
        seeded(strategy, StoreOptions.defaults().withJournalMode(StoreOptions.JournalMode.DELETE)).close();
        store = null;
        // Page 2 is the root page of the jobs table: overwrite it with garbage.
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            int pageSize = 4096;
            raf.seek(pageSize);
            byte[] garbage = new byte[pageSize];
            Arrays.fill(garbage, (byte) 0x5A);
            raf.write(garbage);
        }
        store = stores.openSqlite(file, strategy, StoreOptions.defaults().withJournalMode(StoreOptions.JournalMode.DELETE));
        LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> store.claim("j", "B", 200, 30));
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertThrows(LeaseStoreException.class, () -> store.state("j"));
        assertThrows(LeaseStoreException.class, () -> store.complete("j", "A", 1, 110, "r"));
    }

    /**
     * SQLite checkpoints the WAL after an autocommit only when the statement ran to its end. A
     * claim whose {@code RETURNING} row was read and whose statement was then merely reset still
     * committed, but never checkpointed: a stream of claims alone grew the WAL by a page each,
     * without bound. Run to the limit, the WAL must stay near SQLite's default checkpoint
     * threshold (1000 pages) instead of holding one page per claim.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sqliteStrategies")
    void aStreamOfClaimsKeepsTheWalNearTheCheckpointThreshold(LockingStrategy strategy) throws Exception {
        assumeCovered(strategy);
        int claims = 2_500;
        store = stores.openSqlite(file, strategy,
                StoreOptions.defaults().withSynchronous(StoreOptions.Synchronous.NORMAL));
        assertTrue(store.enqueue("hot"));
        for (int i = 0; i < claims; i++) {
            assertEquals(OptionalLong.of(i + 1), store.claim("hot", "w" + (i % 2), 2.0 * i, 1.0));
        }
        long pageSize = db.withConnection(c -> {
            try (Statement st = c.createStatement()) {
                return st.executeQuery("PRAGMA page_size").getLong(1);
            }
        });
        long walFrames = (Files.size(Path.of(file + "-wal")) - 32) / (pageSize + 24);
        assertTrue(walFrames <= 1_100, "the WAL holds " + walFrames + " pages after " + claims
                + " claims: it is not being checkpointed");
        assertEquals(claims, store.state("hot").orElseThrow().fence());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sqliteStrategies")
    void aReadOnlyFileIsAFailureAndIsLeftAlone(LockingStrategy strategy) throws Exception {
        assumeCovered(strategy);
        seeded(strategy, StoreOptions.defaults().withJournalMode(StoreOptions.JournalMode.DELETE)).close();
        store = null;
        SortedMap<String, JobState> before = db.rows();
        byte[] bytes = Files.readAllBytes(file);
        try (ReadOnly ignored = ReadOnly.make(file)) {
            LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> {
                try (LeaseStore readOnly = stores.openSqlite(file, strategy,
                        StoreOptions.defaults().withJournalMode(StoreOptions.JournalMode.DELETE))) {
                    readOnly.claim("j", "B", 200, 30);
                }
            });
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
            assertArrayEquals(bytes, Files.readAllBytes(file));
        }
        assertEquals(before, db.rows());
    }

    static Stream<Arguments> sqliteStrategiesAndBusyWaits() {
        return sqliteStrategies().stream().flatMap(strategy -> Arrays.stream(StoreOptions.BusyWait.values())
                .map(wait -> Arguments.of(strategy, wait)));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("sqliteStrategiesAndBusyWaits")
    void aWriteLockHeldPastTheBusyTimeoutIsAFailureAndChangesNothing(LockingStrategy strategy, StoreOptions.BusyWait wait)
            throws Exception {
        assumeCovered(strategy);
        seeded(strategy, StoreOptions.defaults().withBusyTimeout(Duration.ofMillis(150)).withBusyWait(wait));
        SortedMap<String, JobState> before = db.rows();
        try (Connection other = db.connect();
             Statement s = other.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            s.executeUpdate("UPDATE jobs SET result = 'uncommitted' WHERE id = 'j'");
            List<Executable> writes = List.of(
                    () -> store.enqueue("k"),
                    () -> store.claim("j", "B", 200, 30),
                    () -> store.renew("j", "A", 1, 110, 30),
                    () -> store.complete("j", "A", 1, 110, "r"),
                    () -> store.completeAll(List.of(new Completion("j", "A", 1, "r")), 110),
                    () -> store.release("j", "A", 1),
                    () -> store.claimMany("j", List.of("B", "C"), 200, 30));
            for (Executable write : writes) {
                LeaseStoreException e = assertThrows(LeaseStoreException.class, write);
                assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
                assertTrue(e.getCause() instanceof SQLException, String.valueOf(e.getCause()));
            }
            s.execute("ROLLBACK");
        }
        assertEquals(before, db.rows());
        // Once the lock is gone the same store works again.
        assertEquals(OptionalLong.of(2), store.claim("j", "B", 200, 30));
    }

    @Test
    void optionsRejectNonsense() {
        StoreOptions defaults = StoreOptions.defaults();
        assertEquals("poolSize must be at least 1: 0",
                assertThrows(IllegalArgumentException.class, () -> defaults.withPoolSize(0)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> defaults.withBusyTimeout(Duration.ofMillis(-1)))
                .getMessage().startsWith("busyTimeout "));
        assertEquals("journalMode", assertThrows(NullPointerException.class, () -> defaults.withJournalMode(null)).getMessage());
        assertEquals("synchronous", assertThrows(NullPointerException.class, () -> defaults.withSynchronous(null)).getMessage());
        assertEquals("strategy", assertThrows(NullPointerException.class, () -> SqliteLeaseStore.open(file, null)).getMessage());
        assertEquals("file", assertThrows(NullPointerException.class, () -> SqliteLeaseStore.open(null)).getMessage());
    }

    @Test
    void aStrategyOfTheOtherEngineIsRejectedByNameBeforeAnythingIsOpened() {
        for (LockingStrategy strategy : LockingStrategy.of(LockingStrategy.Engine.POSTGRESQL)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SqliteLeaseStore.open(file, strategy));
            assertTrue(e.getMessage().startsWith("strategy " + strategy + " belongs to POSTGRESQL"), e.getMessage());
        }
        for (LockingStrategy strategy : LockingStrategy.of(LockingStrategy.Engine.SQLITE)) {
            // No server listens here: the strategy is refused before any connection is tried.
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> PostgresLeaseStore.open("jdbc:postgresql://127.0.0.1:1/none", strategy));
            assertTrue(e.getMessage().startsWith("strategy " + strategy + " belongs to SQLITE"), e.getMessage());
        }
        assertFalse(Files.exists(file));
    }

    /**
     * Makes a file unwritable for the duration of a test. Root ignores file modes, so as root the
     * file is made immutable with {@code chattr +i} (CI runs as root); otherwise its mode is 0444
     * and its directory's 0555.
     */
    private record ReadOnly(Path file, boolean immutable) implements AutoCloseable {

        static ReadOnly make(Path file) throws IOException, InterruptedException {
            if ("root".equals(System.getProperty("user.name"))) {
                run("chattr", "+i", file.toString());
                return new ReadOnly(file, true);
            }
            file.toFile().setWritable(false, false);
            file.getParent().toFile().setWritable(false, false);
            return new ReadOnly(file, false);
        }

        @Override
        public void close() throws IOException, InterruptedException {
            if (immutable) {
                run("chattr", "-i", file.toString());
            } else {
                file.getParent().toFile().setWritable(true, false);
                file.toFile().setWritable(true, false);
            }
        }

        private static void run(String... command) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IOException(String.join(" ", command) + " failed: " + out);
            }
        }
    }
}
