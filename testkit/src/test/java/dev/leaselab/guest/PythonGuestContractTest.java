package dev.leaselab.guest;

import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.testkit.ContractSubject;
import dev.leaselab.testkit.Database;
import dev.leaselab.testkit.LeaseStoreContract;
import dev.leaselab.testkit.ProtocolLeaseStore;
import dev.leaselab.testkit.PythonGuest;
import dev.leaselab.testkit.StopAtFirstCatch;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

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
