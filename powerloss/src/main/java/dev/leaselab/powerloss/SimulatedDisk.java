package dev.leaselab.powerloss;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The disk under {@link ForgetfulFileSystem}: one flat directory of regular files whose durable image
 * lives in a backing directory, and whose writes since the last {@code fsync} live only here, in
 * memory, as the kernel's page cache would hold them.
 *
 * <p>What is durable, POSIX's strict reading, the one SQLite's own crash tests assume:
 * <ul>
 *   <li>a file's contents: what its last {@code fsync} (or {@code fdatasync}) saw;</li>
 *   <li>the directory (which names exist and which file each names): what its last {@code fsync}
 *       saw. A file created, removed or renamed since then is not, even if its own data was synced.</li>
 * </ul>
 * A {@link #cut power cut} throws away everything else; {@link CutMode} decides whether a disk cache
 * wrote part of it out first. Until {@link #powerOn()}, every operation fails, as a dead disk would.
 *
 * <p>Layout of the backing directory: {@code objects/<id>} holds file {@code id}'s synced contents,
 * {@code names} the synced directory ({@code id name} per line). The layer itself never loses power,
 * so they are written without fsync of their own. Files are addressed by id, not by name, so that a
 * name removed and created again before the directory is synced (SQLite's rollback journal, each
 * transaction) keeps both generations apart.
 *
 * <p>Thread safety: every method is synchronized; FUSE calls come from several threads.
 */
final class SimulatedDisk {

    /** Thrown by every operation while the power is off; the FUSE layer answers EIO. */
    static final class PoweredOff extends RuntimeException {
        PoweredOff() {
            super("the power is off", null, false, false);
        }
    }

    /** Thrown for a name that does not exist; the FUSE layer answers ENOENT. */
    static final class NoSuchFile extends RuntimeException {
        NoSuchFile(String name) {
            super(name, null, false, false);
        }
    }

    /** A change to a file's contents that no sync has made durable yet. */
    sealed interface Change permits Write, Truncate {}

    record Write(long offset, byte[] bytes) implements Change {}

    record Truncate(long size) implements Change {}

    /** A file: its contents as programs see them, and the changes since its last sync. */
    private static final class Inode {
        final long id;
        byte[] data;
        int size;
        final List<Change> unsynced = new ArrayList<>();
        int openHandles;
        /** Never durable: SQLite's -shm, which it rebuilds after a crash and maps with mmap. */
        final boolean memoryOnly;

        Inode(long id, byte[] data, boolean memoryOnly) {
            this.id = id;
            this.memoryOnly = memoryOnly;
            this.data = data;
            this.size = data.length;
        }

        void write(long offset, byte[] bytes) {
            long end = offset + bytes.length;
            if (end > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("file too large for the simulated disk: " + end);
            }
            ensure((int) end);
            System.arraycopy(bytes, 0, data, (int) offset, bytes.length);
            size = Math.max(size, (int) end);
        }

        void truncate(long newSize) {
            if (newSize > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("file too large for the simulated disk: " + newSize);
            }
            ensure((int) newSize);
            if (newSize < size) {
                Arrays.fill(data, (int) newSize, size, (byte) 0);
            }
            size = (int) newSize;
        }

        private void ensure(int capacity) {
            if (capacity > data.length) {
                data = Arrays.copyOf(data, Math.max(capacity, data.length * 2));
            }
        }
    }

    private final Path objects;
    private final Path namesFile;
    /** The directory as programs see it. */
    private final Map<String, Inode> names = new TreeMap<>();
    /** The directory as the last directory sync left it: name to id. */
    private Map<String, Long> syncedNames = new TreeMap<>();
    /** Every file a program can still reach, by name or by an open handle. */
    private final Map<Long, Inode> inodes = new HashMap<>();
    private long nextId;
    private boolean powered = true;
    private long writes;
    private long syncs;
    private long cuts;

    private final Predicate<String> memoryOnly;

    /**
     * @param memoryOnly names whose files live in memory only: they are never durable, a directory
     *     sync leaves them out and a cut removes them, as it would a file on a RAM disk
     */
    SimulatedDisk(Path backing, Predicate<String> memoryOnly) {
        this.memoryOnly = Objects.requireNonNull(memoryOnly, "memoryOnly");
        this.objects = backing.resolve("objects");
        this.namesFile = backing.resolve("names");
        try {
            Files.createDirectories(objects);
            if (Files.exists(namesFile)) {
                for (String line : Files.readAllLines(namesFile, StandardCharsets.UTF_8)) {
                    int space = line.indexOf(' ');
                    syncedNames.put(line.substring(space + 1), Long.parseLong(line.substring(0, space)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the backing directory " + backing, e);
        }
        nextId = syncedNames.values().stream().mapToLong(Long::longValue).max().orElse(0) + 1;
        loadSyncedImage();
    }

    // ---- the directory ----

    synchronized List<String> list() {
        on();
        return List.copyOf(names.keySet());
    }

    /** The id of {@code name}, or -1 if there is none. */
    synchronized long lookup(String name) {
        on();
        Inode inode = names.get(name);
        return inode == null ? -1 : inode.id;
    }

    /** Creates {@code name} empty if missing and returns its id. */
    synchronized long create(String name) {
        on();
        Inode inode = names.get(name);
        if (inode == null) {
            inode = new Inode(nextId++, new byte[0], memoryOnly.test(name));
            names.put(name, inode);
            inodes.put(inode.id, inode);
        }
        return inode.id;
    }

    /** Removes the name; a program holding the file open keeps reaching it by id. */
    synchronized void unlink(String name) {
        on();
        if (names.remove(name) == null) {
            throw new NoSuchFile(name);
        }
    }

    synchronized void rename(String from, String to) {
        on();
        Inode inode = names.remove(from);
        if (inode == null) {
            throw new NoSuchFile(from);
        }
        names.put(to, inode);
    }

    /** The directory's fsync: its names, as they are now, become durable. */
    synchronized void syncDirectory() {
        on();
        Map<String, Long> now = new TreeMap<>();
        names.forEach((name, inode) -> {
            if (!inode.memoryOnly) {
                now.put(name, inode.id);
            }
        });
        for (Long id : now.values()) {
            Path object = object(id);
            if (!Files.exists(object)) {
                // A file whose data was never synced is durable as an empty file, as on a real disk.
                writeObject(id, new byte[0], 0);
            }
        }
        syncedNames = now;
        StringBuilder text = new StringBuilder();
        now.forEach((name, id) -> text.append(id).append(' ').append(name).append('\n'));
        try {
            Path tmp = namesFile.resolveSibling("names.tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, namesFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + namesFile, e);
        }
        syncs++;
    }

    // ---- a file ----

    synchronized long size(long id) {
        on();
        return inode(id).size;
    }

    synchronized int read(long id, long offset, byte[] into) {
        on();
        Inode inode = inode(id);
        if (offset >= inode.size) {
            return 0;
        }
        int n = (int) Math.min(into.length, inode.size - offset);
        System.arraycopy(inode.data, (int) offset, into, 0, n);
        return n;
    }

    synchronized void write(long id, long offset, byte[] bytes) {
        on();
        Inode inode = inode(id);
        inode.write(offset, bytes);
        inode.unsynced.add(new Write(offset, bytes));
        writes++;
    }

    synchronized void truncate(long id, long size) {
        on();
        Inode inode = inode(id);
        inode.truncate(size);
        inode.unsynced.add(new Truncate(size));
    }

    /** The file's fsync: its contents, as they are now, become durable. */
    synchronized void sync(long id) {
        on();
        Inode inode = inode(id);
        if (!inode.memoryOnly) {
            writeObject(id, inode.data, inode.size);
        }
        inode.unsynced.clear();
        syncs++;
    }

    /** What a clean unmount (or {@code sync(1)}) does: every file and the directory become durable. */
    synchronized void syncAll() {
        on();
        for (Inode inode : names.values()) {
            sync(inode.id);
        }
        syncDirectory();
    }

    /** A program opened the file: it stays reachable through the handle even if its name goes. */
    synchronized void opened(long id) {
        on();
        inode(id).openHandles++;
    }

    /** A handle was closed: forget the file once no handle and no name reaches it. */
    synchronized void released(long id) {
        Inode inode = inodes.get(id);
        if (inode == null) {
            return;
        }
        inode.openHandles--;
        if (inode.openHandles <= 0 && !names.containsValue(inode)) {
            inodes.remove(id);
        }
    }

    // ---- power ----

    /**
     * Cuts the power: every change not synced is lost, except what {@code mode} lets a disk cache
     * write out first, and the disk answers nothing until {@link #powerOn()}.
     */
    synchronized PowerCut cut(CutMode mode, Random random) {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(random, "random");
        on();
        long lostChanges = 0;
        long keptChanges = 0;
        int filesWithLoss = 0;
        for (Inode inode : inodes.values()) {
            if (inode.unsynced.isEmpty() || inode.memoryOnly) {
                continue;
            }
            filesWithLoss++;
            if (!Files.exists(object(inode.id))) {
                // A file neither synced nor named in a synced directory has nowhere durable to land.
                lostChanges += inode.unsynced.size();
                continue;
            }
            List<Change> landed = mode.landed(inode.unsynced, random);
            long kept = landed.size();
            if (kept > 0) {
                Inode durable = new Inode(inode.id, readObject(inode.id), false);
                for (Change change : landed) {
                    if (change instanceof Write w) {
                        durable.write(w.offset(), w.bytes());
                    } else {
                        durable.truncate(((Truncate) change).size());
                    }
                }
                writeObject(inode.id, durable.data, durable.size);
            }
            keptChanges += kept;
            lostChanges += inode.unsynced.size() - kept;
        }
        Map<String, Long> before = new TreeMap<>();
        names.forEach((name, inode) -> {
            if (!inode.memoryOnly) {
                before.put(name, inode.id);
            }
        });
        int namesForgotten = 0;
        for (Map.Entry<String, Long> entry : before.entrySet()) {
            if (!entry.getValue().equals(syncedNames.get(entry.getKey()))) {
                namesForgotten++;
            }
        }
        for (Map.Entry<String, Long> entry : syncedNames.entrySet()) {
            if (!entry.getValue().equals(before.get(entry.getKey()))) {
                namesForgotten++;
            }
        }
        loadSyncedImage();
        powered = false;
        cuts++;
        return new PowerCut(mode, filesWithLoss, lostChanges, keptChanges, namesForgotten);
    }

    synchronized void powerOn() {
        powered = true;
    }

    synchronized boolean powered() {
        return powered;
    }

    synchronized long unsyncedChanges() {
        return inodes.values().stream().mapToLong(i -> i.unsynced.size()).sum();
    }

    synchronized String counters() {
        return "writes " + writes + ", syncs " + syncs + ", cuts " + cuts;
    }

    // ---- internals ----

    private void on() {
        if (!powered) {
            throw new PoweredOff();
        }
    }

    private Inode inode(long id) {
        Inode inode = inodes.get(id);
        if (inode == null) {
            throw new NoSuchFile("#" + id);
        }
        return inode;
    }

    /** Replaces what programs see by the durable image, and removes what no durable name reaches. */
    private void loadSyncedImage() {
        names.clear();
        inodes.clear();
        for (Map.Entry<String, Long> entry : syncedNames.entrySet()) {
            Inode inode = new Inode(entry.getValue(), readObject(entry.getValue()), false);
            names.put(entry.getKey(), inode);
            inodes.put(inode.id, inode);
        }
        try (var files = Files.list(objects)) {
            for (Path object : (Iterable<Path>) files::iterator) {
                if (!syncedNames.containsValue(Long.parseLong(object.getFileName().toString()))) {
                    Files.delete(object);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clean " + objects, e);
        }
    }

    private Path object(long id) {
        return objects.resolve(Long.toString(id));
    }

    private byte[] readObject(long id) {
        Path object = object(id);
        try {
            return Files.exists(object) ? Files.readAllBytes(object) : new byte[0];
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + object, e);
        }
    }

    private void writeObject(long id, byte[] data, int size) {
        Path object = object(id);
        try (RandomAccessFile file = new RandomAccessFile(object.toFile(), "rw")) {
            file.setLength(size);
            file.seek(0);
            file.write(data, 0, size);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + object, e);
        }
    }
}
