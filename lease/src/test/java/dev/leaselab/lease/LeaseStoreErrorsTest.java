package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
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
 */
@ExtendWith(StoreUnderTest.class)
class LeaseStoreErrorsTest {

    @TempDir
    Path dir;

    private StoreFactory stores;
    private Path db;
    private LeaseStore store;

    @BeforeEach
    void setUp(StoreFactory stores) {
        this.stores = stores;
        this.db = dir.resolve("jobs.db");
    }

    @AfterEach
    void tearDown() {
        if (store != null) {
            store.close();
        }
    }

    /** A store with a held job "j" (A, fence 1, until 130) and a done job "d". */
    private LeaseStore seeded(LockingStrategy strategy, StoreOptions options) {
        store = stores.open(db, strategy, options);
        store.enqueue("j");
        store.claim("j", "A", 100, 30);
        store.enqueue("d");
        long fence = store.claim("d", "A", 100, 30).orElseThrow();
        store.complete("d", "A", fence, 101, "kept");
        return store;
    }

    private static final double NAN = Double.NaN;
    private static final double INF = Double.POSITIVE_INFINITY;

    /** Every call with one bad number, and the argument its message must name. */
    static Stream<Arguments> badNumbers() {
        return Stream.of(
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
                bad("ttl", s -> s.claimMany("j", List.of("B", "C"), 200, 0)),
                bad("ttl", s -> s.claimMany("j", List.of("B", "C"), 200, NAN)),
                bad("now", s -> s.claimMany("j", List.of("B", "C"), INF, 30)));
    }

    private static Arguments bad(String argument, Consumer<LeaseStore> call) {
        return Arguments.of(argument, call);
    }

    /** Every call with one null, and the argument its message must name. */
    static Stream<Arguments> nulls() {
        return Stream.of(
                bad("jobId", s -> s.enqueue(null)),
                bad("jobId", s -> s.state(null)),
                bad("jobId", s -> s.claim(null, "B", 200, 30)),
                bad("owner", s -> s.claim("j", null, 200, 30)),
                bad("jobId", s -> s.renew(null, "A", 1, 110, 30)),
                bad("owner", s -> s.renew("j", null, 1, 110, 30)),
                bad("jobId", s -> s.complete(null, "A", 1, 110, "r")),
                bad("owner", s -> s.complete("j", null, 1, 110, "r")),
                bad("result", s -> s.complete("j", "A", 1, 110, null)),
                bad("jobId", s -> s.release(null, "A", 1)),
                bad("owner", s -> s.release("j", null, 1)),
                bad("jobId", s -> s.claimMany(null, List.of("B"), 200, 30)),
                bad("owners", s -> s.claimMany("j", null, 200, 30)),
                bad("owners[1]", s -> s.claimMany("j", Arrays.asList("B", null), 200, 30)));
    }

