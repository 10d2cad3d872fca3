package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe sees the claims of the recorded {@code claimMany} only: each owner's claim once, with
 * its own start and end, and nothing of a call made outside {@link ClaimManyProbe#record}.
 *
 * <p>The probe lives in a thread local, so each test runs on a thread of its own: what a test
 * asserts about "this thread" holds only on a thread that no earlier call has used. On the shared
 * test thread, a recording left behind by one of PIT's mutants (which run one after another in one
 * JVM) made two later mutants of {@code ClaimManyProbe} pass these tests.
 */
class ClaimManyProbeTest {

    @TempDir
    Path dir;

    @Test
    void aRecordedClaimManyStampsEachOwnersClaimOnce() throws Throwable {
        onAThreadOfItsOwn(() -> {
            try (SqliteLeaseStore store = SqliteLeaseStore.open(dir.resolve("jobs.db"))) {
                store.enqueue("j");
                List<String> owners = List.of("A", "B", "C", "D");
                ClaimManyProbe.Recording<List<OptionalLong>> recorded =
                        ClaimManyProbe.record(() -> store.claimMany("j", owners, 100, 30));

                assertEquals(1, recorded.result().stream().filter(OptionalLong::isPresent).count(), recorded.toString());
                assertEquals(owners, recorded.claims().stream().map(ClaimManyProbe.Claim::owner).sorted().toList());
                for (ClaimManyProbe.Claim claim : recorded.claims()) {
                    assertTrue(claim.start() <= claim.end(), claim.toString());
                }
            }
        });
    }

    @Test
    void callsOutsideARecordingAndSingleClaimsAreNotStamped() throws Throwable {
        onAThreadOfItsOwn(() -> {
            try (SqliteLeaseStore store = SqliteLeaseStore.open(dir.resolve("jobs.db"))) {
                store.enqueue("j");
                store.enqueue("k");
                assertEquals(1, store.claimMany("j", List.of("A", "B"), 100, 30).stream().filter(OptionalLong::isPresent).count());
                ClaimManyProbe.Recording<OptionalLong> single = ClaimManyProbe.record(() -> store.claim("k", "A", 100, 30));

                assertEquals(OptionalLong.of(1), single.result());
                assertEquals(List.of(), single.claims());
            }
        });
    }

    @Test
    void aRecordingLeavesTheThreadWithTheProbeThatStampsNothing() throws Throwable {
        onAThreadOfItsOwn(() -> {
            ClaimManyProbe none = ClaimManyProbe.current();
            assertEquals("claimed", none.stamp("A", () -> "claimed"));
            assertEquals(List.of(), ClaimManyProbe.record(() -> null).claims());
            assertSame(none, ClaimManyProbe.current());
        });
    }

    @Test
    void aRecordingInsideARecordingKeepsItsOwnClaims() throws Throwable {
        onAThreadOfItsOwn(() -> {
            try (SqliteLeaseStore store = SqliteLeaseStore.open(dir.resolve("jobs.db"))) {
                store.enqueue("outer");
                store.enqueue("inner");
                ClaimManyProbe.Recording<List<ClaimManyProbe.Claim>> outer = ClaimManyProbe.record(() -> {
                    List<ClaimManyProbe.Claim> inner =
                            ClaimManyProbe.record(() -> store.claimMany("inner", List.of("X", "Y"), 100, 30)).claims();
                    store.claimMany("outer", List.of("A", "B", "C"), 100, 30);
                    return inner;
                });

                assertEquals(List.of("X", "Y"), outer.result().stream().map(ClaimManyProbe.Claim::owner).sorted().toList());
                assertEquals(List.of("A", "B", "C"), outer.claims().stream().map(ClaimManyProbe.Claim::owner).sorted().toList());
            }
        });
    }

    /** Runs {@code body} on a new thread and rethrows whatever it threw. */
    private static void onAThreadOfItsOwn(Executable body) throws Throwable {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                body.execute();
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, "claim-many-probe-test");
        thread.start();
        thread.join();
        if (thrown.get() != null) {
            throw thrown.get();
        }
    }
}
