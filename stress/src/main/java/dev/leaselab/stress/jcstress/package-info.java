/**
 * jcstress tests of the lease store. Each test races two actors on a fresh job of a database file
 * that all states of one JVM share, and an arbiter reads the stored row afterwards.
 *
 * <p>The store is chosen per JVM by the system property {@code leaselab.store}: a
 * {@link dev.leaselab.lease.LockingStrategy} name, or {@code BROKEN_VARIANT/STRATEGY} for a
 * negative control. Without it, states take turns over every {@code LockingStrategy} constant,
 * so a new strategy is raced without touching this package. Run one store with
 * {@code java -jar stress/target/jcstress.jar -t Claim_01 -m quick -sc false -jvmArgs "-Dleaselab.store=IMMEDIATE"};
 * {@code dev.leaselab.stress.StressMain} runs each store in turn and judges the results.
 */
package dev.leaselab.stress.jcstress;
