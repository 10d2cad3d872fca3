package dev.leaselab.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The rounds of {@link PeerDrainMain} folded per storage, thread count and system: median, min and
 * max jobs/s over the rounds, the summed duplicates and errors, and for every leaselab system its
 * ratio to the reference db-scheduler system of the same storage and thread count, as the ratio of
 * the medians and as the range of the ratios of the rounds measured together (round {@code r} of
 * one against round {@code r} of the other).
 *
 * @param reference the system the ratios are taken against (the first db-scheduler system), or null
 * @param ratioOfMedians this system's median over the reference's; null for the reference itself
 * @param pairRatioMin the smallest of the per-round-pair ratios; null as above
 */
record PeerSummary(String storage, int threads, String system, int rounds, double medianJobsPerSecond,
                   double minJobsPerSecond, double maxJobsPerSecond, long duplicateRuns, long duplicateAccepted,
                   long errors, long left, int timedOut, String reference, Double ratioOfMedians, Double pairRatioMin,
                   Double pairRatioMax) {

    /** Folds the measured rounds (round 0, the warmup, is left out), in the order their groups first appear. */
    static List<PeerSummary> of(List<PeerRound> rounds, String referencePrefix) {
        Map<List<Object>, List<PeerRound>> groups = new LinkedHashMap<>();
        for (PeerRound r : rounds) {
            if (r.round() > 0) {
                groups.computeIfAbsent(List.of(r.storage(), r.threads(), r.system()), k -> new ArrayList<>()).add(r);
            }
        }
        List<PeerSummary> out = new ArrayList<>();
        for (List<PeerRound> group : groups.values()) {
            PeerRound first = group.get(0);
            List<PeerRound> reference = groups.entrySet().stream()
                    .filter(e -> e.getKey().get(0).equals(first.storage()) && e.getKey().get(1).equals(first.threads())
                            && ((String) e.getKey().get(2)).startsWith(referencePrefix))
                    .map(Map.Entry::getValue).findFirst().orElse(null);
            boolean isReference = reference == null || reference == group;
            Double ratio = null;
            Double pairMin = null;
            Double pairMax = null;
            if (!isReference) {
                ratio = median(group) / median(reference);
                for (PeerRound r : group) {
                    for (PeerRound ref : reference) {
                        if (ref.round() == r.round()) {
                            double pair = r.jobsPerSecond() / ref.jobsPerSecond();
                            pairMin = pairMin == null ? pair : Math.min(pairMin, pair);
                            pairMax = pairMax == null ? pair : Math.max(pairMax, pair);
                        }
                    }
                }
            }
            double[] rates = group.stream().mapToDouble(PeerRound::jobsPerSecond).toArray();
            out.add(new PeerSummary(first.storage(), first.threads(), first.system(), group.size(), median(group),
                    Arrays.stream(rates).min().orElse(Double.NaN), Arrays.stream(rates).max().orElse(Double.NaN),
                    group.stream().mapToLong(PeerRound::duplicateRuns).sum(),
                    group.stream().mapToLong(PeerRound::duplicateAccepted).sum(),
                    group.stream().mapToLong(PeerRound::errors).sum(),
                    group.stream().mapToLong(PeerRound::left).sum(),
                    (int) group.stream().filter(PeerRound::timedOut).count(),
                    reference == null ? null : reference.get(0).system(), ratio, pairMin, pairMax));
        }
        return out;
    }

    static double median(List<PeerRound> rounds) {
        double[] v = rounds.stream().mapToDouble(PeerRound::jobsPerSecond).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    /** The Markdown table of the summaries. */
    static String markdown(List<PeerSummary> summaries) {
        StringBuilder b = new StringBuilder();
        b.append("| storage | threads | system | rounds | median jobs/s | min | max | duplicate runs "
                + "| duplicate accepted completions | errors | left | x db-scheduler (medians) | per-round-pair range |\n");
        b.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (PeerSummary s : summaries) {
            b.append(String.format(Locale.ROOT, "| %s | %d | %s | %d%s | %.0f | %.0f | %.0f | %d | %d | %d | %d | %s | %s |%n",
                    s.storage, s.threads, s.system, s.rounds, s.timedOut > 0 ? " (" + s.timedOut + " timed out)" : "",
                    s.medianJobsPerSecond, s.minJobsPerSecond, s.maxJobsPerSecond, s.duplicateRuns, s.duplicateAccepted,
                    s.errors, s.left, s.ratioOfMedians == null ? "-" : String.format(Locale.ROOT, "%.2f", s.ratioOfMedians),
                    s.pairRatioMin == null ? "-" : String.format(Locale.ROOT, "%.2f - %.2f", s.pairRatioMin,
                            Objects.requireNonNull(s.pairRatioMax))));
        }
        return b.toString();
    }
}
