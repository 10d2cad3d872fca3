package dev.leaselab.powerloss;

/**
 * What one power cut of a {@link ForgetfulFileSystem} threw away.
 *
 * @param mode what a disk cache was allowed to write out first
 * @param filesWithUnsyncedChanges files that had changes no fsync covered
 * @param lostChanges writes and truncations that did not reach the platter
 * @param keptChanges unsynced writes and truncations that {@code mode} let land anyway
 * @param namesForgotten names created, removed or renamed since their directory's last fsync, which
 *     the cut undid
 */
public record PowerCut(CutMode mode, int filesWithUnsyncedChanges, long lostChanges, long keptChanges,
        int namesForgotten) {}
