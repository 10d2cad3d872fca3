package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.testkit.PostgresServer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A PostgreSQL server that restarts under a store: every operation while it is down is a
 * {@link LeaseStoreException} (never an answer), nothing committed is lost, and the store works
 * again by itself once the server is back.
 *
 * <p>It is apart from {@link PostgresFaultsTest} because it stops and starts a private server of
 * its own, which takes seconds: PIT's profile excludes this class, since PIT would redo the restart
 * for every mutant the class covers, while the other fault tests are cheap enough to run there.
 */
class PostgresRestartTest {

    private static final double TTL = 30;

    /** A server of this class's own, so that no other test sees it restart; shared by its cases. */
    private static PostgresServer restartable;

    @RegisterExtension
    final PostgresFixture postgres = new PostgresFixture();

    @ParameterizedTest(name = "{0}")
    @MethodSource(PostgresFixture.STRATEGIES)
    void aServerRestartFailsOperationsMeanwhileAndKeepsEverythingCommitted(LockingStrategy strategy) throws Exception {
        PostgresServer server = restartableServer();
        String url = server.createSchema().url();
        // A short connect timeout keeps the outage short: each operation in it waits that long.
        LeaseStore store = postgres.closeLater(PostgresLeaseStore.open(url, strategy,
                PostgresOptions.defaults().withConnectTimeout(Duration.ofMillis(250)).withStatementTimeout(Duration.ofSeconds(2))));
        Map<String, JobState> committed = new LinkedHashMap<>();
        for (int i = 0; i < 12; i++) {
            String id = "job-" + i;
            assertTrue(store.enqueue(id));
            long fence = store.claim(id, "w" + i, 100, TTL).orElseThrow();
            if (i % 3 == 0) {
                assertTrue(store.complete(id, "w" + i, fence, 110, "result-" + i));
                committed.put(id, new JobState(id, "w" + i, 130, fence, "result-" + i, true));
            } else if (i % 3 == 1) {
                assertTrue(store.release(id, "w" + i, fence));
                long again = store.claim(id, "v" + i, 101, TTL).orElseThrow();
                committed.put(id, new JobState(id, "v" + i, 131, again, null, false));
            } else {
                committed.put(id, new JobState(id, "w" + i, 130, fence, null, false));
            }
        }

        server.stop();
        try {
            failsMeanwhile(store);
        } finally {
            server.start();
        }

        // HikariCP retried connecting during the outage with a growing backoff (up to 5 s), so the
        // first operations after the restart may still fail; the store must recover by itself.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Optional<JobState> first = Optional.empty();
        while (first.isEmpty()) {
            try {
                first = store.state("job-0");
                assertTrue(first.isPresent(), "a state that succeeds must find the job");
            } catch (LeaseStoreException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("the store did not recover within 30 s of the restart", e);
                }
                Thread.sleep(100);
            }
        }
        // From now on every operation works, and every committed fence and result is there.
        for (JobState job : committed.values()) {
            assertEquals(Optional.of(job), store.state(job.id()));
        }
        assertEquals(Optional.empty(), store.state("new"));
        assertEquals(OptionalLong.of(2), store.claim("job-2", "B", 200, TTL));
        assertTrue(store.complete("job-2", "B", 2, 210, "after"));
        assertFalse(store.complete("job-0", "w0", 1, 111, "again"));
        assertTrue(store.enqueue("new"));
        assertEquals(new JobState("job-2", "B", 230, 2, "after", true), store.state("job-2").orElseThrow());
    }

    /** Every operation while the server is down is a failure, never an answer. */
    private static void failsMeanwhile(LeaseStore store) {
        List<Executable> meanwhile = List.of(
                () -> store.state("job-0"),
                () -> store.enqueue("new"),
                () -> store.claim("job-2", "B", 200, TTL),
                () -> store.renew("job-1", "v1", 2, 110, TTL),
                () -> store.complete("job-1", "v1", 2, 110, "lost"),
                () -> store.release("job-2", "w2", 1),
                () -> store.claimMany("job-5", List.of("B", "C"), 200, TTL));
        for (Executable call : meanwhile) {
            LeaseStoreException e = assertThrows(LeaseStoreException.class, call);
            assertNotNull(e.getCause());
        }
    }

    private static synchronized PostgresServer restartableServer() {
        if (restartable == null) {
            restartable = PostgresServer.startPrivate();
        }
        return restartable;
    }

    @AfterAll
    static synchronized void stopRestartableServer() {
        if (restartable != null) {
            restartable.close();
            restartable = null;
        }
    }
}
