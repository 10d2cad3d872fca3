package dev.leaselab.stress;

import dev.leaselab.lease.JobState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a power cut must not take back, checked on the rows a fresh store reads after it: every
 * operation the store acknowledged before the cut (answered OK in a worker's history) is still in
 * the file.
 * <ul>
 *   <li>a claim that returned fence {@code f}: the job's fence is at least {@code f} (else the
 *       fence can be handed out again);</li>
 *   <li>a complete: the job is done, under that fence, with that result;</li>
 *   <li>a renew or a release that was its owner's last word under its fence, when the row still
 *       has that fence and is not done: the row shows it ({@code until} of the renew; no owner and
 *       {@code until = 0} after the release). A later operation of the same owner under the same
 *       fence, answered or not, may have changed the row since, so then the check is left out.</li>
 * </ul>
 * Fences handed out twice across cuts, and two accepted completes, are the
 * {@link HistoryChecker}'s, which judges the whole history of every cut at the end.
 */
final class PowerLossChecker {

    private PowerLossChecker() {
    }

    /** A write acknowledged before a cut and missing after it. */
    record LostWrite(Op op, JobState row) {
        String describe() {
            return op.kind() + " of " + op.job() + " by " + op.owner() + " under fence " + op.fence()
                    + " was acknowledged, but after the cut the row is "
                    + (row == null ? "missing" : "fence " + row.fence() + ", owner " + row.owner() + ", until "
                            + row.until() + ", done " + row.done() + ", result " + row.result());
        }
    }

    /** The acknowledged writes of {@code ops} that {@code rows} (read after the cut) no longer show. */
    static List<LostWrite> lostWrites(List<Op> ops, Map<String, JobState> rows) {
        Objects.requireNonNull(ops, "ops");
        Objects.requireNonNull(rows, "rows");
        Map<String, Op> lastByOwnerAndFence = new HashMap<>();
        List<Op> ordered = new ArrayList<>(ops);
        ordered.sort(Comparator.comparingLong(Op::start));
        for (Op op : ordered) {
            if (op.kind() != Op.Kind.CLAIM) {
                lastByOwnerAndFence.put(op.job() + "\n" + op.owner() + "\n" + op.fence(), op);
            }
        }
        List<LostWrite> lost = new ArrayList<>();
        for (Op op : ordered) {
            if (!op.ok() || Op.ANY_JOB.equals(op.job())) {
                continue;
            }
            JobState row = rows.get(op.job());
            boolean kept = switch (op.kind()) {
                case ENQUEUE, STATE -> true;  // not recorded by power-loss workers; no lease write to lose
                case CLAIM -> row != null && row.fence() >= op.fence();
                case COMPLETE -> row != null && row.done() && row.fence() == op.fence()
                        && Objects.equals(row.result(), op.result());
                case RENEW, RELEASE -> {
                    if (row == null) {
                        yield false;
                    }
                    boolean lastWord = lastByOwnerAndFence.get(op.job() + "\n" + op.owner() + "\n" + op.fence()) == op;
                    if (!lastWord || row.fence() != op.fence() || row.done()) {
                        yield row.fence() >= op.fence();
                    }
                    yield op.kind() == Op.Kind.RENEW
                            ? op.owner().equals(row.owner()) && Math.abs(row.until() - (op.now() + op.ttl())) < 1e-3
                            : row.owner() == null && row.until() == 0;
                }
            };
            if (!kept) {
                lost.add(new LostWrite(op, row));
            }
        }
        return lost;
    }

    /** Claims answered OK that share a job and a fence with an earlier one: fences handed out again. */
    static long reissuedFences(List<Op> ops) {
        Map<String, Integer> seen = new HashMap<>();
        long again = 0;
        for (Op op : ops) {
            if (op.kind() == Op.Kind.CLAIM && op.ok() && seen.merge(op.job() + "\n" + op.fence(), 1, Integer::sum) > 1) {
                again++;
            }
        }
        return again;
    }
}
