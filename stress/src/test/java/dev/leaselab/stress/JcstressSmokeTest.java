package dev.leaselab.stress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.BrokenStore;
import dev.leaselab.lease.LockingStrategy;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiny jcstress run, as {@code mvn verify} can afford it: the exactly-one-winner test on every
 * strategy must pass with samples, and on the check-then-act control it must fail.
 */
class JcstressSmokeTest {

    @TempDir
    Path dir;

    @Test
    void exactlyOneWinnerHoldsOnEveryStrategy() {
        Verdict verdict = new JcstressRunner(dir, 1, 100, System.out).run(null, "Claim_01");

        assertEquals(Verdict.Outcome.PASS, verdict.outcome(), verdict.detail());
        assertTrue(verdict.races() > 1000, "only " + verdict.races() + " samples");
    }

    @Test
    void checkThenActClaimFailsExactlyOneWinner() {
        StoreUnderTest control = new StoreUnderTest(LockingStrategy.IMMEDIATE, BrokenStore.CLAIM_READ_THEN_WRITE);

        Verdict verdict = new JcstressRunner(dir, 1, 100, System.out).run(control, "Claim_01");

        assertEquals(Verdict.Outcome.CAUGHT, verdict.outcome(), verdict.detail());
        assertTrue(verdict.violations() > 0);
    }
}
