package dev.leaselab.stress;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.LeaseStoreProvider;
import java.nio.file.Path;

/** A "user's own" Java store for {@code --store-class}: the IMMEDIATE strategy, correct. */
public final class ImmediateStoreProvider implements LeaseStoreProvider {
    @Override
    public LeaseStore open(Path file) {
        return StoreUnderTest.parse("IMMEDIATE").open(new Database.SqliteFile(file), 2);
    }
}
