package dev.leaselab.testkit;

import dev.leaselab.lease.LeaseStore;
import java.nio.file.Path;

/**
 * Opens a lease store of your own on a SQLite file, so that {@link ProtocolServer} can serve it
 * over the worker protocol and the harness can race and test it like the built-in strategies.
 * An implementation needs a public no-argument constructor.
 *
 * <pre>{@code
 * public final class MyStoreProvider implements LeaseStoreProvider {
 *     public LeaseStore open(Path file) {
 *         return MyStore.open(file);
 *     }
 * }
 * }</pre>
 */
public interface LeaseStoreProvider {

    /** Opens a store on {@code file}, creating the table if it is missing. */
    LeaseStore open(Path file);
}
