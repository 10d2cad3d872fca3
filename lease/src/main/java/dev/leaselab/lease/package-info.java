/**
 * The lease store: {@link dev.leaselab.lease.LeaseStore} and its two implementations,
 * {@link dev.leaselab.lease.SqliteLeaseStore} on one SQLite file and
 * {@link dev.leaselab.lease.PostgresLeaseStore} on a PostgreSQL database, with the
 * {@link dev.leaselab.lease.LockingStrategy} constants that tests, stress runs and benchmarks
 * iterate (each belongs to one {@link dev.leaselab.lease.LockingStrategy.Engine}). The contract is
 * {@code docs/CONTRACT.md}; the schemas are {@code schema.sql} and {@code postgres-schema.sql} in this
 * package's resources.
 *
 * <p>Everything else here is package-private: the SQL of the contract ({@code LeaseSql}), shared by
 * both engines, the operations and argument checks both stores share ({@code JdbcLeaseStore}), the
 * write protocols of the strategies and the SQLite connection pool.
 */
package dev.leaselab.lease;
