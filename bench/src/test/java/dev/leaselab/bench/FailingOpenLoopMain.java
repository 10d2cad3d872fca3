package dev.leaselab.bench;

/** Stands in for {@link OpenLoopMain} in {@link OpenLoopRunsTest}: a run that fails as a broken JVM would. */
public final class FailingOpenLoopMain {

    private FailingOpenLoopMain() {}

    public static void main(String[] args) {
        System.out.println("failing on purpose: " + String.join(" ", args));
        System.exit(3);
    }
}
