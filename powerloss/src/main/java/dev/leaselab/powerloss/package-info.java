/**
 * Power-loss faults: {@link dev.leaselab.powerloss.ForgetfulMount}, a FUSE file system that forgets
 * every write no fsync covered when its power is cut, so that a store's durability can be tested
 * without pulling a plug. The races that use it are {@code dev.leaselab.stress.PowerLossMain}.
 */
package dev.leaselab.powerloss;
