package dev.leaselab.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.LockingStrategy.Engine;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * The overlap guard of the contract's races of two ways into one job: two calls that wait for
 * each other inside overlap, and the guard passes; on one thread the second call starts only after
 * the first has ended, never overlaps it, and the guard fails, saying so (its negative control).
 */
class TwoWayRaceTest {

    private static final ContractSubject SUBJECT = ContractSubject.of("subject", Engine.SQLITE, db -> null);

    @Test
    void callsThatMeetOverlapAndPassTheGuard() throws Exception {
        try (LeaseStoreContract.TwoWayRace race = new LeaseStoreContract.TwoWayRace()) {
            for (int round = 0; round < 5; round++) {
                CyclicBarrier inside = new CyclicBarrier(2);
                LeaseStoreContract.Raced<String, String> raced = race.run(() -> meet(inside, "a"), () -> meet(inside, "b"));
                assertEquals("a", raced.first());
                assertEquals("b", raced.second());
            }
            assertEquals(5, race.overlapped());
            race.assertSomeOverlapped(SUBJECT);
        }
    }

    @Test
    void callsOnOneThreadNeverMeetAndFailTheGuardSayingSo() throws Exception {
        try (LeaseStoreContract.TwoWayRace race = new LeaseStoreContract.TwoWayRace(1)) {
            for (int round = 0; round < 5; round++) {
                LeaseStoreContract.Raced<String, String> raced = race.run(() -> "a", () -> "b");
                assertEquals("b", raced.second());
            }
            assertEquals(0, race.overlapped());
            AssertionFailedError e = assertThrows(AssertionFailedError.class, () -> race.assertSomeOverlapped(SUBJECT));
            assertTrue(e.getMessage().startsWith("subject: the two calls never overlapped in 5 rounds"), e.getMessage());
        }
    }

    private static String meet(CyclicBarrier inside, String value) throws Exception {
        inside.await(10, TimeUnit.SECONDS);
        return value;
    }
}
