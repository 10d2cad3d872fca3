package dev.leaselab.lease;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves the {@link StoreFactory} of the contract tests. Normally it opens the real store; the
 * kill matrix sets the configuration parameter {@value #BROKEN_STORE} to the name of a
 * {@link BrokenStore} and runs the same tests against that variant.
 */
final class StoreUnderTest implements ParameterResolver {

    static final String BROKEN_STORE = "leaselab.brokenStore";

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == StoreFactory.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        // The matrix asks whether a variant breaks the rules, not whether it survives a power
        // loss, so its runs skip the fsync of every commit: that makes them several times faster.
        return context.getConfigurationParameter(BROKEN_STORE)
                .map(BrokenStore::valueOf)
                .<StoreFactory>map(broken -> (file, strategy, options) ->
                        broken.open(file, strategy, options.withSynchronous(StoreOptions.Synchronous.NORMAL)))
                .orElse(SqliteLeaseStore::open);
    }
}
