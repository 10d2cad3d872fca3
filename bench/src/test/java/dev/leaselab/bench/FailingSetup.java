package dev.leaselab.bench;

import dev.leaselab.lease.LeaseStore;
import java.util.function.UnaryOperator;

/**
 * A store decorator that fails every benchmark's setup, as a broken fork of a long run would:
 * the negative control of the runner's fault tolerance ({@link FailedForkTest}). Test code only.
 */
public final class FailingSetup implements UnaryOperator<LeaseStore> {

    static final String MESSAGE = "deliberately broken setup (FailingSetup)";

    @Override
    public LeaseStore apply(LeaseStore store) {
        store.close();
        throw new IllegalStateException(MESSAGE);
    }
}
