package dev.leaselab.stress;

import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.PostgresUrl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.BrokenPostgresStore;
import dev.leaselab.lease.BrokenStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Store names, settings and database arguments: what the harness reads from people and its workers. */
class HarnessInputTest {

    @TempDir
    Path dir;

    @Test
    void storeNamesRoundTripForEveryStrategyAndControl() {
        for (Engine engine : Engine.values()) {
            for (StoreUnderTest store : StoreUnderTest.allCorrect(engine)) {
                assertEquals(store, StoreUnderTest.parse(store.name()));
                assertEquals(engine, store.engine());
            }
            for (StoreUnderTest control : StoreUnderTest.controls(engine)) {
                assertEquals(control, StoreUnderTest.parse(control.name()));
            }
            assertEquals(LockingStrategy.of(engine).size(), StoreUnderTest.allCorrect(engine).size());
        }
        StoreUnderTest control = new StoreUnderTest(LockingStrategy.EXCLUSIVE, BrokenStore.RELEASE_RESETS_FENCE);
        assertEquals(control, StoreUnderTest.parse("RELEASE_RESETS_FENCE/EXCLUSIVE"));
        // Both enums have this name: the strategy's engine says which one is meant.
        assertEquals(BrokenPostgresStore.COMPLETE_WITHOUT_FENCE_CHECK,
                StoreUnderTest.parse("COMPLETE_WITHOUT_FENCE_CHECK/PG_ROW_LOCK").broken());
        assertEquals(BrokenStore.COMPLETE_WITHOUT_FENCE_CHECK,
                StoreUnderTest.parse("COMPLETE_WITHOUT_FENCE_CHECK/SERIALIZED").broken());
    }

    @Test
    void onlyTheStaleWriterControlsOfBothEnginesRaceAcrossProcesses() {
        List<String> staleWriters = Stream.of(Engine.values())
                .flatMap(engine -> Stream.concat(StoreUnderTest.allCorrect(engine).stream(),
                        StoreUnderTest.controls(engine).stream()))
                .filter(StoreUnderTest::isStaleWriterControl).map(StoreUnderTest::name).toList();

        assertEquals(List.of("COMPLETE_WITHOUT_FENCE_CHECK/IMMEDIATE",
                "COMPLETE_WITHOUT_FENCE_CHECK/PG_CONDITIONAL_UPDATE"), staleWriters);
    }

