package dev.leaselab.powerloss;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The mounted layer, through the kernel: files written with and without fsync, and SQLite's own
 * durability in each journal and sync mode, across a real power cut of the layer. This machine
 * must be able to mount FUSE file systems (the test fails, never skips, when it cannot: CI installs
 * libfuse2 and fuse3).
 */
class ForgetfulMountTest {

    @TempDir
    Path dir;

    private ForgetfulMount disk;

    @BeforeEach
    void mount() {
        disk = ForgetfulMount.start(dir.resolve("backing"), dir.resolve("mnt"));
    }

    @AfterEach
    void unmount() {
        disk.close();
    }

    private static void write(Path file, byte[] bytes, boolean sync) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(bytes), 0);
            if (sync) {
                channel.force(true);
            }
        }
    }

    private static void syncDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    @Test
    void writtenButNotSyncedIsGoneAfterACutAndSyncedStays() throws IOException {
        Path synced = disk.mountPoint().resolve("synced");
        Path unsynced = disk.mountPoint().resolve("unsynced");
        write(synced, "kept".getBytes(), true);
        write(unsynced, "first".getBytes(), true);
        syncDirectory(disk.mountPoint());
        write(unsynced, "LOST!".getBytes(), false);
        assertArrayEquals("LOST!".getBytes(), Files.readAllBytes(unsynced), "before the cut programs see the write");

        PowerCut cut = disk.cutPower(CutMode.LOSE_UNSYNCED, 1);

        assertEquals(1, cut.filesWithUnsyncedChanges());
        assertEquals(1, cut.lostChanges());
        IOException off = assertThrows(IOException.class, () -> Files.readAllBytes(synced));
        assertTrue(off.getMessage().contains("Input/output error"), off.getMessage());
        disk.powerOn();
        assertArrayEquals("kept".getBytes(), Files.readAllBytes(synced));
        assertArrayEquals("first".getBytes(), Files.readAllBytes(unsynced));
    }

    @Test
    void aNewFileIsForgottenUnlessItsDirectoryWasSynced() throws IOException {
        write(disk.mountPoint().resolve("named"), "a".getBytes(), true);
        syncDirectory(disk.mountPoint());
        write(disk.mountPoint().resolve("unnamed"), "b".getBytes(), true);

        disk.cutPower(CutMode.LOSE_UNSYNCED, 1);
        disk.powerOn();

        assertTrue(Files.exists(disk.mountPoint().resolve("named")));
        assertFalse(Files.exists(disk.mountPoint().resolve("unnamed")));
    }

    @Test
    void theBackingDirectoryKeepsTheDurableImageAcrossMounts() throws IOException {
        write(disk.mountPoint().resolve("f"), "durable".getBytes(), true);
        syncDirectory(disk.mountPoint());
        write(disk.mountPoint().resolve("f"), "VOLATIL".getBytes(), false);
        disk.close();

        disk = ForgetfulMount.start(dir.resolve("backing"), dir.resolve("mnt"));

        assertArrayEquals("VOLATIL".getBytes(), Files.readAllBytes(disk.mountPoint().resolve("f")),
                "an unmount is no power cut: it keeps what had been written");
    }

    /**
     * What a PostgreSQL data directory needs of the layer, through the kernel: directories, their
     * fsync, rename, chmod and chown with the owner shown by stat, and (the negative control) a chown
     * that no fsync covered is undone by the cut.
     */
    @Test
    void directoriesAttributesAndRenamesThroughTheKernel() throws IOException {
        Path pgdata = disk.mountPoint().resolve("pgdata");
        Path wal = Files.createDirectories(pgdata.resolve("pg_wal"));
        Files.setPosixFilePermissions(pgdata, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(pgdata, "unix:uid", 4242);
        write(wal.resolve("xlogtemp.1"), "segment".getBytes(), true);
        Files.move(wal.resolve("xlogtemp.1"), wal.resolve("000000010000000000000001"));
        syncDirectory(wal);
        syncDirectory(pgdata);
        syncDirectory(disk.mountPoint());
        Path conf = pgdata.resolve("postgresql.conf");
        write(conf, "fsync = on".getBytes(), true);
        syncDirectory(pgdata);
        Files.setAttribute(conf, "unix:uid", 4242);
        assertEquals(4242, Files.getAttribute(conf, "unix:uid"), "programs see the chown at once");
        Files.createDirectories(pgdata.resolve("unsynced"));

        disk.cutPower(CutMode.LOSE_UNSYNCED, 1);
        disk.powerOn();

        assertEquals(4242, Files.getAttribute(pgdata, "unix:uid"));
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(pgdata)));
        assertArrayEquals("segment".getBytes(), Files.readAllBytes(wal.resolve("000000010000000000000001")));
        assertFalse(Files.exists(wal.resolve("xlogtemp.1")));
        assertEquals(0, Files.getAttribute(conf, "unix:uid"), "a chown no fsync covered is undone");
        assertArrayEquals("fsync = on".getBytes(), Files.readAllBytes(conf));
        assertFalse(Files.exists(pgdata.resolve("unsynced")));
        Files.delete(wal.resolve("000000010000000000000001"));
        Files.delete(wal);
        assertFalse(Files.exists(wal));
    }

    @Test
    void aMountPointThatIsNotEmptyIsRefused() throws IOException {
        Path busy = Files.createDirectories(dir.resolve("busy"));
        Files.writeString(busy.resolve("x"), "x");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ForgetfulMount.start(dir.resolve("backing2"), busy));
        assertTrue(e.getMessage().contains("mountPoint"), e.getMessage());
    }

    /**
     * SQLite's own promises, checked by cutting the power after 50 committed inserts: which modes
     * keep every commit ({@code lost} 0), and which lose some (the controls). DELETE with FULL loses
     * the last commit: its journal is deleted to commit, and with no directory sync after the delete
     * the cut brings the journal back, so recovery rolls the commit back (EXTRA syncs the directory).
     */
    @ParameterizedTest(name = "{0} + {1}: lost {2}")
    @CsvSource({
        "WAL, FULL, none",
        "WAL, NORMAL, some",
        "WAL, OFF, some",
        "DELETE, EXTRA, none",
        "DELETE, FULL, some",
        "DELETE, OFF, some",
    })
    void sqliteKeepsEveryCommitOnlyWhereItSyncs(String journal, String sync, String lost) throws SQLException {
        String url = "jdbc:sqlite:" + disk.mountPoint().resolve("t.db");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode=" + journal);
            s.execute("PRAGMA synchronous=" + sync);
            s.execute("CREATE TABLE t(x)");
            for (int i = 0; i < 50; i++) {
                s.execute("INSERT INTO t VALUES (" + i + ")");
            }
            disk.cutPower(CutMode.LOSE_UNSYNCED, 7);
            assertThrows(SQLException.class, () -> s.execute("INSERT INTO t VALUES (-1)"), "the disk is off");
        }
        disk.powerOn();
        int rows;
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("PRAGMA integrity_check")) {
                r.next();
                assertEquals("ok", r.getString(1));
            }
            try (ResultSet r = s.executeQuery("SELECT count(*) FROM t")) {
                r.next();
                rows = r.getInt(1);
            } catch (SQLException e) {
                assertTrue(e.getMessage().contains("no such table"), e.getMessage());
                rows = -1;
            }
        }
        if (lost.equals("none")) {
            assertEquals(50, rows, journal + "+" + sync + " must keep every commit");
        } else {
            assertTrue(rows < 50, journal + "+" + sync + " is a control: the cut must cost commits, rows " + rows);
        }
    }

    /**
     * Why a race must stop its workers before the power goes (as a real power cut does). DELETE +
     * EXTRA commits by deleting the journal and then syncing the directory; a program still running
     * after the cut finds the directory cannot be opened, and SQLite's {@code unixDelete} takes a
     * directory it cannot open for one that needs no sync: the commit is reported done, and the
     * journal the cut brought back rolls it back at the next open.
     */
    @Test
    void aProgramRunningOnAfterTheCutIsToldOfACommitThatTheCutTookBack() throws SQLException {
        String url = "jdbc:sqlite:" + disk.mountPoint().resolve("t.db");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode=DELETE");
            s.execute("PRAGMA synchronous=EXTRA");
            s.execute("CREATE TABLE t(x)");
            s.execute("INSERT INTO t VALUES (1)");
            disk.cutPowerAfterUnlink("-journal", CutMode.LOSE_UNSYNCED, 7);
            assertEquals(1, s.executeUpdate("UPDATE t SET x = 2"), "the commit is reported done after the cut");
            assertThrows(SQLException.class, () -> s.execute("INSERT INTO t VALUES (3)"), "the disk is off");
        }
        disk.powerOn();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT x FROM t")) {
            assertTrue(r.next());
            assertEquals(1, r.getInt(1), "the journal came back and rolled the reported commit back");
            assertFalse(r.next());
        }
    }

    @Test
    void anArmedCutNamesItsBadArguments() {
        assertThrows(NullPointerException.class, () -> disk.cutPowerAfterUnlink(null, CutMode.LOSE_UNSYNCED, 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> disk.cutPowerAfterUnlink("a b", CutMode.LOSE_UNSYNCED, 1));
        assertTrue(e.getMessage().contains("nameSuffix"), e.getMessage());
    }
}
