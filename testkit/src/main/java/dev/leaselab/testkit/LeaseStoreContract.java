package dev.leaselab.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.leaselab.lease.ClaimManyProbe;
import dev.leaselab.lease.Completion;
import dev.leaselab.lease.JobState;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LeaseStoreException;
import dev.leaselab.lease.LockingStrategy.Engine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The lease contract of {@code docs/CONTRACT.md}, row by row and boundary by boundary, as an
 * abstract JUnit 5 class: extend it, say which stores to test, and every test runs once for each
 * of them, each time on a fresh database of the store's engine (a SQLite file in a temporary
 * directory, or a schema of its own on the tests' {@link PostgresServer}).
 *
 * <pre>{@code
 * class MyStoreContractTest extends LeaseStoreContract {
 *     @Override
 *     protected List<ContractSubject> subjects() {
 *         return List.of(ContractSubject.of("MyStore", Engine.SQLITE,
 *                 db -> MyStore.open(((Database.SqliteFile) db).file())));
 *     }
 * }
 * }</pre>
 *
 * <p>This project runs it over every {@code LockingStrategy} of both engines, and its kill matrix
 * runs it against every broken variant ({@code BrokenStore}, {@code BrokenPostgresStore}) and
 * requires it to fail for each. A test opens as many stores on its database as it needs (two
 * stores on one file, a store re-opened), and reaches the database with plain JDBC as another
 * program sharing it would ({@link Database#rows()}, {@link Database#execute}). The stores and the
 * database of a test are closed and removed when it ends.
 *
 * <p>Times are small integers, so {@code now + ttl} is exact and boundaries are hit exactly.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class LeaseStoreContract {

    private static final double TTL = 30;

    /** claimMany rounds the overlap test runs at most: it ends at the first round whose claims overlapped. */
    static final int OVERLAP_ROUNDS = 400;

    /** How many drains of a fresh queue the drain test runs at most, until the claimNext calls of one overlapped. */
    static final int DRAIN_ATTEMPTS = 20;

    /** The drain test's workers, half of them on each of its two stores. */
    private static final int DRAIN_WORKERS = 8;

    /** The jobs of each drain of the drain test. */
    private static final int DRAIN_JOBS = 150;

    /** How many failed claimNext calls a worker of the drain test tries again before it gives up. */
    private static final int DRAIN_FAILURES_TRIED_AGAIN = 3;

    private Database db;
    private Path dir;
    private final List<LeaseStore> opened = new ArrayList<>();

    /**
     * The stores to test: each test runs once for each, shown under its {@linkplain
     * ContractSubject#name() name}. Called once per test class.
     */
    protected abstract List<ContractSubject> subjects();

    /** The subjects on PostgreSQL, for the tests of what only PostgreSQL does. */
    protected final Stream<ContractSubject> postgresSubjects() {
        return subjects().stream().filter(s -> s.engine() == Engine.POSTGRESQL);
    }

    @AfterEach
    void closeStoresAndRemoveTheDatabase() throws IOException {
        try {
            opened.forEach(LeaseStore::close);
        } finally {
            opened.clear();
            if (db != null) {
                db.drop();
                db = null;
            }
            if (dir != null) {
                try (Stream<Path> paths = Files.walk(dir)) {
                    for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
                dir = null;
            }
        }
    }

    /** The database of this test, of the subject's engine, created on first use. */
    private Database db(ContractSubject subject) {
        if (db == null) {
            db = switch (subject.engine()) {
                case SQLITE -> new Database.SqliteFile(tempDir().resolve("jobs.db"));
                case POSTGRESQL -> PostgresServer.get().createSchema();
            };
        }
        return db;
    }

    private Path tempDir() {
        try {
            dir = Files.createTempDirectory("leaselab-contract-");
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory", e);
        }
    }

    /** Opens another store of the subject on this test's database; the test closes it at its end. */
    private LeaseStore open(ContractSubject subject) {
        LeaseStore store = subject.open(db(subject));
        opened.add(store);
        return store;
    }

    private static JobState stateOf(LeaseStore store, String id) {
        return store.state(id).orElseThrow(() -> new AssertionError("job " + id + " is missing"));
    }

    /** Enqueues a job and claims it for owner at now; returns the fence. */
    private static long claimed(LeaseStore store, String id, String owner, double now) {
        store.enqueue(id);
        OptionalLong fence = store.claim(id, owner, now, TTL);
        assertTrue(fence.isPresent(), "claim of a fresh job");
        return fence.getAsLong();
    }

    /** The fence of a claim that the contract says wins; fails naming the claim if it was refused. */
    private static long won(OptionalLong fence, String claim) {
        assertTrue(fence.isPresent(), claim + " was refused");
        return fence.getAsLong();
    }

    // ---- enqueue and state ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void enqueueInsertsAnUnheldJob(ContractSubject subject) {
        LeaseStore store = open(subject);
        assertTrue(store.enqueue("j"));
        assertEquals(new JobState("j", null, 0, 0, null, false), stateOf(store, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void reEnqueueIsRefusedAndKeepsTheLiveLease(ContractSubject subject) {
        LeaseStore store = open(subject);
        claimed(store, "j", "A", 100);
        JobState before = stateOf(store, "j");
        assertFalse(store.enqueue("j"));
        assertEquals(before, stateOf(store, "j"));
        assertEquals(new JobState("j", "A", 130, 1, null, false), before);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void reEnqueueOfADoneJobKeepsItsResult(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertTrue(store.complete("j", "A", fence, 110, "r"));
        assertFalse(store.enqueue("j"));
        assertEquals(new JobState("j", "A", 130, 1, "r", true), stateOf(store, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void stateOfAMissingJobIsAbsent(ContractSubject subject) {
        LeaseStore store = open(subject);
        store.enqueue("other");
        assertEquals(Optional.empty(), store.state("missing"));
    }

    // ---- claim ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimOfAMissingJobIsEmptyAndCreatesNothing(ContractSubject subject) {
        LeaseStore store = open(subject);
        assertEquals(OptionalLong.empty(), store.claim("missing", "A", 100, TTL));
        assertEquals(Optional.empty(), store.state("missing"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimSetsOwnerAndExpiryAndHandsOutTheNextFence(ContractSubject subject) {
        LeaseStore store = open(subject);
        store.enqueue("j");
        assertEquals(OptionalLong.of(1), store.claim("j", "A", 100, TTL));
        assertEquals(new JobState("j", "A", 130, 1, null, false), stateOf(store, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimIsRefusedWhileTheLeaseIsLive(ContractSubject subject) {
        LeaseStore store = open(subject);
        claimed(store, "j", "A", 100);
        assertEquals(OptionalLong.empty(), store.claim("j", "B", 129, TTL));
        assertEquals(OptionalLong.empty(), store.claim("j", "A", 129.999, TTL));
        assertEquals(new JobState("j", "A", 130, 1, null, false), stateOf(store, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimAtTheExactExpiryIsAllowed(ContractSubject subject) {
        LeaseStore store = open(subject);
        claimed(store, "j", "A", 100);
        assertEquals(OptionalLong.of(2), store.claim("j", "B", 130, TTL));
        assertEquals(new JobState("j", "B", 160, 2, null, false), stateOf(store, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void fencesGrowByOneOverClaimsAndReleases(ContractSubject subject) {
        LeaseStore store = open(subject);
        store.enqueue("j");
        List<Long> fences = new ArrayList<>();
        double now = 0;
        for (int generation = 1; generation <= 6; generation++) {
            long fence = won(store.claim("j", "w" + generation, now, TTL), "the claim of generation " + generation + " at " + now);
            fences.add(fence);
            if (generation % 2 == 0) {
                assertTrue(store.release("j", "w" + generation, fence));
            } else {
                now += TTL;
            }
        }
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), fences);
    }

    // ---- renew ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void renewExtendsALiveLeaseFromNow(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertTrue(store.renew("j", "A", fence, 120, TTL));
        assertEquals(new JobState("j", "A", 150, 1, null, false), stateOf(store, "j"));
        assertTrue(store.renew("j", "A", fence, 149, 1));
        assertEquals(150, stateOf(store, "j").until());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void renewIsRefusedAtTheExactExpiry(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertFalse(store.renew("j", "A", fence, 130, TTL));
        assertEquals(new JobState("j", "A", 130, 1, null, false), stateOf(store, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void renewOfAnExpiredLeaseIsRefused(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertFalse(store.renew("j", "A", fence, 131, TTL));
        assertFalse(store.renew("j", "A", fence, 1000, TTL));
        assertEquals(new JobState("j", "A", 130, 1, null, false), stateOf(store, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void renewByAnotherOwnerOrWithAnotherFenceIsRefused(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertFalse(store.renew("j", "B", fence, 110, TTL));
        assertFalse(store.renew("j", "A", fence + 1, 110, TTL));
        assertFalse(store.renew("j", "A", fence - 1, 110, TTL));
        assertFalse(store.renew("missing", "A", fence, 110, TTL));
        assertEquals(new JobState("j", "A", 130, 1, null, false), stateOf(store, "j"));
    }

    // ---- complete ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void completeStoresTheResultAndMarksTheJobDone(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertTrue(store.complete("j", "A", fence, 129, "result-a"));
        assertEquals(new JobState("j", "A", 130, 1, "result-a", true), stateOf(store, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void completeIsRefusedAtTheExactExpiryAndAfter(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertFalse(store.complete("j", "A", fence, 130, "late"));
        assertFalse(store.complete("j", "A", fence, 500, "later"));
        assertEquals(new JobState("j", "A", 130, 1, null, false), stateOf(store, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void completeByAnotherOwnerOrWithAnotherFenceIsRefused(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertFalse(store.complete("j", "B", fence, 110, "b"));
        assertFalse(store.complete("j", "A", fence + 1, 110, "a2"));
        assertFalse(store.complete("j", "A", fence - 1, 110, "a0"));
        assertFalse(store.complete("missing", "A", fence, 110, "m"));
        assertEquals(new JobState("j", "A", 130, 1, null, false), stateOf(store, "j"));
    }

    // ---- completeAll ----

    /**
     * Each completion of a batch is decided by the rule of complete, whatever else is in the
     * batch, and the answers come back in the order given (the list is not in job-id order, which
     * the stores of this library apply it in).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void completeAllDecidesEachCompletionByTheRuleOfComplete(ContractSubject subject) {
        LeaseStore store = open(subject);
        long a = claimed(store, "a", "A", 100);
        long b = claimed(store, "b", "A", 100);
        long c = claimed(store, "c", "A", 100);
        long e = claimed(store, "e", "A", 100);
        store.enqueue("d");
        List<Boolean> accepted = store.completeAll(List.of(
                new Completion("e", "A", e, "result-e"),
                new Completion("b", "A", b + 1, "wrong fence"),
                new Completion("a", "A", a, "result-a"),
                new Completion("c", "B", c, "wrong owner"),
                new Completion("d", "A", 1, "never claimed"),
                new Completion("missing", "A", 1, "no such job")), 110);
        assertEquals(List.of(true, false, true, false, false, false), accepted);
        assertEquals(new JobState("a", "A", 130, 1, "result-a", true), stateOf(store, "a"));
        assertEquals(new JobState("b", "A", 130, 1, null, false), stateOf(store, "b"));
        assertEquals(new JobState("c", "A", 130, 1, null, false), stateOf(store, "c"));
        assertEquals(new JobState("d", null, 0, 0, null, false), stateOf(store, "d"));
        assertEquals(new JobState("e", "A", 130, 1, "result-e", true), stateOf(store, "e"));
        assertEquals(Optional.empty(), store.state("missing"));
        // At the exact expiry the lease is over, as for complete; a done job stays done.
        assertEquals(List.of(false, false), store.completeAll(List.of(
                new Completion("b", "A", b, "late"), new Completion("a", "A", a, "again")), 130));
        assertEquals(new JobState("b", "A", 130, 1, null, false), stateOf(store, "b"));
        assertEquals(new JobState("a", "A", 130, 1, "result-a", true), stateOf(store, "a"));
        assertEquals(List.of(), store.completeAll(List.of(), 140));
    }

    /**
     * A stalled worker's batch is fenced like its single completes: after another worker took the
     * job over, the stale completion is refused wherever it stands in the batch, and of a job
     * named twice only the first accepted completion counts.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void completeAllFencesOutAStaleHolderAndAcceptsAJobOnce(ContractSubject subject) {
        LeaseStore store = open(subject);
        long stale = claimed(store, "j", "A", 100);
        long current = won(store.claim("j", "B", 130, TTL), "B's claim at 130, the exact expiry of A's lease");
        long k = claimed(store, "k", "B", 130);
        assertEquals(List.of(false, true, true, false), store.completeAll(List.of(
                new Completion("j", "A", stale, "stale"),
                new Completion("j", "B", current, "first"),
                new Completion("k", "B", k, "k"),
                new Completion("j", "B", current, "second")), 140));
        assertEquals(new JobState("j", "B", 160, current, "first", true), stateOf(store, "j"));
        assertEquals(new JobState("k", "B", 160, k, "k", true), stateOf(store, "k"));
    }

    /** The leases of a claimNext batch, completed as one batch, through {@link Completion#of}. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void completeAllOfAClaimNextBatchEmptiesTheQueue(ContractSubject subject) {
        LeaseStore store = open(subject);
        IntStream.range(0, 5).forEach(i -> store.enqueue("q-" + i));
        List<Lease> leases = store.claimNext("A", 100, TTL, 5);
        assertEquals(5, leases.size());
        List<Boolean> accepted = store.completeAll(leases.stream().map(l -> Completion.of(l, "done " + l.jobId())).toList(), 110);
        assertEquals(Collections.nCopies(5, true), accepted);
        assertEquals(List.of(), store.claimNext("B", 200, TTL, 5));
        for (Lease lease : leases) {
            assertEquals(new JobState(lease.jobId(), "A", 130, 1, "done " + lease.jobId(), true), stateOf(store, lease.jobId()));
        }
    }

    // ---- release ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void releaseClearsTheLeaseAndKeepsTheFence(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertTrue(store.release("j", "A", fence));
        assertEquals(new JobState("j", null, 0, 1, null, false), stateOf(store, "j"));
        assertEquals(OptionalLong.of(2), store.claim("j", "B", 101, TTL));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void aSecondReleaseFindsNoHolder(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertTrue(store.release("j", "A", fence));
        assertFalse(store.release("j", "A", fence));
        assertEquals(new JobState("j", null, 0, 1, null, false), stateOf(store, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void releaseByAnotherOwnerOrWithAnotherFenceIsRefused(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertFalse(store.release("j", "B", fence));
        assertFalse(store.release("j", "A", fence + 1));
        assertFalse(store.release("j", "A", fence - 1));
        assertFalse(store.release("missing", "A", fence));
        assertEquals(new JobState("j", "A", 130, 1, null, false), stateOf(store, "j"));
    }

    /**
     * Another owner's write is refused whichever side of the holder's name its own name sorts on.
     * The tests above try owner "B" against holder "A" only, so a rule that compared the owner with
     * {@code >=} instead of {@code =} passed them: it refuses "B" but lets "A" write over holder
     * "B". The generated SQL mutants found it (renewable, completable and releasable).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void anotherOwnersWritesAreRefusedWhicheverWayItsNameSorts(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "B", 100);
        for (String other : List.of("A", "C")) {
            assertFalse(store.renew("j", other, fence, 110, TTL), "renew by " + other);
            assertFalse(store.complete("j", other, fence, 110, other), "complete by " + other);
            assertFalse(store.release("j", other, fence), "release by " + other);
        }
        assertEquals(new JobState("j", "B", 130, 1, null, false), stateOf(store, "j"));
    }

    // ---- done jobs ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void aDoneJobIsNeverClaimedRenewedCompletedOrReleasedAgain(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        assertTrue(store.complete("j", "A", fence, 110, "first"));
        JobState done = new JobState("j", "A", 130, 1, "first", true);

        assertFalse(store.complete("j", "A", fence, 111, "second"));
        assertFalse(store.renew("j", "A", fence, 111, TTL));
        assertFalse(store.release("j", "A", fence));
        assertEquals(OptionalLong.empty(), store.claim("j", "B", 130, TTL));
        assertEquals(OptionalLong.empty(), store.claim("j", "B", 1e9, TTL));
        assertEquals(done, stateOf(store, "j"));
    }

    // ---- the zombie of SPEC.md ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void staleCompletionIsRejectedAndTheNewResultKept(ContractSubject subject) {
        LeaseStore store = open(subject);
        long fenceA = claimed(store, "j", "A", 100);
        // A stalls past its lease; B takes over and finishes.
        long fenceB = won(store.claim("j", "B", 140, TTL), "B's claim at 140, after A's lease expired");
        assertEquals(fenceA + 1, fenceB);
        assertTrue(store.complete("j", "B", fenceB, 150, "result-b"));
        // A wakes up: its time says its lease is live, its fence says otherwise.
        assertFalse(store.renew("j", "A", fenceA, 101, TTL));
        assertFalse(store.complete("j", "A", fenceA, 101, "result-a"));
        assertFalse(store.release("j", "A", fenceA));
        assertEquals(new JobState("j", "B", 170, 2, "result-b", true), stateOf(store, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void aRestartedWorkerWithTheSameNameCannotWriteWithItsOldFence(ContractSubject subject) {
        LeaseStore store = open(subject);
        long old = claimed(store, "j", "w", 100);
        long current = won(store.claim("j", "w", 130, TTL), "the restarted w's claim at 130, the exact expiry of its old lease");
        assertFalse(store.complete("j", "w", old, 140, "stale"));
        assertFalse(store.renew("j", "w", old, 140, TTL));
        assertFalse(store.release("j", "w", old));
        assertEquals(new JobState("j", "w", 160, current, null, false), stateOf(store, "j"));
        assertTrue(store.complete("j", "w", current, 140, "fresh"));
        assertEquals("fresh", stateOf(store, "j").result());
    }

    // ---- one database, several writers ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void reopeningTheDatabaseKeepsFencesAndJobs(ContractSubject subject) {
        LeaseStore first = subject.open(db(subject));
        long fence = claimed(first, "j", "A", 100);
        assertTrue(first.release("j", "A", fence));
        first.close();

        LeaseStore second = open(subject);
        assertEquals(new JobState("j", null, 0, 1, null, false), stateOf(second, "j"));
        assertEquals(OptionalLong.of(2), second.claim("j", "B", 101, TTL));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void twoStoresOnOneDatabaseSeeEachOthersLeases(ContractSubject subject) {
        LeaseStore one = open(subject);
        LeaseStore two = open(subject);
        long fenceA = claimed(one, "j", "A", 100);
        assertEquals(new JobState("j", "A", 130, 1, null, false), stateOf(two, "j"));
        assertEquals(OptionalLong.empty(), two.claim("j", "B", 110, TTL));
        long fenceB = won(two.claim("j", "B", 130, TTL), "B's claim at 130, the exact expiry of A's lease");
        assertFalse(one.complete("j", "A", fenceA, 120, "a"));
        assertTrue(two.complete("j", "B", fenceB, 140, "b"));
        assertEquals(new JobState("j", "B", 160, 2, "b", true), stateOf(one, "j"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void aWriterOutsideTheStoreIsSeenAtOnce(ContractSubject subject) throws Exception {
        LeaseStore store = open(subject);
        long fence = claimed(store, "j", "A", 100);
        stateOf(store, "j");
        db.execute("UPDATE jobs SET owner = 'X', until = 500, fence = 7 WHERE id = 'j'");
        assertEquals(new JobState("j", "X", 500, 7, null, false), stateOf(store, "j"));
        assertFalse(store.complete("j", "A", fence, 110, "a"));
        assertEquals(OptionalLong.empty(), store.claim("j", "B", 499, TTL));
        assertEquals(OptionalLong.of(8), store.claim("j", "B", 500, TTL));

        db.execute("INSERT INTO jobs (id) VALUES ('outside')");
        assertFalse(store.enqueue("outside"));
        assertEquals(OptionalLong.of(1), store.claim("outside", "B", 0, TTL));
    }

    /**
     * PostgreSQL only: concurrent {@code CREATE TABLE IF NOT EXISTS} can fail there, so the store
     * serialises the creation. (SQLite is left out for now: when six stores open one new file at
     * the same instant, one of them now and then fails with SQLITE_BUSY, 2 times in 90 rounds
     * measured here. That is a failure, not a wrong answer, but it is not investigated yet.)
     */
    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("postgresSubjects")
    void storesOpeningOneNewDatabaseAtOnceAllSucceedAndShareOneTable(ContractSubject subject) throws Exception {
        Database shared = db(subject);
        int count = 6;
        CountDownLatch ready = new CountDownLatch(count);
        CountDownLatch gate = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(count);
        try {
            List<Future<LeaseStore>> opening = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                opening.add(threads.submit(() -> {
                    ready.countDown();
                    gate.await();
                    return subject.open(shared);
                }));
            }
            ready.await();
            gate.countDown();
            List<Throwable> failures = new ArrayList<>();
            for (Future<LeaseStore> store : opening) {
                try {
                    opened.add(store.get());
                } catch (ExecutionException e) {
                    failures.add(e.getCause());
                }
            }
            assertEquals(List.of(), failures, "stores that failed to open");
        } finally {
            threads.shutdownNow();
        }
        assertEquals(1, opened.stream().filter(store -> store.enqueue("j")).count(), "enqueues of one id that succeeded");
        long fence = won(opened.get(0).claim("j", "A", 100, TTL), "the claim of the enqueued job");
        for (LeaseStore store : opened) {
            assertEquals(new JobState("j", "A", 130, fence, null, false), stateOf(store, "j"));
        }
    }

    // ---- claimNext: the queue ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimNextOfAnEmptyQueueOrOfDoneAndHeldJobsIsEmpty(ContractSubject subject) {
        LeaseStore store = open(subject);
        assertEquals(Optional.empty(), store.claimNext("A", 100, TTL));
        assertEquals(List.of(), store.claimNext("A", 100, TTL, 5));
        long fence = claimed(store, "done", "A", 100);
        assertTrue(store.complete("done", "A", fence, 110, "r"));
        claimed(store, "held", "A", 125);
        // After the done job's lease ran out (130), and while the held one is live (until 155).
        assertEquals(Optional.empty(), store.claimNext("B", 140, TTL));
        assertEquals(List.of(), store.claimNext("B", 140, TTL, 5));
        assertEquals(new JobState("done", "A", 130, 1, "r", true), stateOf(store, "done"));
        assertEquals(new JobState("held", "A", 155, 1, null, false), stateOf(store, "held"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimNextHandsOutTheOldestJobWithItsNextFence(ContractSubject subject) {
        LeaseStore store = open(subject);
        for (String id : List.of("job-3", "job-1", "job-2")) {
            store.enqueue(id);
        }
        // SQLite's queue is in insertion order; PostgreSQL's, with no insertion order, by expiry and id.
        List<String> order = subject.engine() == Engine.SQLITE ? List.of("job-3", "job-1", "job-2") : List.of("job-1", "job-2", "job-3");
        List<Lease> handedOut = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            handedOut.add(store.claimNext("A", 100 + i, TTL).orElseThrow(() -> new AssertionError("the queue ran dry early")));
        }
        assertEquals(List.of(new Lease(order.get(0), "A", 1, 130), new Lease(order.get(1), "A", 1, 131),
                new Lease(order.get(2), "A", 1, 132)), handedOut);
        assertEquals(new JobState(order.get(1), "A", 131, 1, null, false), stateOf(store, order.get(1)));
        assertEquals(Optional.empty(), store.claimNext("B", 110, TTL));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimNextHandsOutAnExpiredLeaseAndFencesOutItsOldHolder(ContractSubject subject) {
        LeaseStore store = open(subject);
        long first = claimed(store, "j", "A", 100);
        assertEquals(Optional.empty(), store.claimNext("B", 129, TTL), "the lease is live until 130");
        Lease taken = store.claimNext("B", 130, TTL).orElseThrow(() -> new AssertionError("the expired lease was skipped"));
        assertEquals(new Lease("j", "B", first + 1, 160), taken);
        assertFalse(store.complete("j", "A", first, 131, "stale"));
        assertTrue(store.complete("j", "B", taken.fence(), 140, "b"));
        assertEquals(new JobState("j", "B", 160, 2, "b", true), stateOf(store, "j"));
        // A released job is back in the queue with its fence kept.
        long released = claimed(store, "k", "A", 200);
        assertTrue(store.release("k", "A", released));
        assertEquals(Optional.of(new Lease("k", "C", released + 1, 231)), store.claimNext("C", 201, TTL));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimNextBatchTakesUpToMaxDistinctJobsInQueueOrder(ContractSubject subject) {
        LeaseStore store = open(subject);
        List<String> ids = IntStream.range(0, 5).mapToObj(i -> "q-" + i).toList();
        ids.forEach(store::enqueue);
        List<Lease> first = store.claimNext("A", 100, TTL, 3);
        assertEquals(List.of(new Lease("q-0", "A", 1, 130), new Lease("q-1", "A", 1, 130), new Lease("q-2", "A", 1, 130)), first);
        List<Lease> rest = store.claimNext("B", 100, TTL, 10);
        assertEquals(List.of(new Lease("q-3", "B", 1, 130), new Lease("q-4", "B", 1, 130)), rest);
        assertEquals(List.of(), store.claimNext("C", 100, TTL, 10));
        for (Lease lease : first) {
            assertEquals(new JobState(lease.jobId(), "A", 130, 1, null, false), stateOf(store, lease.jobId()));
        }
        // Once the leases run out, the whole queue comes round again, each job once, with fence 2.
        List<Lease> again = store.claimNext("D", 130, TTL, 10);
        assertEquals(ids, again.stream().map(Lease::jobId).sorted().toList());
        assertTrue(again.stream().allMatch(l -> l.fence() == 2), "fences of the second round: " + again);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimNextRefusesBadArgumentsNamingThem(ContractSubject subject) {
        LeaseStore store = open(subject);
        store.enqueue("j");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> store.claimNext("A", 100, TTL, 0)).getMessage().contains("max"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> store.claimNext("A", 100, TTL, -1)).getMessage().contains("max"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> store.claimNext("A", 100, 0)).getMessage().contains("ttl"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> store.claimNext("A", Double.NaN, TTL)).getMessage().contains("now"));
        assertTrue(assertThrows(NullPointerException.class, () -> store.claimNext(null, 100, TTL)).getMessage().contains("owner"));
        assertEquals(new JobState("j", null, 0, 0, null, false), stateOf(store, "j"), "a refused call changed the job");
    }

    /**
     * Workers on two stores drain one queue at once, in batches of one and of three; every job
     * must be handed out exactly once, with fence 1. The test also checks that claimNext calls
     * overlapped in time: a drain whose calls never met would prove nothing. A drain whose calls
     * did not meet is run again on a fresh queue, up to {@value #DRAIN_ATTEMPTS} drains: where a
     * call is short (no fsync) and the cores are busy (the kill matrix runs three suites at once),
     * one drain of 150 jobs could pass without a single overlap, and every drain is checked for
     * exactly-once all the same.
     *
     * <p>A call that fails with a {@link LeaseStoreException} (on a loaded machine SQLite's lock
     * can stay busy past the timeout; this test failed now and then under load, for a reason not
     * yet pinned down) is tried again, as a worker would, a few times at most per worker: the
     * contract says such a call changed nothing, and the exactly-once checks see it if it did
     * (its jobs would be held and never handed out).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void workersDrainingOneQueueAtOnceAreEachHandedDifferentJobs(ContractSubject subject, TestReporter reporter) throws Exception {
        drainUntilRaced(open(subject), open(subject), DRAIN_WORKERS, DRAIN_JOBS, reporter);
    }

    /**
     * The drain test's drains: a fresh queue of {@code jobs} drained by {@code workers} workers on
     * the two stores, each drain checked, until the claimNext calls of one drain overlapped, at most
     * {@value #DRAIN_ATTEMPTS} times; fails if none did. Not private, for the negative control of
     * that guard (a drain by one worker, whose calls can never overlap).
     */
    static void drainUntilRaced(LeaseStore one, LeaseStore two, int workers, int jobs, TestReporter reporter) throws Exception {
        for (int drain = 1; drain <= DRAIN_ATTEMPTS; drain++) {
            if (drainOnce(one, two, "drain-" + drain + "-", workers, jobs, reporter) > 0) {
                reporter.publishEntry("claimNext calls overlapped", "in drain " + drain + " of at most " + DRAIN_ATTEMPTS);
                return;
            }
        }
        fail("no two claimNext calls overlapped in time, in " + DRAIN_ATTEMPTS + " drains: the drain was never raced");
    }

    /** One drain of a fresh queue by the workers on the two stores; checks it and returns how many calls overlapped another. */
    private static long drainOnce(LeaseStore one, LeaseStore two, String prefix, int workers, int jobs, TestReporter reporter)
            throws Exception {
        for (int i = 0; i < jobs; i++) {
            one.enqueue(prefix + i);
        }
        List<Lease> handedOut = Collections.synchronizedList(new ArrayList<>());
        List<long[]> calls = Collections.synchronizedList(new ArrayList<>());
        List<LeaseStoreException> failedCalls = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch ready = new CountDownLatch(workers);
        CountDownLatch gate = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(workers);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                LeaseStore store = w % 2 == 0 ? one : two;
                String owner = "worker-" + w;
                int batch = w % 4 < 2 ? 1 : 3;
                running.add(threads.submit(() -> {
                    ready.countDown();
                    gate.await();
                    int failures = 0;
                    while (true) {
                        long start = System.nanoTime();
                        List<Lease> got;
                        try {
                            got = store.claimNext(owner, 100, TTL, batch);
                        } catch (LeaseStoreException e) {
                            failedCalls.add(e);
                            if (++failures > DRAIN_FAILURES_TRIED_AGAIN) {
                                throw new AssertionError(owner + ": claimNext failed " + failures + " times", e);
                            }
                            continue;
                        }
                        calls.add(new long[] {start, System.nanoTime()});
                        if (got.isEmpty()) {
                            return null;
                        }
                        handedOut.addAll(got);
                        if (handedOut.size() > jobs) {
                            // More leases than jobs: one was handed out twice, which the asserts
                            // below report. A queue that hands its jobs out again and again would
                            // otherwise keep the workers draining forever.
                            return null;
                        }
                    }
                }));
            }
            ready.await();
            gate.countDown();
            for (Future<?> worker : running) {
                worker.get();
            }
        } finally {
            threads.shutdownNow();
        }
        List<String> ids = handedOut.stream().map(Lease::jobId).toList();
        Set<String> distinct = new HashSet<>(ids);
        assertEquals(ids.size(), distinct.size(), "jobs handed out more than once: " + (ids.size() - distinct.size()));
        assertEquals(jobs, distinct.size(), "jobs handed out");
        for (Lease lease : handedOut) {
            assertEquals(1, lease.fence(), "fence of " + lease);
            assertEquals(new JobState(lease.jobId(), lease.owner(), 130, 1, null, false), stateOf(one, lease.jobId()));
        }
        if (!failedCalls.isEmpty()) {
            reporter.publishEntry("claimNext calls failed and tried again", failedCalls.size() + ", first: " + failedCalls.get(0));
        }
        return Overlaps.count(calls);
    }

    // ---- two ways into one job, racing ----

    /** Rounds of each race of two ways into one job. */
    private static final int TWO_WAY_ROUNDS = 100;

    /**
     * Rounds a race of two ways in runs at most, when none of its first {@value #TWO_WAY_ROUNDS}
     * rounds overlapped: where calls are short (no fsync) and the cores busy, a correct store's
     * calls can miss each other in all of them (a clean-clone CI run saw that once, on
     * CONDITIONAL_UPDATE with the generated-mutant tests' store), and that says the machine was
     * busy, not that a rule broke. Every round is judged all the same.
     */
    private static final int TWO_WAY_MAX_ROUNDS = 1_000;

    /**
     * A {@code claim} of a job and a {@code claimNext} that picks the same job, racing: exactly one
     * may win it. The tests above race claims against claims and claimNext calls against each
     * other; here the two ways in meet, which is where a store whose claimNext takes other locks
     * than its claim can give the job twice ({@code PG_ADVISORY_LOCK}'s per-job locks and the rule
     * read again inside claimNext are what prevent it there). Every round offers one fresh job, so
     * both calls want the same one; the rounds in which the two calls overlapped in time are
     * counted, and some must have (past its {@value #TWO_WAY_ROUNDS} rounds the race goes on until
     * one has, for at most {@value #TWO_WAY_MAX_ROUNDS}).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void aClaimAndAClaimNextOfTheSameJobNeverBothWin(ContractSubject subject, TestReporter reporter) throws Exception {
        LeaseStore store = open(subject);
        double ttl = 1_000;
        try (TwoWayRace race = new TwoWayRace()) {
            int claimWon = 0;
            for (int round = 0; round < TWO_WAY_ROUNDS || race.overlapped() == 0 && round < TWO_WAY_MAX_ROUNDS; round++) {
                String job = "job-" + round;
                double now = 100 + round;
                assertTrue(store.enqueue(job));
                Raced<OptionalLong, List<Lease>> raced = race.run(() -> store.claim(job, "claimer", now, ttl),
                        () -> store.claimNext("picker", now, ttl, 1));
                OptionalLong fence = raced.first();
                List<Lease> picked = raced.second();
                boolean pickedIt = picked.stream().anyMatch(l -> l.jobId().equals(job));
                assertTrue(fence.isPresent() != pickedIt, subject + ", round " + round + ": claim " + fence + ", claimNext "
                        + picked + ": exactly one of them must win " + job);
                assertEquals(1, stateOf(store, job).fence(), subject + ", round " + round);
                claimWon += fence.isPresent() ? 1 : 0;
            }
            race.assertSomeOverlapped(subject);
            reporter.publishEntry("rounds", race.overlapped() + " of " + race.rounds() + " overlapped; claim won " + claimWon
                    + ", claimNext " + (race.rounds() - claimWon));
        }
    }

    /**
     * A holder's {@code completeAll} just before its lease ends and another owner's {@code claim} of
     * the same job just after, racing: exactly one may win, and the job ends as the winner left it.
     * This is where a store whose completeAll takes other locks than its claim can let a claim
     * overwrite a completion ({@code PG_ADVISORY_LOCK}'s claim checks under the job's advisory lock
     * and then writes without a condition, so its completeAll must take those locks too). Each
     * round's batch holds the raced job and one that nobody else wants, so it is a real batch; the
     * rounds in which the two calls overlapped in time are counted, and some must have (as above).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void aCompleteAllAndAClaimAtTheEndOfTheLeaseNeverBothWin(ContractSubject subject, TestReporter reporter) throws Exception {
        LeaseStore store = open(subject);
        double ttl = 10;
        try (TwoWayRace race = new TwoWayRace()) {
            int completeWon = 0;
            for (int round = 0; round < TWO_WAY_ROUNDS || race.overlapped() == 0 && round < TWO_WAY_MAX_ROUNDS; round++) {
                String job = "job-" + round;
                String alongside = job + "-alongside";
                double claimedAt = 100.0 * (round + 1);
                double until = claimedAt + ttl;
                for (String id : List.of(job, alongside)) {
                    assertTrue(store.enqueue(id));
                    assertEquals(OptionalLong.of(1), store.claim(id, "holder", claimedAt, ttl), id);
                }
                List<Completion> batch = List.of(new Completion(alongside, "holder", 1, "alongside-done"),
                        new Completion(job, "holder", 1, "done"));
                Raced<List<Boolean>, OptionalLong> raced = race.run(() -> store.completeAll(batch, until - 1),
                        () -> store.claim(job, "taker", until + 1, ttl));
                List<Boolean> accepted = raced.first();
                OptionalLong taken = raced.second();
                String where = subject + ", round " + round;
                assertEquals(true, accepted.get(0), where + ": the job that nobody else wanted");
                boolean completed = accepted.get(1);
                assertTrue(completed != taken.isPresent(), where + ": completeAll " + accepted + ", claim " + taken
                        + ": exactly one of them must win " + job + ", which ended as " + stateOf(store, job));
                JobState expected = completed
                        ? new JobState(job, "holder", until, 1, "done", true)
                        : new JobState(job, "taker", until + 1 + ttl, 2, null, false);
                assertEquals(expected, stateOf(store, job), where);
                completeWon += completed ? 1 : 0;
            }
            race.assertSomeOverlapped(subject);
            reporter.publishEntry("rounds", race.overlapped() + " of " + race.rounds() + " overlapped; completeAll won "
                    + completeWon + ", claim " + (race.rounds() - completeWon));
        }
    }

    /** What two calls run at once returned. */
    record Raced<A, B>(A first, B second) {}

    /**
     * Two threads that run two calls at once, round after round, and count the rounds whose calls
     * overlapped. Not private, for the negative control of its overlap guard ({@code TwoWayRaceTest}).
     */
    static final class TwoWayRace implements AutoCloseable {
        private final ExecutorService threads;
        private int rounds;
        private int overlapped;

        TwoWayRace() {
            this(2);
        }

        /** On {@code threads} threads: with one, the two calls run one after the other, which never races. */
        TwoWayRace(int threads) {
            this.threads = Executors.newFixedThreadPool(threads);
        }

        /** Runs the two calls, let go together; waits for both, 30 s at most. */
        <A, B> Raced<A, B> run(Callable<A> first, Callable<B> second) throws Exception {
            CountDownLatch start = new CountDownLatch(1);
            long[] span = new long[4];
            Future<A> a = threads.submit(() -> timed(start, first, span, 0));
            Future<B> b = threads.submit(() -> timed(start, second, span, 2));
            start.countDown();
            A firstResult = a.get(30, TimeUnit.SECONDS);
            B secondResult = b.get(30, TimeUnit.SECONDS);
            rounds++;
            overlapped += span[0] < span[3] && span[2] < span[1] ? 1 : 0;
            return new Raced<>(firstResult, secondResult);
        }

        private static <T> T timed(CountDownLatch start, Callable<T> call, long[] span, int at) throws Exception {
            start.await();
            span[at] = System.nanoTime();
            T result = call.call();
            span[at + 1] = System.nanoTime();
            return result;
        }

        int overlapped() {
            return overlapped;
        }

        int rounds() {
            return rounds;
        }

        /** A race whose calls never met proved nothing. */
        void assertSomeOverlapped(ContractSubject subject) {
            assertTrue(overlapped > 0, subject + ": the two calls never overlapped in " + rounds + " rounds");
        }

        @Override
        public void close() {
            threads.shutdownNow();
        }
    }

    // ---- claimMany: exactly one winner ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimManyOnFreshJobsHasExactlyOneWinnerEveryRound(ContractSubject subject) {
        LeaseStore store = open(subject);
        List<String> owners = owners(8);
        Set<Integer> winningPositions = new TreeSet<>();
        for (int round = 0; round < 60; round++) {
            String id = "fresh-" + round;
            store.enqueue(id);
            List<OptionalLong> results = store.claimMany(id, owners, 100, TTL);
            int winner = onlyWinner(results, round);
            winningPositions.add(winner);
            assertEquals(OptionalLong.of(1), results.get(winner));
            assertEquals(new JobState(id, owners.get(winner), 130, 1, null, false), stateOf(store, id));
        }
        // Every owner must really race. The first owner's thread reaches the gate first and wins
        // most often (50% to 70% of rounds measured here), so a real race lets it win all 60
        // rounds with a probability below 1e-9; a claimMany that only lets it try always does.
        assertTrue(winningPositions.size() > 1, "only these positions ever won: " + winningPositions);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimManyOnSuccessiveGenerationsOfOneHotJobHandsOutEachFenceOnce(ContractSubject subject) {
        LeaseStore store = open(subject);
        List<String> owners = owners(6);
        store.enqueue("hot");
        for (int generation = 1; generation <= 60; generation++) {
            double now = generation * TTL;
            List<OptionalLong> results = store.claimMany("hot", owners, now, TTL);
            int winner = onlyWinner(results, generation);
            assertEquals(OptionalLong.of(generation), results.get(winner));
            assertEquals(new JobState("hot", owners.get(winner), now + TTL, generation, null, false), stateOf(store, "hot"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimManyWithManyOwnersStillHasOneWinner(ContractSubject subject) {
        LeaseStore store = open(subject);
        List<String> owners = owners(40);
        for (int round = 0; round < 8; round++) {
            String id = "wide-" + round;
            store.enqueue(id);
            int winner = onlyWinner(store.claimMany(id, owners, 0, TTL), round);
            assertEquals(owners.get(winner), stateOf(store, id).owner());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimManyOfAHeldJobHasNoWinnerAndOfNobodyIsEmpty(ContractSubject subject) {
        LeaseStore store = open(subject);
        claimed(store, "j", "A", 100);
        List<OptionalLong> results = store.claimMany("j", owners(4), 110, TTL);
        assertEquals(List.of(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty()), results);
        assertEquals(List.of(), store.claimMany("j", List.of(), 200, TTL));
        assertEquals(new JobState("j", "A", 130, 1, null, false), stateOf(store, "j"));
    }

    /**
     * The claims inside claimMany must really meet in time, or the one-winner tests above raced
     * nothing: a claimMany that runs its owners one after another also hands out exactly one fence,
     * to any of them. A store that stamps its claims ({@link ClaimManyProbe}, as every store of
     * this project does) is measured: rounds of eight owners run until two claims of a round
     * overlapped (one began before the other ended), for at most {@value #OVERLAP_ROUNDS} rounds. A
     * claimMany that runs its claims one at a time overlaps in none. Measured on 2 cores
     * (2026-12-06), every store of this project overlapped in the first round, 10 runs of each
     * strategy; without an fsync, in the first round in 57 of 60 runs and by the 90th in all. The
     * bound was 40 rounds, all of which had to be run, and a store without an fsync missed it once in
     * 36 runs alone and in most runs with three suites at once. A store that stamps nothing is not
     * measured: the test says so in its report entry after the first round (the one-winner tests
     * above race its claimMany).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void claimManyClaimsOverlapInTime(ContractSubject subject, TestReporter reporter) {
        LeaseStore store = open(subject);
        List<String> owners = owners(8);
        for (int round = 0; round < OVERLAP_ROUNDS; round++) {
            String id = "overlap-" + round;
            store.enqueue(id);
            ClaimManyProbe.Recording<List<OptionalLong>> recorded =
                    ClaimManyProbe.record(() -> store.claimMany(id, owners, 100, TTL));
            onlyWinner(recorded.result(), round);
            if (recorded.claims().isEmpty() && round == 0) {
                reporter.publishEntry("claimMany overlap", "not measured: " + subject + " stamps no claims (ClaimManyProbe)");
                return;
            }
            assertEquals(owners, recorded.claims().stream().map(ClaimManyProbe.Claim::owner).sorted().toList(),
                    "the claims stamped in round " + round + " are not one per owner");
            List<long[]> spans = recorded.claims().stream().map(c -> new long[] {c.start(), c.end()}).toList();
            if (Overlaps.count(spans) > 0) {
                reporter.publishEntry("claimMany overlap", "first in round " + (round + 1) + " of at most " + OVERLAP_ROUNDS);
                return;
            }
        }
        fail("the claims inside claimMany never overlapped in time, in " + OVERLAP_ROUNDS
                + " rounds of " + owners.size() + " owners: each claim ran alone, so claimMany never raced");
    }

    private static List<String> owners(int count) {
        return IntStream.range(0, count).mapToObj(i -> "owner-" + i).toList();
    }

    private static int onlyWinner(List<OptionalLong> results, int round) {
        List<Integer> winners = IntStream.range(0, results.size()).filter(i -> results.get(i).isPresent()).boxed().toList();
        assertEquals(1, winners.size(), "winners in round " + round + ": " + results);
        return winners.get(0);
    }
}
