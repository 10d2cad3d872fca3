package dev.leaselab.powerloss;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The disk model alone, without FUSE: what a cut keeps and what it forgets. */
class SimulatedDiskTest {

    @TempDir
    Path backing;

    private SimulatedDisk disk() {
        return new SimulatedDisk(backing, name -> name.endsWith("-shm"));
    }

    private static byte[] bytes(int n, int value) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return b;
    }

    private static byte[] read(SimulatedDisk disk, String name) {
        long id = disk.lookup(name);
        byte[] all = new byte[(int) disk.size(id)];
        disk.read(id, 0, all);
        return all;
    }

    @Test
    void syncedDataAndNamesSurviveACutAndUnsyncedWritesAreForgotten() {
        SimulatedDisk disk = disk();
        long id = disk.create("db");
        disk.write(id, 0, bytes(1024, 1));
        disk.sync(id);
        disk.syncDirectory();
        disk.write(id, 512, bytes(1024, 2));
        assertEquals(1536, disk.size(id));
        assertEquals(1, disk.unsyncedChanges());

        PowerCut cut = disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));

        assertEquals(new PowerCut(CutMode.LOSE_UNSYNCED, 1, 1, 0, 0), cut);
        assertThrows(SimulatedDisk.PoweredOff.class, () -> disk.lookup("db"));
        disk.powerOn();
        assertArrayEquals(bytes(1024, 1), read(disk, "db"));
        assertEquals(0, disk.unsyncedChanges());
    }

    @Test
    void aFileWhoseDirectoryWasNeverSyncedIsGoneEvenIfItsDataWasSynced() {
        SimulatedDisk disk = disk();
        long id = disk.create("journal");
        disk.write(id, 0, bytes(100, 7));
        disk.sync(id);

        PowerCut cut = disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();

        assertEquals(1, cut.namesForgotten());
        assertEquals(-1, disk.lookup("journal"));
    }

    @Test
    void aRemovalTheDirectoryDidNotSyncIsUndone() {
        SimulatedDisk disk = disk();
        long id = disk.create("journal");
        disk.write(id, 0, bytes(100, 7));
        disk.sync(id);
        disk.syncDirectory();
        disk.unlink("journal");
        assertEquals(-1, disk.lookup("journal"));

        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();

        assertArrayEquals(bytes(100, 7), read(disk, "journal"));
    }

    @Test
    void aNameRemovedAndCreatedAgainKeepsItsGenerationsApart() {
        SimulatedDisk disk = disk();
        long first = disk.create("journal");
        disk.write(first, 0, bytes(10, 1));
        disk.sync(first);
        disk.syncDirectory();
        disk.unlink("journal");
        long second = disk.create("journal");
        disk.write(second, 0, bytes(20, 2));
        disk.sync(second);

        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();
        assertArrayEquals(bytes(10, 1), read(disk, "journal"), "the directory still names the first");

        long third = disk.create("other");
        disk.syncDirectory();
        disk.unlink("journal");
        long fourth = disk.create("journal");
        disk.write(fourth, 0, bytes(30, 3));
        disk.sync(fourth);
        disk.syncDirectory();
        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();
        assertArrayEquals(bytes(30, 3), read(disk, "journal"));
        assertEquals(third, disk.lookup("other"));
    }

    @Test
    void anOpenFileStaysReadableAfterItsNameIsRemoved() {
        SimulatedDisk disk = disk();
        long id = disk.create("f");
        disk.opened(id);
        disk.write(id, 0, bytes(8, 5));
        disk.unlink("f");
        byte[] into = new byte[8];
        assertEquals(8, disk.read(id, 0, into));
        assertArrayEquals(bytes(8, 5), into);
        disk.released(id);
        assertThrows(SimulatedDisk.NoSuchFile.class, () -> disk.size(id));
    }

    @Test
    void truncationsAreChangesLikeWrites() {
        SimulatedDisk disk = disk();
        long id = disk.create("wal");
        disk.write(id, 0, bytes(4096, 1));
        disk.sync(id);
        disk.syncDirectory();
        disk.truncate(id, 0);
        assertEquals(0, disk.size(id));

        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();

        assertEquals(4096, read(disk, "wal").length);
    }

    @Test
    void memoryOnlyFilesAreNeverDurableAndACutRemovesThem() {
        SimulatedDisk disk = disk();
        long id = disk.create("db-shm");
        disk.write(id, 0, bytes(32768, 9));
        disk.sync(id);
        disk.syncDirectory();

        PowerCut cut = disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();

        assertEquals(new PowerCut(CutMode.LOSE_UNSYNCED, 0, 0, 0, 0), cut, "the -shm is not counted as a loss");
        assertEquals(-1, disk.lookup("db-shm"));
    }

    @Test
    void aTornLastWriteLandsInWholeSectorsAfterTheWritesBeforeIt() {
        for (long seed = 0; seed < 20; seed++) {
            SimulatedDisk disk = disk();
            long id = disk.create("db" + seed);
            disk.write(id, 0, bytes(4096, 1));
            disk.sync(id);
            disk.syncDirectory();
            disk.write(id, 0, bytes(1024, 2));
            disk.write(id, 1024, bytes(2048, 3));

            disk.cut(CutMode.TEAR_LAST_WRITE, new Random(seed * 0x9E3779B97F4A7C15L));
            disk.powerOn();

            byte[] after = read(disk, "db" + seed);
            assertArrayEquals(bytes(1024, 2), Arrays.copyOfRange(after, 0, 1024), "the earlier write landed");
            int torn = 0;
            while (torn < 2048 && after[1024 + torn] == 3) {
                torn++;
            }
            assertEquals(0, torn % 512, "seed " + seed + ": the last write tore at " + torn);
            for (int i = 1024 + torn; i < 4096; i++) {
                assertEquals(1, after[i], "seed " + seed + ": byte " + i + " past the tear is the synced one");
            }
        }
    }

    @Test
    void aRandomSubsetKeepsSomeUnsyncedWritesInTheirOrder() {
        int[] landed = new int[2];
        for (long seed = 0; seed < 40; seed++) {
            SimulatedDisk disk = disk();
            String name = "f" + seed;
            long id = disk.create(name);
            disk.write(id, 0, bytes(512, 0));
            disk.sync(id);
            disk.syncDirectory();
            disk.write(id, 0, bytes(512, 1));
            disk.write(id, 0, bytes(256, 2));

            // Seeds far apart: java.util.Random's first draws from neighbouring seeds are alike.
            PowerCut cut = disk.cut(CutMode.KEEP_RANDOM_SUBSET, new Random(seed * 0x9E3779B97F4A7C15L));
            disk.powerOn();

            byte[] after = read(disk, name);
            assertEquals(2, cut.lostChanges() + cut.keptChanges());
            if (cut.keptChanges() == 2) {
                assertEquals(2, after[0], "applied in order: the second write is on top");
                assertEquals(1, after[300]);
            }
            landed[cut.keptChanges() == 0 ? 0 : 1]++;
        }
        assertTrue(landed[0] > 0 && landed[1] > 0, "in 40 cuts some kept nothing and some kept writes: "
                + List.of(landed[0], landed[1]));
    }

    @Test
    void syncingEverythingMakesEveryChangeAndNameDurable() {
        SimulatedDisk disk = disk();
        long id = disk.create("f");
        disk.write(id, 0, bytes(10, 3));
        disk.syncAll();
        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();
        assertArrayEquals(bytes(10, 3), read(disk, "f"));
    }

    @Test
    void theDurableImageOutlivesTheDiskObject() {
        SimulatedDisk disk = disk();
        long id = disk.create("db");
        disk.write(id, 0, bytes(100, 4));
        disk.sync(id);
        disk.syncDirectory();
        disk.write(id, 0, bytes(100, 5));

        SimulatedDisk again = disk();

        assertArrayEquals(bytes(100, 4), read(again, "db"));
    }
}
