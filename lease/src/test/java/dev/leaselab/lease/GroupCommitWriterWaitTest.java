package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How long a {@link LockingStrategy#GROUP_COMMIT} writer waits for its batch, to the yield, on a
 * clock that moves only when it yields ({@link SteppedWaits}): while a leader is at work it yields
 * for {@link GroupCommitProtocol#YIELD_NANOS} and then parks until woken, unless its write got done
 * or the leadership came free meanwhile, in which case it never parks (its caller then takes its
 * result, or the leadership). That a parked writer is always woken and gets its write's outcome is
 * for the tests with real threads ({@link GroupCommitInterruptTest}, the contract and stress
 * suites); here the leader at work is this test, holding the leadership lock itself.
 */
class GroupCommitWriterWaitTest {

    private static final long YIELDS_BEFORE_PARKING = GroupCommitProtocol.YIELD_NANOS / SteppedWaits.YIELD_STEP;

    private final SteppedWaits waits = new SteppedWaits();
    private final ReentrantLock leadership = new ReentrantLock();
    private final GroupCommitProtocol.Request<Void> request = new GroupCommitProtocol.Request<>(session -> null, false);

    @AfterEach
    void giveTheLeadershipUp() {
        while (leadership.isHeldByCurrentThread()) {
            leadership.unlock();
        }
    }

    @Test
    void behindALeaderAtWorkAWriterYieldsForTheYieldTimeThenParks() {
        leadership.lock();
        await();
        assertEquals(YIELDS_BEFORE_PARKING, waits.yields);
        assertEquals(List.of(SteppedWaits.START + GroupCommitProtocol.YIELD_NANOS), waits.untimedParks,
                "one park, when the yield time was up");
        assertEquals(List.of(), waits.parks, "a writer's park has no time limit: the leader wakes it");
    }

    @Test
    void aWriterWhoseWriteIsDoneWhileItYieldsNeverParks() {
        leadership.lock();
        waits.afterEachYield = () -> request.done = waits.yields == 10;
        await();
        assertEquals(10, waits.yields);
        assertEquals(List.of(), waits.untimedParks);
    }

    @Test
    void aWriterWhoseWriteIsDoneAtItsLastYieldNeverParks() {
        leadership.lock();
        waits.afterEachYield = () -> request.done = waits.yields == YIELDS_BEFORE_PARKING;
        await();
        assertEquals(YIELDS_BEFORE_PARKING, waits.yields);
        assertEquals(List.of(), waits.untimedParks);
    }

    @Test
    void aWriterThatSeesTheLeadershipComeFreeWhileItYieldsNeverParks() {
        leadership.lock();
        waits.afterEachYield = () -> {
            if (waits.yields == 10) {
                leadership.unlock();
            }
        };
        await();
        assertEquals(10, waits.yields);
        assertEquals(List.of(), waits.untimedParks, "the leadership is free: it can take it");
    }

    @Test
    void aWriterWhoseWriteIsAlreadyDoneNeitherYieldsNorParks() {
        leadership.lock();
        request.done = true;
        await();
        assertEquals(0, waits.yields);
        assertEquals(List.of(), waits.untimedParks);
    }

    @Test
    void aWriterWithNoLeaderAtWorkNeitherYieldsNorParks() {
        await();
        assertEquals(0, waits.yields);
        assertEquals(List.of(), waits.untimedParks);
    }

    private void await() {
        GroupCommitProtocol.awaitDoneOrLeaderless(request, leadership, waits, this);
    }
}
