package dev.leaselab.stress;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.LeaseStoreProvider;
import java.nio.file.Path;

/** A "user's own" Java store for {@code --store-class} that claims read-then-write: the race must catch it. */
public final class ReadThenWriteStoreProvider implements LeaseStoreProvider {
    @Override
    public LeaseStore open(Path file) {
        return StoreUnderTest.parse("CLAIM_READ_THEN_WRITE/IMMEDIATE").open(new Database.SqliteFile(file), 2);
    }
}