    @ParameterizedTest(name = "{0}: {index}")
    @MethodSource("badNumbers")
    void badNumbersAreRejectedByNameAndChangeNothing(String argument, Consumer<LeaseStore> call) throws Exception {
        for (LockingStrategy strategy : LockingStrategy.values()) {
            seeded(strategy, StoreOptions.defaults());
            List<String> before = Tables.dump(db);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> call.accept(store), strategy.name());
            assertTrue(e.getMessage().startsWith(argument + " "), e.getMessage());
            assertEquals(before, Tables.dump(db));
            store.close();
            Files.delete(db);
        }
    }

    @ParameterizedTest(name = "{0}: {index}")
    @MethodSource("nulls")
    void nullsAreRejectedByNameAndChangeNothing(String argument, Consumer<LeaseStore> call) throws Exception {
        for (LockingStrategy strategy : LockingStrategy.values()) {
            seeded(strategy, StoreOptions.defaults());
            List<String> before = Tables.dump(db);
            NullPointerException e = assertThrows(NullPointerException.class, () -> call.accept(store), strategy.name());
            assertEquals(argument, e.getMessage());
            assertEquals(before, Tables.dump(db));
            store.close();
            Files.delete(db);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void aClosedStoreRefusesEveryOperation(LockingStrategy strategy) throws Exception {
        seeded(strategy, StoreOptions.defaults()).close();
        List<String> before = Tables.dump(db);
        List<Executable> calls = List.of(
                () -> store.enqueue("k"),
                () -> store.state("j"),
                () -> store.claim("j", "B", 200, 30),
                () -> store.renew("j", "A", 1, 110, 30),
                () -> store.complete("j", "A", 1, 110, "r"),
                () -> store.release("j", "A", 1),
                () -> store.claimMany("j", List.of("B", "C"), 200, 30));
        for (Executable call : calls) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call);
            assertTrue(e.getMessage().contains(db.getFileName().toString()), e.getMessage());
        }
        store.close();
        assertEquals(before, Tables.dump(db));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void aMissingDirectoryIsAFailureNamingTheFile(LockingStrategy strategy) {
        Path file = dir.resolve("no-such-dir").resolve("jobs.db");
        LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> stores.open(file, strategy));
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertNotNull(e.getCause());
        assertFalse(Files.exists(file.getParent()));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void aFileThatIsNotADatabaseIsAFailureAndIsLeftAlone(LockingStrategy strategy) throws IOException {
        byte[] text = "these are my notes, not a database\n".repeat(200).getBytes(StandardCharsets.UTF_8);
        Files.write(db, text);
        LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> stores.open(db, strategy));
        assertTrue(e.getMessage().contains(db.toString()), e.getMessage());
        assertArrayEquals(text, Files.readAllBytes(db));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void aCorruptFileIsAFailureNotAnAnswer(LockingStrategy strategy) throws Exception {
        seeded(strategy, StoreOptions.defaults().withJournalMode(StoreOptions.JournalMode.DELETE)).close();
        store = null;
        // Page 2 is the root page of the jobs table: overwrite it with garbage.
        try (RandomAccessFile raf = new RandomAccessFile(db.toFile(), "rw")) {
            int pageSize = 4096;
            raf.seek(pageSize);
            byte[] garbage = new byte[pageSize];
            Arrays.fill(garbage, (byte) 0x5A);
            raf.write(garbage);
        }
        store = stores.open(db, strategy, StoreOptions.defaults().withJournalMode(StoreOptions.JournalMode.DELETE));
        LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> store.claim("j", "B", 200, 30));
        assertTrue(e.getMessage().contains(db.toString()), e.getMessage());
        assertThrows(LeaseStoreException.class, () -> store.state("j"));
        assertThrows(LeaseStoreException.class, () -> store.complete("j", "A", 1, 110, "r"));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void aReadOnlyFileIsAFailureAndIsLeftAlone(LockingStrategy strategy) throws Exception {
        seeded(strategy, StoreOptions.defaults().withJournalMode(StoreOptions.JournalMode.DELETE)).close();
        store = null;
        List<String> before = Tables.dump(db);
        byte[] bytes = Files.readAllBytes(db);
        try (ReadOnly ignored = ReadOnly.make(db)) {
            LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> {
                try (LeaseStore readOnly = stores.open(db, strategy,
                        StoreOptions.defaults().withJournalMode(StoreOptions.JournalMode.DELETE))) {
                    readOnly.claim("j", "B", 200, 30);
                }
            });
            assertTrue(e.getMessage().contains(db.toString()), e.getMessage());
            assertArrayEquals(bytes, Files.readAllBytes(db));
        }
        assertEquals(before, Tables.dump(db));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LockingStrategy.class)
    void aWriteLockHeldPastTheBusyTimeoutIsAFailureAndChangesNothing(LockingStrategy strategy) throws Exception {
        seeded(strategy, StoreOptions.defaults().withBusyTimeout(Duration.ofMillis(150)));
        List<String> before = Tables.dump(db);
        try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + db);
             Statement s = other.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            s.executeUpdate("UPDATE jobs SET result = 'uncommitted' WHERE id = 'j'");
            List<Executable> writes = List.of(
                    () -> store.enqueue("k"),
                    () -> store.claim("j", "B", 200, 30),
                    () -> store.renew("j", "A", 1, 110, 30),
                    () -> store.complete("j", "A", 1, 110, "r"),
                    () -> store.release("j", "A", 1),
                    () -> store.claimMany("j", List.of("B", "C"), 200, 30));
            for (Executable write : writes) {
                LeaseStoreException e = assertThrows(LeaseStoreException.class, write);
                assertTrue(e.getMessage().contains(db.toString()), e.getMessage());
                assertTrue(e.getCause() instanceof SQLException, String.valueOf(e.getCause()));
            }
            s.execute("ROLLBACK");
        }
        assertEquals(before, Tables.dump(db));
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
        assertEquals("strategy", assertThrows(NullPointerException.class, () -> SqliteLeaseStore.open(db, null)).getMessage());
        assertEquals("file", assertThrows(NullPointerException.class, () -> SqliteLeaseStore.open(null)).getMessage());
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