    @Test
    void aBrokenVariantOfTheOtherEngineIsRejectedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new StoreUnderTest(LockingStrategy.PG_ROW_LOCK, BrokenStore.CLAIM_READ_THEN_WRITE));
        assertTrue(e.getMessage().contains("BrokenPostgresStore") && e.getMessage().contains("PG_ROW_LOCK"),
                e.getMessage());
        IllegalArgumentException parsed = assertThrows(IllegalArgumentException.class,
                () -> StoreUnderTest.parse("CLAIM_READ_THEN_WRITE/PG_ROW_LOCK"));
        assertTrue(parsed.getMessage().contains("CLAIM_READ_THEN_WRITE/PG_ROW_LOCK"), parsed.getMessage());
    }

    @Test
    void workerDatabaseArgumentsRoundTrip() {
        Database file = new Database.SqliteFile(dir.resolve("jobs.db"));
        assertEquals(file, Database.parse(file.argument()));
        Database schema = new Database.PostgresSchema("jdbc:postgresql://127.0.0.1:5432/postgres?user=u",
                "stress_1_2_x");
        assertEquals(schema, Database.parse(schema.argument()));
        assertEquals("jdbc:postgresql://127.0.0.1:5432/postgres?user=u&currentSchema=stress_1_2_x",
                ((Database.PostgresSchema) schema).url());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Database.parse("postgresql:jdbc:postgresql://127.0.0.1:5432/postgres"));
        assertTrue(e.getMessage().contains("currentSchema"), e.getMessage());
    }

    @Test
    void aWrongGuestIsAWrongOptionAndNoRunFolderIsCreated() {
        for (List<String> wrong : List.of(List.of("--worker-command", "  "),
                List.of("--worker-command", "python3 worker.py", "--guest-name", "a/b"),
                List.of("--worker-command", "python3 worker.py", "--engine", "postgresql"),
                List.of("--store-class", "com.example.NoSuchProvider"),
                List.of("--store-class", "java.lang.String"),
                List.of("--store-class", ImmediateStoreProvider.class.getName(), "--worker-command", "python3 worker.py"))) {
            java.io.StringWriter err = new java.io.StringWriter();
            List<String> args = new java.util.ArrayList<>(List.of("--profile", "smoke", "--results", dir.resolve("r").toString()));
            args.addAll(wrong);
            int exit = StressMain.commandLine().setErr(new java.io.PrintWriter(err)).execute(args.toArray(String[]::new));
            assertEquals(2, exit, wrong + ": " + err);
            assertFalse(err.toString().isBlank(), wrong.toString());
            assertFalse(Files.exists(dir.resolve("r")), "a run folder was created for " + wrong);
        }
        assertEquals(List.of("python3", "-u", "w.py"), Guest.parse("python", "  python3 -u\tw.py ", false).command());
    }

    @Test
    void aWrongThreadDrainDurationIsAWrongOptionNamingItAndNoRunFolderIsCreated() {
        for (String seconds : List.of("0", "-1", "Infinity")) {
            java.io.StringWriter err = new java.io.StringWriter();
            int exit = StressMain.commandLine().setErr(new java.io.PrintWriter(err)).execute("--profile", "smoke",
                    "--engine", "sqlite", "--thread-drain-seconds", seconds, "--results", dir.resolve("r").toString());
            assertEquals(2, exit, seconds + ": " + err);
            assertTrue(err.toString().contains("--thread-drain-seconds"), err.toString());
            assertFalse(Files.exists(dir.resolve("r")), "a run folder was created for " + seconds);
        }
    }

    @Test
    void aPostgresServerThatDoesNotAnswerIsAWrongOptionAndNoRunFolderIsCreated() {
        String before = System.getProperty(PostgresUrl.PROPERTY);
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        System.setProperty(PostgresUrl.PROPERTY, "jdbc:postgresql://127.0.0.1:1/postgres?user=nobody");
        try {
            java.io.StringWriter err = new java.io.StringWriter();
            int exit = StressMain.commandLine().setErr(new java.io.PrintWriter(err)).execute("--profile", "smoke", "--engine", "postgresql", "--results", dir.resolve("r").toString());
            assertEquals(2, exit);
            assertTrue(err.toString().contains("does not answer"), err.toString());
            assertFalse(Files.exists(dir.resolve("r")), "a run folder was created");
        } finally {
            if (before == null) {
                System.clearProperty(PostgresUrl.PROPERTY);
            } else {
                System.setProperty(PostgresUrl.PROPERTY, before);
            }
        }
    }

    @Test
    void unknownStoreNameIsRejectedWithTheName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StoreUnderTest.parse("FAST"));
        assertTrue(e.getMessage().contains("FAST"), e.getMessage());
    }

    @Test
    void settingsNameTheArgumentTheyReject() {
        IllegalArgumentException owners = assertThrows(IllegalArgumentException.class,
                () -> new ThreadRaceDriver.Settings(1, Duration.ofSeconds(1), 1, 0));
        assertTrue(owners.getMessage().startsWith("maxOwners"), owners.getMessage());
        IllegalArgumentException workers = assertThrows(IllegalArgumentException.class,
                () -> new ProcessRaceDriver.Settings(1, Duration.ofSeconds(1), 0, 0, 1, 100, 0));
        assertTrue(workers.getMessage().startsWith("workers"), workers.getMessage());
        IllegalArgumentException ttl = assertThrows(IllegalArgumentException.class,
                () -> new ProcessRaceDriver.Settings(2, Duration.ofSeconds(1), 0, 0, 1, 1, 0));
        assertTrue(ttl.getMessage().startsWith("ttlMillis"), ttl.getMessage());
        IllegalArgumentException tooShort = assertThrows(IllegalArgumentException.class,
                () -> new ProcessRaceDriver.Settings(2, Duration.ofSeconds(1), 0, 1, 1, 201, 0));
        assertTrue(tooShort.getMessage().startsWith("duration"), tooShort.getMessage());
    }

    @Test
    void processRaceCountsOnlyWinsThatAnotherProcessRacedAgainst() {
        Op won = new Op("w0", 1, Op.Kind.CLAIM, "j", "w0", 1, 0, 10, null, Op.Outcome.OK, 100, 200);
        Op lostMeanwhile = new Op("w1", 1, Op.Kind.CLAIM, "j", "w1", 0, 0, 10, null, Op.Outcome.REJECTED, 150, 250);
        Op wonAlone = new Op("w0", 2, Op.Kind.CLAIM, "j", "w0", 2, 20, 10, null, Op.Outcome.OK, 300, 400);
        Op sameProcess = new Op("w0", 3, Op.Kind.CLAIM, "j", "w0", 0, 20, 10, null, Op.Outcome.REJECTED, 350, 450);

        long[] races = ProcessRaceDriver.countRaces(new java.util.ArrayList<>(List.of(won, lostMeanwhile, wonAlone,
                sameProcess)));

        assertEquals(2, races[0]);
        assertEquals(1, races[1]);
    }

    @Test
    void exitCodeIsOneForAViolationAndThreeWhenOnlyInconclusive() {
        Verdict pass = verdict(Verdict.Outcome.PASS);
        assertEquals(0, StressMain.exitCode(List.of(pass, verdict(Verdict.Outcome.CAUGHT))));
        assertEquals(3, StressMain.exitCode(List.of(pass, verdict(Verdict.Outcome.INCONCLUSIVE))));
        assertEquals(1, StressMain.exitCode(List.of(verdict(Verdict.Outcome.INCONCLUSIVE), verdict(Verdict.Outcome.MISSED))));
        assertEquals(1, StressMain.exitCode(List.of(pass, verdict(Verdict.Outcome.FAIL))));
    }

    private static Verdict verdict(Verdict.Outcome outcome) {
        return new Verdict("S", "threads", false, 1, 1, -1, -1, 1, 0, -1, 0, 0, 1, outcome, "");
    }
}
