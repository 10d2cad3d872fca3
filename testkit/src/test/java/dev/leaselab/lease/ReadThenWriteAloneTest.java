package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kill matrix's {@link BrokenStore#CLAIM_READ_THEN_WRITE} (every write a check in one
 * autocommit statement and the write in another) gives the right answer to every operation when
 * nothing runs beside it. So when the stress suite and the contract suite catch it, they caught a
 * race, not a variant that is wrong on its own.
 */
class ReadThenWriteAloneTest {

    @TempDir
    Path dir;

    @Test
    void aloneTheReadThenWriteVariantAnswersLikeTheContract() {
        try (LeaseStore store = BrokenStore.CLAIM_READ_THEN_WRITE.open(dir.resolve("jobs.db"), LockingStrategy.IMMEDIATE)) {
            assertTrue(store.enqueue("j"));
            assertFalse(store.enqueue("j"));
            assertEquals(OptionalLong.of(1), store.claim("j", "A", 100, 30));
            assertEquals(OptionalLong.empty(), store.claim("j", "B", 129, 30), "a live lease is not claimable");
            assertTrue(store.renew("j", "A", 1, 110, 30));
            assertFalse(store.renew("j", "A", 2, 110, 30), "a wrong fence renews nothing");
            assertTrue(store.release("j", "A", 1));
            assertEquals(OptionalLong.of(2), store.claim("j", "B", 111, 30));
            assertFalse(store.complete("j", "A", 1, 112, "stale"), "the stale holder cannot complete");
            assertTrue(store.complete("j", "B", 2, 112, "done"));
            assertEquals(OptionalLong.empty(), store.claim("j", "C", 500, 30), "a done job is not claimable");
            assertEquals(Optional.of(new JobState("j", "B", 141, 2, "done", true)), store.state("j"));
            assertEquals(Optional.empty(), store.state("missing"));
        }
    }
}
