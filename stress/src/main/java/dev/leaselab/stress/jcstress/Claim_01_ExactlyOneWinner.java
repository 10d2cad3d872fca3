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
 * Two owners claim the same fresh job at the same {@code now}.
 *
 * <p>Hazard: a claim that reads the row, sees it free, and writes in a second step lets both
 * owners see it free and both win (check-then-act). Exactly one may get a fence, fence 1, and the
 * stored row must name that winner.
 *
 * <p>Results: r1, r2 = the fences the owners got (0 for none); r3 = 1 when the stored row has
 * fence 1 and names the single winner.
 *
 * <p>Run: {@code java -jar stress/target/jcstress.jar -t Claim_01 -m quick -sc false -jvmArgs "-Dleaselab.store=IMMEDIATE"}.
 * Observed here (2 cores, {@code -iters 1 -time 300}): no forbidden outcome on any strategy; the
 * check-then-act control {@code CLAIM_READ_THEN_WRITE/IMMEDIATE} had two winners in 0.44% to 0.47%
 * of 50,000 to 85,000 samples per run.
 */
@JCStressTest
@Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "exactly one winner (a), stored")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "exactly one winner (b), stored")
@Outcome(id = {"1, 2, .*", "2, 1, .*", "1, 1, .*"}, expect = FORBIDDEN, desc = "two winners: lock failure")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "no winner on a free job")
@Outcome(id = {"1, 0, 0", "0, 1, 0"}, expect = FORBIDDEN, desc = "one winner, but the stored row disagrees")
@State
public class Claim_01_ExactlyOneWinner {

    private final SharedStores.Job job = SharedStores.freshJob();

    @Actor
    public void a(III_Result r) {
        r.r1 = (int) job.store().claim(job.id(), "a", 1, 10).orElse(0);
    }

    @Actor
    public void b(III_Result r) {
        r.r2 = (int) job.store().claim(job.id(), "b", 1, 10).orElse(0);
    }

    @Arbiter
    public void stored(III_Result r) {
        JobState row = job.store().state(job.id()).orElseThrow();
        String winner = r.r1 == 1 && r.r2 == 0 ? "a" : r.r2 == 1 && r.r1 == 0 ? "b" : null;
        r.r3 = winner != null && winner.equals(row.owner()) && row.fence() == 1 ? 1 : 0;
    }
}
