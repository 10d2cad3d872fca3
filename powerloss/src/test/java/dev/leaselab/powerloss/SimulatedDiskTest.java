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
        long handle = disk.open(id);
        disk.write(id, 0, bytes(8, 5));
        disk.unlink("f");
        byte[] into = new byte[8];
        assertEquals(8, disk.read(disk.idOf(handle), 0, into));
        assertArrayEquals(bytes(8, 5), into);
        disk.release(handle);
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

    // ---- directories, attributes, handles: what a PostgreSQL data directory needs ----

    private static final int POSTGRES = 101;

    @Test
    void aFileInANewDirectoryNeedsItsOwnDirectoryAndItsParentSynced() {
        SimulatedDisk disk = disk();
        disk.mkdir("base", 0700, POSTGRES, POSTGRES);
        long id = disk.create("base/1259", 0600, POSTGRES, POSTGRES);
        disk.write(id, 0, bytes(8192, 1));
        disk.sync(id);
        disk.syncDirectory("base");

        PowerCut cut = disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();

        assertEquals(2, cut.namesForgotten(), "base in the root, 1259 in base");
        assertEquals(-1, disk.lookup("base"), "the root was never synced: base is gone, and its file with it");

        disk.mkdir("base", 0700, POSTGRES, POSTGRES);
        long again = disk.create("/base/1259", 0600, POSTGRES, POSTGRES);
        disk.write(again, 0, bytes(8192, 2));
        disk.sync(again);
        disk.syncDirectory("/");
        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();
        assertEquals(List.of(), disk.list("base"), "base is durable, empty: its own entries were never synced");

        long third = disk.create("base/1259", 0600, POSTGRES, POSTGRES);
        disk.write(third, 0, bytes(8192, 3));
        disk.sync(third);
        disk.syncDirectory("base");
        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();
        assertArrayEquals(bytes(8192, 3), read(disk, "base/1259"));
    }

    @Test
    void aRenameBetweenDirectoriesIsAChangeInEach() {
        SimulatedDisk disk = disk();
        disk.mkdir("a", 0755, 0, 0);
        disk.mkdir("b", 0755, 0, 0);
        long id = disk.create("a/x");
        disk.write(id, 0, bytes(10, 4));
        disk.syncAll();

        disk.rename("a/x", "b/x");
        assertEquals(-1, disk.lookup("a/x"));
        assertEquals(id, disk.lookup("b/x"));
        disk.syncDirectory("b");
        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();
        assertArrayEquals(bytes(10, 4), read(disk, "a/x"), "a was not synced: it still names the file");
        assertArrayEquals(bytes(10, 4), read(disk, "b/x"), "b was: the file came back with two names");
        assertEquals(2, disk.attributes("a/x").links());

        disk.unlink("b/x");
        disk.syncDirectory("b");
        disk.rename("a/x", "b/x");
        disk.syncDirectory("a");
        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();
        assertEquals(-1, disk.lookup("a/x"));
        assertEquals(-1, disk.lookup("b/x"), "only the removal from a was synced: the file is gone");
    }

    @Test
    void aRenameReplacesItsTargetAndADirectoryCannotMoveIntoItself() {
        SimulatedDisk disk = disk();
        long old = disk.create("pg_control");
        disk.write(old, 0, bytes(512, 1));
        long next = disk.create("pg_control.tmp");
        disk.write(next, 0, bytes(512, 2));
        disk.syncAll();
        disk.rename("pg_control.tmp", "pg_control");
        disk.syncDirectory();
        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();
        assertArrayEquals(bytes(512, 2), read(disk, "pg_control"));
        assertEquals(-1, disk.lookup("pg_control.tmp"));

        disk.mkdir("d", 0755, 0, 0);
        disk.mkdir("d/e", 0755, 0, 0);
        SimulatedDisk.Refused loop = assertThrows(SimulatedDisk.Refused.class, () -> disk.rename("d", "d/e/f"));
        assertEquals(SimulatedDisk.Refused.Errno.EINVAL, loop.errno);
        SimulatedDisk.Refused onFile = assertThrows(SimulatedDisk.Refused.class, () -> disk.rename("d", "pg_control"));
        assertEquals(SimulatedDisk.Refused.Errno.ENOTDIR, onFile.errno);
    }

    @Test
    void anUnsyncedRmdirIsUndoneAndOnlyAnEmptyDirectoryCanGo() {
        SimulatedDisk disk = disk();
        disk.mkdir("pg_replslot", 0700, POSTGRES, POSTGRES);
        long id = disk.create("pg_replslot/state");
        disk.write(id, 0, bytes(100, 6));
        disk.syncAll();

        SimulatedDisk.Refused full = assertThrows(SimulatedDisk.Refused.class, () -> disk.rmdir("pg_replslot"));
        assertEquals(SimulatedDisk.Refused.Errno.ENOTEMPTY, full.errno);
        disk.unlink("pg_replslot/state");
        disk.rmdir("pg_replslot");
        assertEquals(-1, disk.lookup("pg_replslot"));

        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();

        assertArrayEquals(bytes(100, 6), read(disk, "pg_replslot/state"));
    }

    @Test
    void aNewInodeIsDurableWithTheAttributesItHadWhenItsNameWasSynced() {
        SimulatedDisk disk = disk();
        disk.mkdir("pgdata", 0700, POSTGRES, POSTGRES);
        disk.create("pgdata/PG_VERSION", 0600, POSTGRES, POSTGRES);
        disk.syncDirectory("/");
        disk.syncDirectory("pgdata");

        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();

        assertEquals(new SimulatedDisk.Attributes(disk.lookup("pgdata"), true, 0700, POSTGRES, POSTGRES, 4096, 2),
                disk.attributes("pgdata"));
        SimulatedDisk.Attributes version = disk.attributes("pgdata/PG_VERSION");
        assertEquals(0600, version.permissions());
        assertEquals(POSTGRES, version.uid());
        assertEquals(0, version.size(), "its data was never synced: durable as an empty file");
    }

    /** The negative control of the attributes: a chmod or chown no fsync covered is undone; fdatasync does not cover it. */
    @Test
    void aChmodOrChownIsDurableAtTheInodesFsyncOnly() {
        SimulatedDisk disk = disk();
        disk.mkdir("pgdata", 0755, 0, 0);
        long file = disk.create("pgdata/postgresql.conf", 0644, 0, 0);
        disk.syncAll();

        disk.chown("pgdata/postgresql.conf", POSTGRES, POSTGRES);
        disk.chmod("pgdata/postgresql.conf", 0600);
        disk.chmod("pgdata", 0700);
        assertEquals(POSTGRES, disk.attributes("pgdata/postgresql.conf").uid(), "programs see the change at once");
        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();
        assertEquals(0, disk.attributes("pgdata/postgresql.conf").uid(), "not synced: undone");
        assertEquals(0644, disk.attributes("pgdata/postgresql.conf").permissions());
        assertEquals(0755, disk.attributes("pgdata").permissions());

        disk.chown("pgdata/postgresql.conf", POSTGRES, -1);
        disk.syncData(disk.lookup("pgdata/postgresql.conf"));
        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();
        assertEquals(0, disk.attributes("pgdata/postgresql.conf").uid(), "fdatasync syncs data, not attributes");

        disk.chown("pgdata/postgresql.conf", POSTGRES, -1);
        disk.sync(disk.lookup("pgdata/postgresql.conf"));
        disk.chmod("pgdata", 0700);
        disk.syncDirectory("pgdata");
        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();
        SimulatedDisk.Attributes conf = disk.attributes("pgdata/postgresql.conf");
        assertEquals(POSTGRES, conf.uid(), "fsync made the chown durable");
        assertEquals(0, conf.gid(), "-1 kept the group");
        assertEquals(0700, disk.attributes("pgdata").permissions(), "the directory's fsync made its chmod durable");
        assertTrue(file > 0);
    }

    @Test
    void aSyncWritesOnlyTheChangesAndTheImageMatchesWhatProgramsSaw() {
        SimulatedDisk disk = disk();
        long id = disk.create("000000010000000000000001");
        disk.write(id, 0, bytes(8192, 1));
        disk.syncAll();
        disk.write(id, 1000, bytes(100, 2));
        disk.truncate(id, 6000);
        disk.write(id, 9000, bytes(24, 3));
        disk.truncate(id, 9010);
        byte[] seen = read(disk, "000000010000000000000001");
        disk.sync(id);

        assertArrayEquals(seen, read(disk(), "000000010000000000000001"), "the durable image, read by a new disk");
    }

    @Test
    void handlesOpenedBeforeACutAreClosedByIt() {
        SimulatedDisk disk = disk();
        long id = disk.create("f");
        disk.syncDirectory();
        long handle = disk.open(id);

        disk.cut(CutMode.LOSE_UNSYNCED, new Random(1));
        disk.powerOn();

        assertThrows(SimulatedDisk.NoSuchFile.class, () -> disk.idOf(handle));
        disk.release(handle);  // the kernel's late release of a dead program's file: ignored
        long reopened = disk.open(disk.lookup("f"));
        disk.unlink("f");
        assertEquals(0, disk.read(disk.idOf(reopened), 0, new byte[1]), "still open: still readable");
    }

    @Test
    void theTreeRefusesWhatPosixRefuses() {
        SimulatedDisk disk = disk();
        disk.mkdir("d", 0755, 0, 0);
        long file = disk.create("f");
        assertEquals(SimulatedDisk.Refused.Errno.EEXIST,
                assertThrows(SimulatedDisk.Refused.class, () -> disk.mkdir("d", 0755, 0, 0)).errno);
        assertEquals(SimulatedDisk.Refused.Errno.EISDIR,
                assertThrows(SimulatedDisk.Refused.class, () -> disk.unlink("d")).errno);
        assertEquals(SimulatedDisk.Refused.Errno.ENOTDIR,
                assertThrows(SimulatedDisk.Refused.class, () -> disk.rmdir("f")).errno);
        assertEquals(SimulatedDisk.Refused.Errno.ENOTDIR,
                assertThrows(SimulatedDisk.Refused.class, () -> disk.create("f/g")).errno);
        assertThrows(SimulatedDisk.NoSuchFile.class, () -> disk.create("missing/g"));
        assertEquals(SimulatedDisk.Refused.Errno.EISDIR,
                assertThrows(SimulatedDisk.Refused.class, () -> disk.write(disk.lookup("d"), 0, bytes(1, 1))).errno);
        assertEquals(List.of("d", "f"), disk.list("/"));
        assertEquals(file, disk.lookup("/f"));
    }
}
