package dev.leaselab.stress;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A worker process for {@link WorkerFleet}'s own tests: it says {@code READY}, then that it holds
 * one lease, and holds it until the stop file appears, so that every pause finds a holder and a
 * race's faults depend only on the fleet's seed and schedule.
 *
 * <p>Usage: {@code HoldingWorker name stopFile}
 */
public final class HoldingWorker {

    private HoldingWorker() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path stop = Path.of(args[1]);
        System.out.println("READY");
        System.out.println("HOLD job-" + args[0] + " 1");
        System.out.flush();
        while (!Files.exists(stop)) {
            Thread.sleep(5);
        }
    }
}
