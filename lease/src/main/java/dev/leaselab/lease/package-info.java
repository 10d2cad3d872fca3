/**
 * The lease store: {@link dev.leaselab.lease.LeaseStore} and its SQLite implementation
 * {@link dev.leaselab.lease.SqliteLeaseStore}, with the {@link dev.leaselab.lease.LockingStrategy}
 * constants that tests, stress runs and benchmarks iterate. The contract is {@code shared/SPEC.md};
 * the schema is {@code schema.sql} in this package's resources.
 *
 * <p>Everything else here is package-private: the SQL of the contract ({@code LeaseSql}), the
 * write protocols of the strategies and the connection pool.
 */
package dev.leaselab.lease;
