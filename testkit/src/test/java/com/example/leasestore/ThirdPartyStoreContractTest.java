package com.example.leasestore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.leaselab.lease.ForwardingLeaseStore;
import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.lease.SqliteLeaseStore;
import dev.leaselab.testkit.ContractSubject;
import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.LeaseStoreContract;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * The contract suite used as a user of the testkit would use it, from a package of their own and
 * with nothing but public API: a store of "someone else's" ({@link ThirdPartyStore}) is tested by
 * extending {@link LeaseStoreContract}. The test method is the suite's negative control in that
 * use: the same suite over a version of the store that completes with whatever fence is current
 * (a stale writer's result would overwrite the new one) must fail.
 */
class ThirdPartyStoreContractTest extends LeaseStoreContract {

    @Override
    protected List<ContractSubject> subjects() {
        return List.of(ContractSubject.of("ThirdPartyStore", Engine.SQLITE, db -> ThirdPartyStore.open(db, false)));
    }

    @Test
    void theSuiteFailsForAThirdPartyStoreThatIgnoresTheFenceOnComplete() {
        EngineExecutionResults results = EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(WithoutFenceCheck.class)).execute();
        assertEquals(0, results.containerEvents().failed().count(), "the suite itself broke");
        assertTrue(results.testEvents().succeeded().count() > 0, "nothing ran");
        assertTrue(results.testEvents().failed().count() > 0, "the suite passed a store that ignores the fence");
    }

    /** The broken store under the same suite; run only through the test above (surefire skips nested classes). */
    static class WithoutFenceCheck extends LeaseStoreContract {
        @Override
        protected List<ContractSubject> subjects() {
            return List.of(ContractSubject.of("ThirdPartyStore-without-fence-check", Engine.SQLITE,
                    db -> ThirdPartyStore.open(db, true)));
        }
    }

    /**
     * A store written outside leaselab: here the SQLite store behind a {@link ForwardingLeaseStore},
     * optionally with a {@code complete} that writes with whatever owner and fence are current.
     */
    static final class ThirdPartyStore extends ForwardingLeaseStore {

        private final boolean ignoresFence;

        private ThirdPartyStore(LeaseStore inner, boolean ignoresFence) {
            super(inner);
            this.ignoresFence = ignoresFence;
        }

        static ThirdPartyStore open(Database db, boolean ignoresFence) {
            return new ThirdPartyStore(SqliteLeaseStore.open(((Database.SqliteFile) db).file(),
                    LockingStrategy.CONDITIONAL_UPDATE), ignoresFence);
        }

        @Override
        public boolean complete(String jobId, String owner, long fence, double now, String result) {
            if (ignoresFence) {
                Optional<JobState> current = delegate.state(jobId);
                if (current.isPresent() && current.get().owner() != null) {
                    return delegate.complete(jobId, current.get().owner(), current.get().fence(), now, result);
                }
            }
            return delegate.complete(jobId, owner, fence, now, result);
        }
    }
}
