package dev.leaselab.powerloss;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import jnr.ffi.Pointer;
import jnr.ffi.types.mode_t;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import ru.serce.jnrfuse.ErrorCodes;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * A FUSE file system that forgets every write no {@code fsync} covered when its power is cut, so that
 * a database's durability claims can be tested without pulling a plug (after Jepsen's LazyFS, VLDB
 * 2024, "When Amnesia Strikes").
 *
 * <p>Mounted over a backing directory that holds the durable image (see {@link SimulatedDisk} for
 * what counts as durable: POSIX's strict reading, file data at its fsync, names at their
 * directory's fsync, attributes at the inode's fsync). Directories and regular files, with the
 * permissions, owner and group programs give them; no hard or symbolic links, no timestamps (every
 * file shows the mount's time).
 *
 * <p><b>Other users.</b> Mounted as root, the file system is mounted with {@code allow_other}, so
 * that a server that refuses to run as root (PostgreSQL, as user {@code postgres}) can use it; the
 * kernel checks no permissions on it (no {@code default_permissions}), the layer stores them for
 * {@code stat} only.
 *
 * <p><b>SQLite's {@code -shm} file.</b> SQLite maps the WAL index ({@code <db>-shm}) with
 * {@code mmap}, which a FUSE file opened with direct I/O cannot serve, and the file is not durable
 * state: SQLite rebuilds it from the WAL when the first connection opens after a crash. So a file
 * whose name ends in {@code -shm} lives in memory only: it goes through the page cache (so it can
 * be mapped), is never written to the backing directory, and a power cut removes it, as it would
 * the machine's RAM. (A symbolic link to a file outside the mount does not work: SQLite opens
 * {@code -shm} with {@code O_NOFOLLOW}.) Every other file is opened with direct I/O, and the kernel
 * caches no attributes or names, so every read and write a program makes reaches this layer, and
 * after a cut no kernel cache can show data the disk forgot.
 *
 * <p>Needs {@code /dev/fuse}, libfuse 2 (Debian's {@code libfuse2}) and {@code fusermount}
 * (Debian's {@code fuse3} or {@code fuse}); {@link ForgetfulMount#start} says which is missing.
 *
 * <p><b>It runs in a process of its own</b> ({@link #main}, started by {@link ForgetfulMount}),
 * never in a process that uses the mount: a program that faults in a page of a mapped FUSE file
 * holds its memory map's lock while the file system answers, and a file system in the same JVM
 * that needs that lock (to allocate memory, say) deadlocks both (seen here: SQLite in WAL mode and
 * this layer in one JVM hung, and so did every {@code ps} that read the process's command line).
 *
 * <p>Commands, one per line on standard input, each answered by one line on standard output:
 * {@code cut MODE SEED} ({@link #cutPower}), {@code on} ({@link #powerOn}), {@code sync} (every file and directory
 * made durable, as {@code sync(1)} would), {@code counters},
 * {@code quit} (unmount and exit). An answer starting with {@code error} is a failure.
 */
final class ForgetfulFileSystem implements AutoCloseable {

    static final String SHM_SUFFIX = "-shm";

    /**
     * Where jnr-fuse 0.5.8's {@code FuseFileInfo} has libfuse 2's bit field ({@code direct_io} is its
     * lowest bit) on 64-bit Linux: after {@code flags}, {@code fh_old} and {@code writepage}. jnr-fuse
     * maps the bit field as padding, so the bit is set through the struct's memory.
     */
    private static final int FILE_INFO_BITS_OFFSET = 20;

    private final SimulatedDisk disk;
    private final Path mountPoint;
    private final Fuse fuse = new Fuse();
    /** A cut that waits for an unlink: see {@link #answer}'s {@code cut-after-unlink}. */
    private volatile ArmedCut armedCut;

    private record ArmedCut(String suffix, CutMode mode, long seed) {}

    private ForgetfulFileSystem(SimulatedDisk disk, Path mountPoint) {
        this.disk = disk;
        this.mountPoint = mountPoint;
    }

    /**
     * Mounts a file system at {@code mountPoint} (an empty directory, created if missing) whose durable
     * image is kept in {@code backing} (created if missing; what it holds from an earlier mount is what
     * the new one starts with).
     *
     * @throws IllegalStateException if this machine cannot mount a FUSE file system, saying what is
     *     missing and how to install it
     */
    static ForgetfulFileSystem mount(Path backing, Path mountPoint) {
        Objects.requireNonNull(backing, "backing");
        Objects.requireNonNull(mountPoint, "mountPoint");
        String missing = missingPrerequisite();
        if (missing != null) {
            throw new IllegalStateException("cannot mount a FUSE file system here: " + missing);
        }
        try {
            Files.createDirectories(mountPoint);
            try (var entries = Files.list(mountPoint)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalArgumentException("mountPoint is not an empty directory: " + mountPoint);
                }
            }
            ForgetfulFileSystem fs = new ForgetfulFileSystem(
                    new SimulatedDisk(backing, ForgetfulFileSystem::isShm), mountPoint.toAbsolutePath());
            // Only root may allow other users without an entry in /etc/fuse.conf.
            String others = "root".equals(System.getProperty("user.name")) ? "allow_other," : "";
            fs.fuse.mount(fs.mountPoint, false, false, new String[] {"-o", others
                    + "hard_remove,entry_timeout=0,attr_timeout=0,negative_timeout=0,fsname=forgetful,subtype=forgetful"});
            fs.awaitMounted();
            return fs;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the mount at " + mountPoint, e);
        }
    }

    /**
     * What this machine lacks to mount the file system, with how to get it, or {@code null} if
     * nothing.
     */
    static String missingPrerequisite() {
        if (!Files.exists(Path.of("/dev/fuse"))) {
            return "/dev/fuse does not exist (a container needs --device /dev/fuse and CAP_SYS_ADMIN)";
        }
        boolean libfuse2 = Files.exists(Path.of("/lib/x86_64-linux-gnu/libfuse.so.2"))
                || Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libfuse.so.2"))
                || Files.exists(Path.of("/lib64/libfuse.so.2")) || Files.exists(Path.of("/usr/lib/libfuse.so.2"))
                || Files.exists(Path.of("/lib/aarch64-linux-gnu/libfuse.so.2"));
        if (!libfuse2) {
            return "libfuse 2 (libfuse.so.2) is not installed: apt-get install libfuse2 fuse3";
        }
        boolean fusermount = Files.isExecutable(Path.of("/usr/bin/fusermount")) || Files.isExecutable(Path.of("/bin/fusermount"));
        if (!fusermount) {
            return "fusermount is not installed: apt-get install fuse3";
        }
        return null;
    }

    /** Where programs see the files. */
    Path mountPoint() {
        return mountPoint;
    }

    /**
     * Cuts the power: every change no fsync covered is lost, but what {@code mode} lets a disk cache
     * write out first, the {@code -shm} files are gone, and every operation fails with EIO
     * until {@link #powerOn()}. Programs that had the files open must be stopped before power comes
     * back (their handles point at a disk that no longer exists).
     */
    PowerCut cutPower(CutMode mode, Random random) {
        return disk.cut(mode, random);
    }

    /** Powers the disk on again: programs now see the durable image that the last cut left. */
    void powerOn() {
        disk.powerOn();
    }

    /** Writes and truncations that no fsync has covered yet, over all files. */
    long unsyncedChanges() {
        return disk.unsyncedChanges();
    }

    /** Counts of writes, syncs and cuts since the mount, for reports. */
    String counters() {
        return disk.counters();
    }

    /** Unmounts; the backing directory keeps the durable image. */
    @Override
    public void close() {
        fuse.umount();
    }

    private void awaitMounted() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                    String[] fields = line.split(" ");
                    if (fields.length > 1 && fields[1].equals(mountPoint.toString())) {
                        return;
                    }
                }
                Thread.sleep(20);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while mounting " + mountPoint, e);
            }
        }
        throw new IllegalStateException("the FUSE mount at " + mountPoint + " did not appear within 10 s");
    }

    /**
     * The file system's process: {@code ForgetfulFileSystem <backing> <mountPoint>}; prints
     * {@code mounted <mountPoint>} once the mount is up, then serves commands until {@code quit} or
     * the end of standard input.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: ForgetfulFileSystem <backing directory> <mount point>");
            System.exit(2);
        }
        var out = new java.io.PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        ForgetfulFileSystem fs;
        try {
            fs = mount(Path.of(args[0]), Path.of(args[1]));
        } catch (RuntimeException e) {
            out.println("error " + e.getMessage());
            System.exit(1);
            return;
        }
        out.println("mounted " + fs.mountPoint());
        var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
                out.println(fs.answer(line));
            }
        } finally {
            // A clean unmount writes everything out, as the kernel does; a cut power stays cut.
            if (fs.disk.powered()) {
                fs.disk.syncAll();
            }
            fs.close();
            out.println("bye");
        }
    }

    private String answer(String command) {
        String[] words = command.trim().split("\\s+");
        try {
            return switch (words[0]) {
                case "cut" -> {
                    if (words.length != 3) {
                        throw new IllegalArgumentException("usage: cut MODE SEED");
                    }
                    PowerCut cut = cutPower(CutMode.valueOf(words[1]), new Random(Long.parseLong(words[2])));
                    yield "cut " + cut.mode() + " " + cut.filesWithUnsyncedChanges() + " " + cut.lostChanges() + " "
                            + cut.keptChanges() + " " + cut.namesForgotten();
                }
                case "cut-after-unlink" -> {
                    if (words.length != 4) {
                        throw new IllegalArgumentException("usage: cut-after-unlink NAME_SUFFIX MODE SEED");
                    }
                    armedCut = new ArmedCut(words[1], CutMode.valueOf(words[2]), Long.parseLong(words[3]));
                    yield "armed";
                }
                case "on" -> {
                    powerOn();
                    yield "on";
                }
                case "sync" -> {
                    disk.syncAll();
                    yield "synced";
                }
                case "counters" -> "counters " + counters() + ", unsynced changes " + unsyncedChanges();
                default -> throw new IllegalArgumentException("unknown command: " + command);
            };
        } catch (RuntimeException e) {
            return "error " + e;
        }
    }


    private static boolean isShm(String name) {
        return name != null && name.endsWith(SHM_SUFFIX);
    }

    /** The last name of a FUSE path ({@code "/base/1/1259"} gives {@code "1259"}). */
    private static String leaf(String path) {
        return path == null ? null : path.substring(path.lastIndexOf('/') + 1);
    }

    /** A uid or gid as FUSE passes it: -1 ("leave it") arrives as 2^32 - 1. */
    private static int owner(long id) {
        return id == 0xFFFFFFFFL || id == -1 ? -1 : (int) id;
    }

    /** The FUSE callbacks: each translates to a {@link SimulatedDisk} call and its errors to errno. */
    private final class Fuse extends FuseStubFS {

        /** The time every file shows: timestamps are not modelled, and a fixed one tells no lies about order. */
        private final long mountedAt = System.currentTimeMillis() / 1000;

        private int call(Supplier<Integer> op) {
            try {
                return op.get();
            } catch (SimulatedDisk.PoweredOff e) {
                return -ErrorCodes.EIO();
            } catch (SimulatedDisk.NoSuchFile e) {
                return -ErrorCodes.ENOENT();
            } catch (SimulatedDisk.Refused e) {
                int errno = switch (e.errno) {
                    case EEXIST -> ErrorCodes.EEXIST();
                    case ENOTDIR -> ErrorCodes.ENOTDIR();
                    case EISDIR -> ErrorCodes.EISDIR();
                    case ENOTEMPTY -> ErrorCodes.ENOTEMPTY();
                    case EINVAL -> ErrorCodes.EINVAL();
                };
                return -errno;
            } catch (IllegalArgumentException e) {
                return -ErrorCodes.EFBIG();
            } catch (RuntimeException e) {
                return -ErrorCodes.EIO();
            }
        }

        /** The inode of an open file's handle, or the one its path names. */
        private long id(String path, FuseFileInfo fi) {
            if (fi != null && fi.fh.get() > 0) {
                return disk.idOf(fi.fh.get());
            }
            long id = path == null ? -1 : disk.lookup(path);
            if (id < 0) {
                throw new SimulatedDisk.NoSuchFile(path);
            }
            return id;
        }

        @Override
        public int getattr(String path, FileStat stat) {
            return call(() -> {
                SimulatedDisk.Attributes attributes = disk.attributes(path);
                if (attributes == null) {
                    return -ErrorCodes.ENOENT();
                }
                fill(stat, attributes);
                return 0;
            });
        }

        @Override
        public int fgetattr(String path, FileStat stat, FuseFileInfo fi) {
            return call(() -> {
                if (fi.fh.get() <= 0) {
                    return getattr(path, stat);
                }
                fill(stat, disk.attributes(disk.idOf(fi.fh.get())));
                return 0;
            });
        }

        /**
         * Every file but {@code -shm} bypasses the page cache, so that each read and write a program
         * makes reaches the disk model; {@code -shm} must not, as {@code mmap} needs the page cache.
         */
        private void directIo(String name, FuseFileInfo fi) {
            if (!isShm(name)) {
                Pointer memory = jnr.ffi.Struct.getMemory(fi);
                memory.putInt(FILE_INFO_BITS_OFFSET, memory.getInt(FILE_INFO_BITS_OFFSET) | 1);
            }
        }

        /**
         * The owner, group and permissions are the inode's own: PostgreSQL refuses a data directory
         * that is not its user's with mode 0700 or 0750.
         */
        private void fill(FileStat stat, SimulatedDisk.Attributes a) {
            stat.st_mode.set((a.directory() ? FileStat.S_IFDIR : FileStat.S_IFREG) | a.permissions());
            stat.st_nlink.set(a.links());
            stat.st_size.set(a.size());
            stat.st_blksize.set(4096);
            stat.st_blocks.set((a.size() + 511) / 512);
            stat.st_uid.set(a.uid());
            stat.st_gid.set(a.gid());
            stat.st_atim.tv_sec.set(mountedAt);
            stat.st_mtim.tv_sec.set(mountedAt);
            stat.st_ctim.tv_sec.set(mountedAt);
        }

        @Override
        public int readdir(String path, Pointer buf, FuseFillDir filter, @off_t long offset, FuseFileInfo fi) {
            return call(() -> {
                List<String> names = disk.list(path);
                filter.apply(buf, ".", null, 0);
                filter.apply(buf, "..", null, 0);
                for (String name : names) {
                    filter.apply(buf, name, null, 0);
                }
                return 0;
            });
        }

        @Override
        public int opendir(String path, FuseFileInfo fi) {
            return call(() -> {
                SimulatedDisk.Attributes attributes = disk.attributes(path);
                if (attributes == null) {
                    return -ErrorCodes.ENOENT();
                }
                return attributes.directory() ? 0 : -ErrorCodes.ENOTDIR();
            });
        }

        @Override
        public int create(String path, @mode_t long mode, FuseFileInfo fi) {
            return call(() -> {
                long id = disk.create(path, (int) (mode & 07777), (int) getContext().uid.get(),
                        (int) getContext().gid.get());
                fi.fh.set(disk.open(id));
                directIo(leaf(path), fi);
                return 0;
            });
        }

        @Override
        public int open(String path, FuseFileInfo fi) {
            return call(() -> {
                long id = id(path, null);
                fi.fh.set(disk.open(id));
                directIo(leaf(path), fi);
                return 0;
            });
        }

        @Override
        public int read(String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
            return call(() -> {
                byte[] bytes = new byte[(int) size];
                int n = disk.read(id(path, fi), offset, bytes);
                buf.put(0, bytes, 0, n);
                return n;
            });
        }

        @Override
        public int write(String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
            return call(() -> {
                byte[] bytes = new byte[(int) size];
                buf.get(0, bytes, 0, (int) size);
                disk.write(id(path, fi), offset, bytes);
                return (int) size;
            });
        }

        @Override
        public int truncate(String path, @off_t long size) {
            return call(() -> {
                disk.truncate(id(path, null), size);
                return 0;
            });
        }

        @Override
        public int ftruncate(String path, @off_t long size, FuseFileInfo fi) {
            return call(() -> {
                disk.truncate(id(path, fi), size);
                return 0;
            });
        }

        @Override
        public int fsync(String path, int isdatasync, FuseFileInfo fi) {
            return call(() -> {
                long id = id(path, fi);
                if (isdatasync != 0) {
                    disk.syncData(id);
                } else {
                    disk.sync(id);
                }
                return 0;
            });
        }

        @Override
        public int fsyncdir(String path, FuseFileInfo fi) {
            return call(() -> {
                disk.syncDirectory(path);
                return 0;
            });
        }

        @Override
        public int flush(String path, FuseFileInfo fi) {
            return call(() -> {
                if (!disk.powered()) {
                    throw new SimulatedDisk.PoweredOff();
                }
                return 0;
            });
        }

        @Override
        public int release(String path, FuseFileInfo fi) {
            return call(() -> {
                if (fi.fh.get() > 0) {
                    disk.release(fi.fh.get());
                }
                return 0;
            });
        }

        @Override
        public int mkdir(String path, @mode_t long mode) {
            return call(() -> {
                disk.mkdir(path, (int) (mode & 07777), (int) getContext().uid.get(), (int) getContext().gid.get());
                return 0;
            });
        }

        @Override
        public int rmdir(String path) {
            return call(() -> {
                disk.rmdir(path);
                return 0;
            });
        }

        @Override
        public int unlink(String path) {
            return call(() -> {
                disk.unlink(path);
                ArmedCut armed = armedCut;
                if (armed != null && path.endsWith(armed.suffix())) {
                    // The name is gone, the program has not heard back yet: the power goes now.
                    armedCut = null;
                    cutPower(armed.mode(), new Random(armed.seed()));
                }
                return 0;
            });
        }

        @Override
        public int rename(String oldpath, String newpath) {
            return call(() -> {
                disk.rename(oldpath, newpath);
                return 0;
            });
        }

        /** Hard links are not modelled: link(2) answers EPERM, as on a file system without them. */
        @Override
        public int link(String oldpath, String newpath) {
            return -ErrorCodes.EPERM();
        }

        @Override
        public int symlink(String oldpath, String newpath) {
            return -ErrorCodes.EPERM();
        }

        @Override
        public int chmod(String path, @mode_t long mode) {
            return call(() -> {
                disk.chmod(path, (int) (mode & 07777));
                return 0;
            });
        }

        @Override
        public int chown(String path, long uid, long gid) {
            return call(() -> {
                disk.chown(path, owner(uid), owner(gid));
                return 0;
            });
        }

        @Override
        public int utimens(String path, Timespec[] timespec) {
            return call(() -> disk.powered() ? 0 : -ErrorCodes.EIO());
        }

        @Override
        public int statfs(String path, Statvfs stbuf) {
            stbuf.f_bsize.set(4096);
            stbuf.f_frsize.set(4096);
            stbuf.f_blocks.set(1L << 24);
            stbuf.f_bfree.set(1L << 23);
            stbuf.f_bavail.set(1L << 23);
            stbuf.f_namemax.set(255);
            return 0;
        }
    }
}
