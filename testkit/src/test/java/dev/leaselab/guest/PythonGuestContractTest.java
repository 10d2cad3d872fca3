package dev.leaselab.guest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.Completion;
import dev.leaselab.lease.JobState;
import dev.leaselab.lease.LeaseStoreException;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.testkit.ContractSubject;
import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.LeaseStoreContract;
import dev.leaselab.testkit.ProtocolLeaseStore;
import dev.leaselab.testkit.PythonGuest;
import dev.leaselab.testkit.StopAtFirstCatch;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract suite driven over the worker protocol against the contract's design in Python
 * ({@code examples/python}): every scenario, boundary and race of the Java stores, answered by
 * another language on the same file. {@link PythonKillMatrixTest} runs this class again with
 * each of the design's wrong changes switched on (the configuration parameter
 * {@value #MUTATION}) and requires it to fail.
 */
@ExtendWith({PythonGuestContractTest.Mutation.class, StopAtFirstCatch.class})
class PythonGuestContractTest extends LeaseStoreContract {

    static final String MUTATION = "leaselab.pythonMutation";

    private final String mutation;

    PythonGuestContractTest(String mutation) {
        this.mutation = mutation.isEmpty() ? null : mutation;
    }

    @Override
    protected List<ContractSubject> subjects() {
        List<String> command = PythonGuest.command(mutation);
        return List.of(ContractSubject.of(mutation == null ? "python" : "python " + mutation, Engine.SQLITE,
                db -> ProtocolLeaseStore.open(command, ((Database.SqliteFile) db).file())));
    }

    /**
     * A batch whose last write the database refuses stores none of its completes: the guest's
     * completeAll (protocol 2) is one transaction, rolled back whole, as {@code LeaseStoreErrorsTest}
     * requires of this project's stores. A trigger, written into the file by plain JDBC, refuses
     * the result "boom"; "j" sorts before "k", so its write has run when "k"'s fails. Its negative
     * control is the mutation {@code COMPLETE_ALL_ONE_COMMIT_EACH} in {@link PythonKillMatrixTest}:
     * a commit per completion keeps "j"'s.
     */
    @Test
    void aBatchOfCompletesThatFailsHalfWayStoresNoneOfThem(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("jobs.db");
        Database db = new Database.SqliteFile(file);
        try (ProtocolLeaseStore store = ProtocolLeaseStore.open(PythonGuest.command(mutation), file)) {
            assertEquals(ProtocolLeaseStore.PROTOCOL, store.protocol(), "the guest speaks the protocol that has completeAll");
            for (String job : List.of("j", "k")) {
                store.enqueue(job);
                assertEquals(OptionalLong.of(1), store.claim(job, "A", 100, 30));
            }
            db.execute("CREATE TRIGGER refuse_boom BEFORE UPDATE OF result ON jobs WHEN NEW.result = 'boom' "
                    + "BEGIN SELECT RAISE(ABORT, 'boom refused'); END");
            SortedMap<String, JobState> before = db.rows();
            LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> store.completeAll(
                    List.of(new Completion("j", "A", 1, "fine"), new Completion("k", "A", 1, "boom")), 110));
            assertTrue(e.getMessage().contains("boom refused"), e.getMessage());
            assertEquals(before, db.rows(), "the complete of j, before the refused one, was kept");
            db.execute("DROP TRIGGER refuse_boom");
            assertEquals(List.of(true, true), store.completeAll(
                    List.of(new Completion("j", "A", 1, "fine"), new Completion("k", "A", 1, "boom")), 110));
        }
    }

    /** Resolves the constructor's mutation: the configuration parameter, or "" for the correct design. */
    static final class Mutation implements ParameterResolver {
        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == String.class
                    && parameter.getDeclaringExecutable().getDeclaringClass() == PythonGuestContractTest.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            return context.getConfigurationParameter(MUTATION).orElse("");
        }
    }
}
