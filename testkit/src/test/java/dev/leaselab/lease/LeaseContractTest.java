package dev.leaselab.lease;

import dev.leaselab.testkit.ContractSubject;
import dev.leaselab.testkit.LeaseStoreContract;
import dev.leaselab.testkit.StopAtFirstCatch;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract suite over every {@link LockingStrategy} of both engines: one contract, run
 * against every engine. The kill matrix ({@link KillMatrixTest}) runs this class against each
 * {@link BrokenStore} and {@link BrokenPostgresStore} (the {@link StoreFactory} then opens the
 * variant, and only the strategies of the variant's engine are tested) and requires it to fail.
 */
@ExtendWith({StoreUnderTest.class, StopAtFirstCatch.class})
class LeaseContractTest extends LeaseStoreContract {

    private final StoreFactory stores;

    LeaseContractTest(StoreFactory stores) {
        this.stores = stores;
    }

    @Override
    protected List<ContractSubject> subjects() {
        return Arrays.stream(LockingStrategy.values()).filter(stores::covers)
                .map(strategy -> ContractSubject.of(strategy.name(), strategy.engine(), db -> stores.open(db, strategy)))
                .toList();
    }
}
