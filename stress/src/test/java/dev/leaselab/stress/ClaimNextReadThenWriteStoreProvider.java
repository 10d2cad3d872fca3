package dev.leaselab.stress;

import dev.leaselab.lease.LeaseStore;
import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.LeaseStoreProvider;
import java.nio.file.Path;

/** A "user's own" Java store whose claimNext picks in one statement and writes in another: a guest's drain must catch it. */
public final class ClaimNextReadThenWriteStoreProvider implements LeaseStoreProvider {
    @Override
    public LeaseStore open(Path file) {
        return StoreUnderTest.parse("CLAIM_NEXT_READ_THEN_WRITE/IMMEDIATE").open(new Database.SqliteFile(file), 2);
    }
}
