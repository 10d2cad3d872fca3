package dev.leaselab.lease;

import java.nio.file.Path;

/** Opens the store under test: the real one, or a broken variant when the kill matrix asks for it. */
@FunctionalInterface
interface StoreFactory {

    LeaseStore open(Path file, LockingStrategy strategy, StoreOptions options);

    default LeaseStore open(Path file, LockingStrategy strategy) {
        return open(file, strategy, StoreOptions.defaults());
    }
}
