/**
 * Running other programs, for leaselab's own harnesses (the test server of PostgreSQL, the stress
 * and benchmark workers): a child JVM with this JVM's code, a command run to its end, a free port,
 * a directory tree removed. Not part of what a user of the contract suite needs.
 */
package dev.leaselab.testkit.process;
