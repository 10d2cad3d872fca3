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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The disk under {@link ForgetfulFileSystem}: a tree of directories and regular files whose durable
 * image lives in a backing directory, and whose changes since the last {@code fsync} live only here,
 * in memory, as the kernel's page cache would hold them.
 *
 * <p>What is durable, POSIX's strict reading, the one SQLite's own crash tests assume:
 * <ul>
 *   <li>a file's contents: what its last {@code fsync} (or {@code fdatasync}) saw;</li>
 *   <li>a directory's entries (which names exist in it and which file or directory each names):
 *       what the directory's last {@code fsync} saw. A file created, removed or renamed since then
 *       is not, even if its own data was synced; a rename between two directories is two changes,
 *       one in each;</li>
 *   <li>an inode's attributes (permissions, owner, group): what they were when a synced directory
 *       first named it, and after that what its own last {@code fsync} saw ({@code fdatasync} syncs
 *       data only, as POSIX lets it). A {@code chmod} or {@code chown} not covered by one is undone
 *       by a cut.</li>
 * </ul>
 * A {@link #cut power cut} throws away everything else; {@link CutMode} decides whether a disk cache
 * wrote part of the unsynced file data out first. Until {@link #powerOn()}, every operation fails,
 * as a dead disk would. Timestamps and hard links are not modelled.
 *
 * <p>Layout of the backing directory: {@code objects/<id>} holds file {@code id}'s synced contents,
 * {@code meta/<id>} inode {@code id}'s synced attributes and, for a directory, its synced entries
 * ({@code id name} per line); the root directory is id {@value #ROOT}. The layer itself never loses
 * power, so they are written without fsync of their own. Files are addressed by id, not by name, so
 * that a name removed and created again before the directory is synced (SQLite's rollback journal,
 * each transaction) keeps both generations apart.
 *
 * <p>Paths are {@code /}-separated, relative to the root, with or without a leading {@code /}
 * ({@code "db"}, {@code "/base/1/1259"}); {@code "/"} is the root.
 *
 * <p>Thread safety: every method is synchronized; FUSE calls come from several threads.
 */
final class SimulatedDisk {

    /** The root directory's id. */
    static final long ROOT = 1;

    private static final byte[] EMPTY = new byte[0];

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

    /** An operation POSIX refuses: the FUSE layer answers {@link #errno}. */
    static final class Refused extends RuntimeException {
        enum Errno { EEXIST, ENOTDIR, EISDIR, ENOTEMPTY, EINVAL }

        final Errno errno;

        Refused(Errno errno, String path) {
            super(errno + ": " + path, null, false, false);
            this.errno = errno;
        }
    }

    /** A change to a file's contents that no sync has made durable yet. */
    sealed interface Change permits Write, Truncate {}

    record Write(long offset, byte[] bytes) implements Change {}

    record Truncate(long size) implements Change {}

    /**
     * What {@code stat} shows of an inode.
     *
     * @param permissions the mode's permission bits ({@code 07777})
     * @param links names that reach it (for a directory, 2 plus its subdirectories, as POSIX counts)
     */
    record Attributes(long id, boolean directory, int permissions, int uid, int gid, long size, int links) {}

    /** A file or a directory as programs see it, and what of it no sync has covered. */
    private static final class Inode {
        final long id;
        final boolean directory;
        /** Never durable: SQLite's -shm, which it rebuilds after a crash and maps with mmap. */
        final boolean memoryOnly;
        int permissions;
        int uid;
        int gid;
        /** A chmod or chown since the inode's attributes were last made durable. */
        boolean attributesChanged;
        byte[] data = EMPTY;
        int size;
        final List<Change> unsynced = new ArrayList<>();
        /** A directory's entries; null for a file. */
        final Map<String, Inode> entries;
        int links;
        int openHandles;

        Inode(long id, boolean directory, boolean memoryOnly, int permissions, int uid, int gid) {
            this.id = id;
            this.directory = directory;
            this.memoryOnly = memoryOnly;
            this.permissions = permissions & 07777;
            this.uid = uid;
            this.gid = gid;
            this.entries = directory ? new TreeMap<>() : null;
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

    /**
     * An inode's durable metadata, as in {@code meta/<id>}: its attributes and, for a directory, its
     * entries (name to id; null for a file).
     */
    private record Durable(boolean directory, int permissions, int uid, int gid, Map<String, Long> entries) {}

    private final Path objects;
    private final Path meta;
    /** Every inode with a durable image, by id: a mirror of {@code meta/}. */
    private final Map<Long, Durable> durable = new HashMap<>();
    /** Every inode a program can still reach, by a name or by an open handle. */
    private final Map<Long, Inode> inodes = new TreeMap<>();
    /** Open files by handle; a cut closes them all (their programs are gone with the power). */
    private final Map<Long, Inode> handles = new HashMap<>();
    private Inode root;
    private long nextId;
    private long nextHandle = 1;
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
        this.meta = backing.resolve("meta");
        try {
            Files.createDirectories(objects);
            Files.createDirectories(meta);
            try (var files = Files.list(meta)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    String name = file.getFileName().toString();
                    if (!name.endsWith(".tmp")) {
                        durable.put(Long.parseLong(name), readMeta(file));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the backing directory " + backing, e);
        }
        if (!durable.containsKey(ROOT)) {
            writeMeta(ROOT, new Durable(true, 0755, 0, 0, Map.of()));
        }
        nextId = durable.keySet().stream().mapToLong(Long::longValue).max().orElse(ROOT) + 1;
        loadSyncedImage();
    }

    // ---- the tree ----

    /** The names in the directory at {@code path}. */
    synchronized List<String> list(String path) {
        on();
        return List.copyOf(directory(existing(path), path).entries.keySet());
    }

    /** The id of what {@code path} names, or -1 if there is none. */
    synchronized long lookup(String path) {
        on();
        Inode inode = resolve(path);
        return inode == null ? -1 : inode.id;
    }

    /** What {@code stat(path)} shows, or null if nothing has that name. */
    synchronized Attributes attributes(String path) {
        on();
        Inode inode = resolve(path);
        return inode == null ? null : attributes(inode);
    }

    /** What {@code fstat} shows of inode {@code id}. */
    synchronized Attributes attributes(long id) {
        on();
        return attributes(inode(id));
    }

    /** Creates the file {@code path}, empty, owned by root with mode 0644, if missing; returns its id. */
    synchronized long create(String path) {
        return create(path, 0644, 0, 0);
    }

    /** Creates the file {@code path}, empty, if missing, and returns its id (an existing file's, if there is one). */
    synchronized long create(String path, int permissions, int uid, int gid) {
        on();
        Inode parent = parent(path);
        String name = leaf(path);
        Inode existing = parent.entries.get(name);
        if (existing != null) {
            if (existing.directory) {
                throw new Refused(Refused.Errno.EISDIR, path);
            }
            return existing.id;
        }
        Inode inode = new Inode(nextId++, false, memoryOnly.test(name), permissions, uid, gid);
        inodes.put(inode.id, inode);
        addEntry(parent, name, inode);
        return inode.id;
    }

    /** Creates the directory {@code path}; returns its id. */
    synchronized long mkdir(String path, int permissions, int uid, int gid) {
        on();
        Inode parent = parent(path);
        String name = leaf(path);
        if (parent.entries.containsKey(name)) {
            throw new Refused(Refused.Errno.EEXIST, path);
        }
        Inode inode = new Inode(nextId++, true, false, permissions, uid, gid);
        inodes.put(inode.id, inode);
        addEntry(parent, name, inode);
        return inode.id;
    }

    /** Removes the file's name; a program holding the file open keeps reaching it by its handle. */
    synchronized void unlink(String path) {
        on();
        Inode parent = parent(path);
        Inode inode = parent.entries.get(leaf(path));
        if (inode == null) {
            throw new NoSuchFile(path);
        }
        if (inode.directory) {
            throw new Refused(Refused.Errno.EISDIR, path);
        }
        removeEntry(parent, leaf(path));
    }

    /** Removes an empty directory. */
    synchronized void rmdir(String path) {
        on();
        Inode parent = parent(path);
        Inode inode = parent.entries.get(leaf(path));
        if (inode == null) {
            throw new NoSuchFile(path);
        }
        if (!inode.directory) {
            throw new Refused(Refused.Errno.ENOTDIR, path);
        }
        if (!inode.entries.isEmpty()) {
            throw new Refused(Refused.Errno.ENOTEMPTY, path);
        }
        removeEntry(parent, leaf(path));
    }

    /** Renames, replacing what {@code to} named (a file, or an empty directory by a directory), as rename(2) does. */
    synchronized void rename(String from, String to) {
        on();
        Inode fromParent = parent(from);
        String fromName = leaf(from);
        Inode inode = fromParent.entries.get(fromName);
        if (inode == null) {
            throw new NoSuchFile(from);
        }
        Inode toParent = parent(to);
        String toName = leaf(to);
        if (inode.directory && (toParent == inode || contains(inode, toParent))) {
            throw new Refused(Refused.Errno.EINVAL, from + " into itself: " + to);
        }
        Inode target = toParent.entries.get(toName);
        if (target == inode) {
            return;
        }
        if (target != null) {
            if (inode.directory && !target.directory) {
                throw new Refused(Refused.Errno.ENOTDIR, to);
            }
            if (!inode.directory && target.directory) {
                throw new Refused(Refused.Errno.EISDIR, to);
            }
            if (target.directory && !target.entries.isEmpty()) {
                throw new Refused(Refused.Errno.ENOTEMPTY, to);
            }
            removeEntry(toParent, toName);
        }
        fromParent.entries.remove(fromName);
        toParent.entries.put(toName, inode);
    }

    /** Changes the permission bits; durable at the inode's next fsync. */
    synchronized void chmod(String path, int permissions) {
        on();
        Inode inode = existing(path);
        inode.permissions = permissions & 07777;
        inode.attributesChanged = true;
    }

    /** Changes the owner and group (-1 keeps one); durable at the inode's next fsync. */
    synchronized void chown(String path, int uid, int gid) {
        on();
        Inode inode = existing(path);
        if (uid != -1) {
            inode.uid = uid;
        }
        if (gid != -1) {
            inode.gid = gid;
        }
        inode.attributesChanged = true;
    }

    /** The root directory's fsync: its entries, as they are now, become durable. */
    synchronized void syncDirectory() {
        syncDirectory("/");
    }

    /** The directory's fsync: its entries and attributes, as they are now, become durable. */
    synchronized void syncDirectory(String path) {
        on();
        persistDirectory(directory(existing(path), path));
        syncs++;
    }

    // ---- an open file ----

    /** A program opened inode {@code id}: it stays reachable through the returned handle even if its name goes. */
    synchronized long open(long id) {
        on();
        Inode inode = inode(id);
        inode.openHandles++;
        long handle = nextHandle++;
        handles.put(handle, inode);
        return handle;
    }

    /** The inode an open handle reaches. */
    synchronized long idOf(long handle) {
        on();
        Inode inode = handles.get(handle);
        if (inode == null) {
            throw new NoSuchFile("handle " + handle);
        }
        return inode.id;
    }

    /**
     * A handle was closed: forget the file once no handle and no name reaches it. A handle from
     * before a cut is already closed, and ignored.
     */
    synchronized void release(long handle) {
        Inode inode = handles.remove(handle);
        if (inode != null) {
            inode.openHandles--;
            forgetIfUnreachable(inode);
        }
    }

    synchronized long size(long id) {
        on();
        return inode(id).size;
    }

    synchronized int read(long id, long offset, byte[] into) {
        on();
        Inode inode = file(id);
        if (offset >= inode.size) {
            return 0;
        }
        int n = (int) Math.min(into.length, inode.size - offset);
        System.arraycopy(inode.data, (int) offset, into, 0, n);
        return n;
    }

    synchronized void write(long id, long offset, byte[] bytes) {
        on();
        Inode inode = file(id);
        inode.write(offset, bytes);
        inode.unsynced.add(new Write(offset, bytes));
        writes++;
    }

    synchronized void truncate(long id, long size) {
        on();
        Inode inode = file(id);
        inode.truncate(size);
        inode.unsynced.add(new Truncate(size));
    }

    /** The inode's fsync: a file's contents and attributes (a directory's entries), as they are now, become durable. */
    synchronized void sync(long id) {
        on();
        Inode inode = inode(id);
        if (inode.directory) {
            persistDirectory(inode);
        } else {
            persistData(inode);
            if (inode.attributesChanged && !inode.memoryOnly) {
                writeMeta(inode.id, durableOf(inode));
            }
        }
        syncs++;
    }

    /** The inode's fdatasync: as {@link #sync}, but a file's attributes stay as they were durable. */
    synchronized void syncData(long id) {
        on();
        Inode inode = inode(id);
        if (inode.directory) {
            persistDirectory(inode);
        } else {
            persistData(inode);
        }
        syncs++;
    }

    /** What a clean unmount (or {@code sync(1)}) does: every file and directory becomes durable. */
    synchronized void syncAll() {
        on();
        List<Inode> all = new ArrayList<>(inodes.values());
        for (Inode inode : all) {
            if (!inode.directory) {
                sync(inode.id);
            }
        }
        for (Inode inode : all) {
            if (inode.directory) {
                sync(inode.id);
            }
        }
    }

    // ---- power ----

    /**
     * Cuts the power: every change not synced is lost, except what {@code mode} lets a disk cache
     * write out first, every handle is closed, and the disk answers nothing until {@link #powerOn()}.
     */
    synchronized PowerCut cut(CutMode mode, Random random) {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(random, "random");
        on();
        long lostChanges = 0;
        long keptChanges = 0;
        int filesWithLoss = 0;
        for (Inode inode : inodes.values()) {
            if (inode.directory || inode.unsynced.isEmpty() || inode.memoryOnly) {
                continue;
            }
            filesWithLoss++;
            if (!durable.containsKey(inode.id)) {
                // A file neither synced nor named in a synced directory has nowhere durable to land.
                lostChanges += inode.unsynced.size();
                continue;
            }
            List<Change> landed = mode.landed(inode.unsynced, random);
            if (!landed.isEmpty()) {
                applyToObject(inode.id, landed);
            }
            keptChanges += landed.size();
            lostChanges += inode.unsynced.size() - landed.size();
        }
        int namesForgotten = namesForgotten();
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
        return "writes " + writes + ", syncs " + syncs + ", cuts " + cuts + ", inodes " + inodes.size();
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

    private Inode file(long id) {
        Inode inode = inode(id);
        if (inode.directory) {
            throw new Refused(Refused.Errno.EISDIR, "#" + id);
        }
        return inode;
    }

    private static Inode directory(Inode inode, String path) {
        if (!inode.directory) {
            throw new Refused(Refused.Errno.ENOTDIR, path);
        }
        return inode;
    }

    private static List<String> components(String path) {
        List<String> parts = new ArrayList<>();
        for (String part : path.split("/")) {
            if (!part.isEmpty()) {
                parts.add(part);
            }
        }
        return parts;
    }

    /** What {@code path} names, or null. */
    private Inode resolve(String path) {
        Inode at = root;
        for (String part : components(path)) {
            if (!at.directory) {
                return null;
            }
            at = at.entries.get(part);
            if (at == null) {
                return null;
            }
        }
        return at;
    }

    private Inode existing(String path) {
        Inode inode = resolve(path);
        if (inode == null) {
            throw new NoSuchFile(path);
        }
        return inode;
    }

    /** The directory that holds {@code path}'s last name. */
    private Inode parent(String path) {
        List<String> parts = components(path);
        if (parts.isEmpty()) {
            throw new Refused(Refused.Errno.EINVAL, "the root has no parent: " + path);
        }
        String parentPath = String.join("/", parts.subList(0, parts.size() - 1));
        return directory(existing(parentPath), parentPath);
    }

    private static String leaf(String path) {
        List<String> parts = components(path);
        return parts.get(parts.size() - 1);
    }

    private static boolean contains(Inode directory, Inode wanted) {
        for (Inode child : directory.entries.values()) {
            if (child == wanted || (child.directory && contains(child, wanted))) {
                return true;
            }
        }
        return false;
    }

    private static Attributes attributes(Inode inode) {
        int links = inode.links;
        long size = inode.size;
        if (inode.directory) {
            links = 2 + (int) inode.entries.values().stream().filter(i -> i.directory).count();
            size = 4096;
        }
        return new Attributes(inode.id, inode.directory, inode.permissions, inode.uid, inode.gid, size, links);
    }

    private static void addEntry(Inode directory, String name, Inode inode) {
        directory.entries.put(name, inode);
        inode.links++;
    }

    private void removeEntry(Inode directory, String name) {
        Inode inode = directory.entries.remove(name);
        inode.links--;
        forgetIfUnreachable(inode);
    }

    private void forgetIfUnreachable(Inode inode) {
        if (inode.links <= 0 && inode.openHandles <= 0) {
            inodes.remove(inode.id);
        }
    }

    private static Durable durableOf(Inode inode) {
        return new Durable(inode.directory, inode.permissions, inode.uid, inode.gid, null);
    }

    /** A directory's fsync: its entries and attributes become durable, and each entry new to the disk with them. */
    private void persistDirectory(Inode directory) {
        Map<String, Long> entries = new TreeMap<>();
        directory.entries.forEach((name, child) -> {
            if (!child.memoryOnly) {
                entries.put(name, child.id);
                if (!durable.containsKey(child.id)) {
                    // An inode whose own sync never came is durable as it was made: a directory
                    // empty, a file empty (its writes since stay unsynced), with its attributes.
                    if (!child.directory) {
                        writeObject(child.id, EMPTY, 0);
                    }
                    writeMeta(child.id, new Durable(child.directory, child.permissions, child.uid, child.gid,
                            child.directory ? Map.of() : null));
                    child.attributesChanged = false;
                }
            }
        });
        writeMeta(directory.id, new Durable(true, directory.permissions, directory.uid, directory.gid, entries));
        directory.attributesChanged = false;
    }

    /** A file's data sync: what no sync covered is written onto its durable image. */
    private void persistData(Inode inode) {
        if (inode.memoryOnly) {
            inode.unsynced.clear();
            return;
        }
        if (!durable.containsKey(inode.id)) {
            writeObject(inode.id, inode.data, inode.size);
            writeMeta(inode.id, durableOf(inode));
            inode.attributesChanged = false;
        } else if (!inode.unsynced.isEmpty()) {
            applyToObject(inode.id, inode.unsynced);
        }
        inode.unsynced.clear();
    }

    /** Every entry as {@code directory/name=inode}, of the tree programs see ({@code live}) or of the durable one. */
    private Set<String> entries(boolean live) {
        Set<String> out = new HashSet<>();
        if (live) {
            List<Inode> todo = new ArrayList<>(List.of(root));
            while (!todo.isEmpty()) {
                Inode directory = todo.remove(todo.size() - 1);
                directory.entries.forEach((name, child) -> {
                    if (!child.memoryOnly) {
                        out.add(directory.id + "/" + name + "=" + child.id);
                        if (child.directory) {
                            todo.add(child);
                        }
                    }
                });
            }
        } else {
            Set<Long> seen = new HashSet<>();
            List<Long> todo = new ArrayList<>(List.of(ROOT));
            while (!todo.isEmpty()) {
                long id = todo.remove(todo.size() - 1);
                Durable d = durable.get(id);
                if (d == null || !d.directory() || !seen.add(id)) {
                    continue;
                }
                d.entries().forEach((name, child) -> {
                    out.add(id + "/" + name + "=" + child);
                    todo.add(child);
                });
            }
        }
        return out;
    }

    private int namesForgotten() {
        Set<String> live = entries(true);
        Set<String> synced = entries(false);
        int forgotten = 0;
        for (String entry : live) {
            if (!synced.contains(entry)) {
                forgotten++;
            }
        }
        for (String entry : synced) {
            if (!live.contains(entry)) {
                forgotten++;
            }
        }
        return forgotten;
    }

    /**
     * Replaces what programs see by the durable image, closes every handle, and removes from the
     * backing directory what no durable name reaches.
     */
    private void loadSyncedImage() {
        inodes.clear();
        handles.clear();
        root = build(ROOT);
        root.links = 1;
        for (Long id : List.copyOf(durable.keySet())) {
            if (!inodes.containsKey(id)) {
                durable.remove(id);
                delete(meta.resolve(Long.toString(id)));
                delete(object(id));
            }
        }
        try (var files = Files.list(objects)) {
            for (Path object : (Iterable<Path>) files::iterator) {
                if (!inodes.containsKey(Long.parseLong(object.getFileName().toString()))) {
                    Files.delete(object);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clean " + objects, e);
        }
    }

    /**
     * The inode {@code id} of the durable image with everything it names, or null for a directory
     * already built: a directory is named once, and a cut after a rename between two directories of
     * which only one was synced must not make a loop of the tree. A file may come out with two names.
     */
    private Inode build(long id) {
        Durable d = durable.get(id);
        Inode built = inodes.get(id);
        if (built != null) {
            return built.directory ? null : built;
        }
        if (d == null) {
            return null;
        }
        Inode inode = new Inode(id, d.directory(), false, d.permissions(), d.uid(), d.gid());
        inodes.put(id, inode);
        if (d.directory()) {
            d.entries().forEach((name, childId) -> {
                Inode child = build(childId);
                if (child != null) {
                    addEntry(inode, name, child);
                }
            });
        } else {
            inode.data = readObject(id);
            inode.size = inode.data.length;
        }
        return inode;
    }

    private Path object(long id) {
        return objects.resolve(Long.toString(id));
    }

    private byte[] readObject(long id) {
        Path object = object(id);
        try {
            return Files.exists(object) ? Files.readAllBytes(object) : EMPTY;
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

    /** Writes changes onto a durable image in their order: a sync costs what changed, not the file's size. */
    private void applyToObject(long id, List<Change> changes) {
        Path object = object(id);
        try (RandomAccessFile file = new RandomAccessFile(object.toFile(), "rw")) {
            for (Change change : changes) {
                if (change instanceof Write w) {
                    file.seek(w.offset());
                    file.write(w.bytes());
                } else {
                    // Growing fills with zeros on Linux, as the inode's own truncate does.
                    file.setLength(((Truncate) change).size());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + object, e);
        }
    }

    private void writeMeta(long id, Durable d) {
        durable.put(id, d);
        StringBuilder text = new StringBuilder();
        text.append(d.directory() ? 'd' : 'f').append(' ').append(Integer.toOctalString(d.permissions())).append(' ')
                .append(d.uid()).append(' ').append(d.gid()).append('\n');
        if (d.entries() != null) {
            d.entries().forEach((name, child) -> text.append(child).append(' ').append(name).append('\n'));
        }
        Path file = meta.resolve(Long.toString(id));
        try {
            Path tmp = meta.resolve(id + ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static Durable readMeta(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        String[] head = lines.get(0).split(" ");
        boolean directory = head[0].equals("d");
        Map<String, Long> entries = null;
        if (directory) {
            entries = new TreeMap<>();
            for (String line : lines.subList(1, lines.size())) {
                int space = line.indexOf(' ');
                entries.put(line.substring(space + 1), Long.parseLong(line.substring(0, space)));
            }
        }
        return new Durable(directory, Integer.parseInt(head[1], 8), Integer.parseInt(head[2]), Integer.parseInt(head[3]),
                entries);
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + file, e);
        }
    }
}
