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
 * a holds fence 1 until 10 and releases it, while b claims at {@code now=5}.
 *
 * <p>Hazard: a release that resets the fence lets b's claim hand out fence 1 again, so a's old
 * token becomes valid once more. If the release lands first, b gets fence 2; if the claim lands
 * first, it meets a's live lease and fails, and the release still succeeds.
 *
 * <p>Results: r1 = 1 if a's release was accepted; r2 = b's fence (0 for none); r3 = the stored fence.
 *
 * <p>Run: {@code java -jar stress/target/jcstress.jar -t Release_05 -m quick -sc false -jvmArgs "-Dleaselab.store=IMMEDIATE"}.
 * Observed here: the control {@code RELEASE_RESETS_FENCE/IMMEDIATE} fails every sample, since even
 * the legal outcomes store fence 0 or hand out fence 1 again.
 */
@JCStressTest
@Outcome(id = "1, 2, 2", expect = ACCEPTABLE, desc = "released, then claimed with the next fence")
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "claim met the live lease and was refused; then released")
@Outcome(id = "1, 1, .*", expect = FORBIDDEN, desc = "fence 1 handed out again after release")
@Outcome(id = "1, 0, 0", expect = FORBIDDEN, desc = "released, but the stored fence went back to 0")
@Outcome(id = "0, .*, .*", expect = FORBIDDEN, desc = "the holder's release was refused")
@State
public class Release_05_ReleaseVersusClaim {

    private final SharedStores.Job job = SharedStores.heldJob("a", 10);

    @Actor
    public void a(III_Result r) {
        r.r1 = job.store().release(job.id(), "a", 1) ? 1 : 0;
    }

    @Actor
    public void b(III_Result r) {
        r.r2 = (int) job.store().claim(job.id(), "b", 5, 10).orElse(0);
    }

    @Arbiter
    public void stored(III_Result r) {
        r.r3 = (int) job.store().state(job.id()).orElseThrow().fence();
    }
}
