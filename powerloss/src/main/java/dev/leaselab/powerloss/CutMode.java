package dev.leaselab.powerloss;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * What reaches the platter of a file's changes that no fsync covered when the power is cut.
 * Synced data and the directory as last synced are kept in every mode.
 */
public enum CutMode {
    /** Nothing unsynced lands: the page cache is simply gone (LazyFS's default). */
    LOSE_UNSYNCED {
        @Override
        List<SimulatedDisk.Change> landed(List<SimulatedDisk.Change> unsynced, Random random) {
            return List.of();
        }
    },
    /**
     * The disk had written the unsynced changes out in order and was in the middle of the last one:
     * of that write, only whole 512-byte sectors from its start land, a random number of them.
     */
    TEAR_LAST_WRITE {
        @Override
        List<SimulatedDisk.Change> landed(List<SimulatedDisk.Change> unsynced, Random random) {
            List<SimulatedDisk.Change> landed = new ArrayList<>(unsynced.subList(0, unsynced.size() - 1));
            if (unsynced.get(unsynced.size() - 1) instanceof SimulatedDisk.Write last) {
                int kept = random.nextInt(last.bytes().length / SECTOR + 1) * SECTOR;
                if (kept > 0) {
                    landed.add(new SimulatedDisk.Write(last.offset(), Arrays.copyOf(last.bytes(), kept)));
                }
            } else {
                landed.add(unsynced.get(unsynced.size() - 1));
            }
            return landed;
        }
    },
    /**
     * A disk cache that reorders: each unsynced change lands with probability 1/2, independently,
     * and those that land are applied in the order they were made.
     */
    KEEP_RANDOM_SUBSET {
        @Override
        List<SimulatedDisk.Change> landed(List<SimulatedDisk.Change> unsynced, Random random) {
            List<SimulatedDisk.Change> landed = new ArrayList<>();
            for (SimulatedDisk.Change change : unsynced) {
                if (random.nextBoolean()) {
                    landed.add(change);
                }
            }
            return landed;
        }
    };

    static final int SECTOR = 512;

    /** The changes of one file, of the non-empty {@code unsynced} in order, that land on the platter. */
    abstract List<SimulatedDisk.Change> landed(List<SimulatedDisk.Change> unsynced, Random random);
}
