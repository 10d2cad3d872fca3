package dev.leaselab.stress.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.leaselab.lease.JobState;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * At the expiry boundary: a holds fence 1 until 1 and renews at {@code now=0.999} (its clock says
 * the lease is still live), while b claims at {@code now=1} (its clock says it has expired).
 *
 * <p>Hazard: renew and claim each check the row and then write; if the checks interleave, both
 * succeed and two owners hold live leases. Exactly one of them may succeed, and the stored owner
 * is that one.
 *
 * <p>Results: r1 = 1 if a's renew was accepted; r2 = b's fence (0 for none); r3 = 1 if the stored
 * owner is the one that succeeded.
 *
 * <p>Run: {@code java -jar stress/target/jcstress.jar -t Renew_04 -m quick -sc false -jvmArgs "-Dleaselab.store=IMMEDIATE"}.
 */
@JCStressTest
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "renew first: a keeps the lease, b refused")
@Outcome(id = "0, 2, 1", expect = ACCEPTABLE, desc = "claim first: b holds fence 2, a's renew refused")
@Outcome(id = "1, 2, .*", expect = FORBIDDEN, desc = "both hold a live lease: renew and claim interleaved")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "neither renewed nor claimed")
@Outcome(id = {"1, 0, 0", "0, 2, 0"}, expect = FORBIDDEN, desc = "the stored owner is not the one that succeeded")
@State
public class Renew_04_RenewVersusClaimAtExpiry {

    private final SharedStores.Job job = SharedStores.heldJob("a", 1);

    @Actor
    public void a(III_Result r) {
        r.r1 = job.store().renew(job.id(), "a", 1, 0.999, 10) ? 1 : 0;
    }

    @Actor
    public void b(III_Result r) {
        r.r2 = (int) job.store().claim(job.id(), "b", 1, 10).orElse(0);
    }

    @Arbiter
    public void stored(III_Result r) {
        JobState row = job.store().state(job.id()).orElseThrow();
        String expected = r.r1 == 1 && r.r2 == 0 ? "a" : r.r1 == 0 && r.r2 == 2 ? "b" : null;
        r.r3 = expected != null && expected.equals(row.owner()) ? 1 : 0;
    }
}
