/**
 * What every suite of leaselab shares, and what a user needs to test a {@code LeaseStore} of their
 * own: {@link dev.leaselab.testkit.Database} (a SQLite file or a PostgreSQL schema, read with plain
 * JDBC), {@link dev.leaselab.testkit.PostgresUrl} (the one lookup of the PostgreSQL server the
 * harnesses are given, and its redaction), {@link dev.leaselab.testkit.PostgresServer} (the tests'
 * throwaway server) and {@link dev.leaselab.testkit.LeaseStoreContract} (the contract of
 * {@code docs/CONTRACT.md} as an abstract JUnit 5 class to extend).
 *
 * <p>The broken variants of the store that the suites must catch ({@code BrokenStore},
 * {@code BrokenPostgresStore}) are in this module too, but in the package {@code dev.leaselab.lease}:
 * each is the shipped store with one of its package-private pieces replaced, so it has to live in
 * the store's package; being in this module keeps them out of the library jar.
 */
package dev.leaselab.testkit;
