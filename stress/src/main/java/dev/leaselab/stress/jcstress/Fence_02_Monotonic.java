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
 * Successive generations of one job: a setup claim holds fence 1 until 1; owner a claims at
 * {@code now=1} for a lease until 2, owner b at {@code now=2} for a lease until 3.
 *
 * <p>Hazard: a fence handed out twice, or a later generation with a smaller fence, makes an old
 * token valid again. If a's claim lands first, a gets 2 and b (at a's expiry) gets 3; if b's
 * lands first, b gets 2 and a's claim meets b's live lease and must fail.
 *
 * <p>Results: r1, r2 = fences of a and b (0 for none); r3 = the stored fence.
 *
 * <p>Run: {@code java -jar stress/target/jcstress.jar -t Fence_02 -m quick -sc false -jvmArgs "-Dleaselab.store=IMMEDIATE"}.
 */
@JCStressTest
@Outcome(id = "2, 3, 3", expect = ACCEPTABLE, desc = "a then b: fences 2, 3 in order")
@Outcome(id = "0, 2, 2", expect = ACCEPTABLE, desc = "b first: a meets b's live lease and gets nothing")
@Outcome(id = {"2, 2, .*", "3, 3, .*"}, expect = FORBIDDEN, desc = "one fence handed out twice")
@Outcome(id = "3, 2, .*", expect = FORBIDDEN, desc = "a claimed under b's live lease: fences out of turn")
@State
public class Fence_02_Monotonic {

    private final SharedStores.Job job = SharedStores.heldJob("setup", 1);

    @Actor
    public void a(III_Result r) {
        r.r1 = (int) job.store().claim(job.id(), "a", 1, 1).orElse(0);
    }

    @Actor
    public void b(III_Result r) {
        r.r2 = (int) job.store().claim(job.id(), "b", 2, 1).orElse(0);
    }

    @Arbiter
    public void stored(III_Result r) {
        r.r3 = (int) job.store().state(job.id()).orElseThrow().fence();
    }
}
