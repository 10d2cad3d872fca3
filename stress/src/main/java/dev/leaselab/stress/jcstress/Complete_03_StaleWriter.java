package dev.leaselab.stress.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The SPEC's story: a held fence 1 until 1 and stalled; at {@code now=1} b claims (fence 2) and
 * completes, while a wakes up and completes with fence 1.
 *
 * <p>Hazard: a complete that checks the lease but not the fence is accepted once b's claim has
 * made the job live again, so the stale writer overwrites the job and b's own complete is
 * refused. a must never win, and b's result must be the stored one.
 *
 * <p>Results: r1 = 1 if a's stale complete was accepted; r2 = 1 if b claimed and completed;
 * r3 = the stored result: 2 for b's, 1 for a's, 0 for none.
 *
 * <p>Run: {@code java -jar stress/target/jcstress.jar -t Complete_03 -m quick -sc false -jvmArgs "-Dleaselab.store=IMMEDIATE"}.
 * Observed here: the control {@code COMPLETE_WITHOUT_FENCE_CHECK/IMMEDIATE} let the stale writer win
 * in about 0.05% of samples (13 of 27,825; 20 of 33,094): the window is b's claim-to-complete gap.
 */
@JCStressTest
@Outcome(id = "0, 1, 2", expect = ACCEPTABLE, desc = "stale writer refused, b's result stored")
@Outcome(id = "1, .*, .*", expect = FORBIDDEN, desc = "stale writer won: its fence was not checked")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "b could not claim and complete an expired job")
@Outcome(id = "0, 1, [01]", expect = FORBIDDEN, desc = "b completed, but its result is not the stored one")
@State
public class Complete_03_StaleWriter {

    private final SharedStores.Job job = SharedStores.heldJob("a", 1);

    @Actor
    public void staleA(III_Result r) {
        r.r1 = job.store().complete(job.id(), "a", 1, 1, "a") ? 1 : 0;
    }

    @Actor
    public void b(III_Result r) {
        long fence = job.store().claim(job.id(), "b", 1, 10).orElse(0);
        r.r2 = fence > 0 && job.store().complete(job.id(), "b", fence, 1, "b") ? 1 : 0;
    }

    @Arbiter
    public void stored(III_Result r) {
        String result = job.store().state(job.id()).orElseThrow().result();
        r.r3 = "b".equals(result) ? 2 : "a".equals(result) ? 1 : 0;
    }
}
