package dev.leaselab.powerloss;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A mounted file system that forgets unsynced writes when its power is cut: the handle a test or
 * a race holds on {@link ForgetfulFileSystem}, which runs in a child JVM of its own (see there for
 * why it cannot run in the process that uses the mount).
 *
 * <pre>{@code
 * try (ForgetfulMount disk = ForgetfulMount.start(backing, mountPoint)) {
 *     // programs use files under disk.mountPoint() ...
 *     PowerCut cut = disk.cutPower(CutMode.LOSE_UNSYNCED, seed); // every operation now fails with EIO
 *     // kill every program that had a file open, then
 *     disk.powerOn(); // programs see what was durable at the cut
 * }
 * }</pre>
 *
 * <p>Needs Linux with {@code /dev/fuse}, libfuse 2 and {@code fusermount}, as root or a user
 * allowed to mount FUSE file systems; {@link #start} fails with the missing piece and its Debian
 * package otherwise. Started as root, the mount is open to every user (a PostgreSQL server runs as
 * its own user); started as another user, to that user only.
 *
 * <p>The whole tree lives in the file system's memory as well as in the backing directory: it is
 * meant for a database of tens of megabytes (a PostgreSQL cluster fresh from {@code initdb} is about
 * 40 MB), not for gigabytes.
 */
public final class ForgetfulMount implements AutoCloseable {

    private static final long ANSWER_TIMEOUT_SECONDS = 60;

    private final Process process;
    private final Path mountPoint;
    private final Path log;
    private final PrintStream commands;
    private final BlockingQueue<String> answers = new ArrayBlockingQueue<>(16);

    private ForgetfulMount(Process process, Path mountPoint, Path log) {
        this.process = process;
        this.mountPoint = mountPoint;
        this.log = log;
        this.commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    answers.put(line);
                }
            } catch (IOException | InterruptedException e) {
                // The process is gone; the next command says so.
            }
        }, "forgetful-fs-answers");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts the file system's process and waits until {@code mountPoint} (an empty directory,
     * created if missing) is mounted over {@code backing} (the durable image, created if missing).
     * The process's standard error goes to {@code <backing>.log}.
     *
     * @throws IllegalStateException if this machine cannot mount FUSE file systems (saying what is
     *     missing and how to install it) or the mount did not come up
     */
    public static ForgetfulMount start(Path backing, Path mountPoint) {
        Objects.requireNonNull(backing, "backing");
        Objects.requireNonNull(mountPoint, "mountPoint");
        String missing = ForgetfulFileSystem.missingPrerequisite();
        if (missing != null) {
            throw new IllegalStateException("cannot mount a FUSE file system here: " + missing);
        }
        Path absolute = mountPoint.toAbsolutePath();
        try {
            Files.createDirectories(absolute);
            if (!isEmpty(absolute)) {
                throw new IllegalArgumentException("mountPoint must be an empty directory: " + absolute);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the mount point " + absolute, e);
        }
        Path log = backing.toAbsolutePath().resolveSibling(backing.getFileName() + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx1g", "-cp", System.getProperty("java.class.path"),
                ForgetfulFileSystem.class.getName(), backing.toAbsolutePath().toString(), absolute.toString());
        builder.redirectError(log.toFile());
        Process process;
        try {
            Files.createDirectories(log.getParent());
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the file system's JVM", e);
        }
        ForgetfulMount mount = new ForgetfulMount(process, absolute, log);
        String first = mount.next("mounted");
        if (!first.startsWith("mounted ")) {
            mount.destroy();
            throw new IllegalStateException("the forgetful file system did not mount at " + absolute + ": " + first
                    + mount.logTail());
        }
        return mount;
    }

    /** Where programs see the files. */
    public Path mountPoint() {
        return mountPoint;
    }

    /**
     * Cuts the power: every change no fsync covered is lost, but what {@code mode} lets a disk cache
     * write out first (chosen with {@code seed}), {@code -shm} files are gone, and every operation
     * fails with EIO until {@link #powerOn()}. Stop every program that had a file open before power
     * comes back.
     */
    public PowerCut cutPower(CutMode mode, long seed) {
        Objects.requireNonNull(mode, "mode");
        String[] words = ask("cut " + mode.name() + " " + seed).split(" ");
        return new PowerCut(CutMode.valueOf(words[1]), Integer.parseInt(words[2]), Long.parseLong(words[3]),
                Long.parseLong(words[4]), Integer.parseInt(words[5]));
    }

    /**
     * Arms a cut at a chosen moment: the power goes right after the next unlink of a name ending
     * in {@code nameSuffix} has taken effect, before the program that asked hears back (which then
     * runs on against a disk that answers EIO). Cuts as {@link #cutPower} does, with {@code mode}
     * and {@code seed}.
     */
    public void cutPowerAfterUnlink(String nameSuffix, CutMode mode, long seed) {
        Objects.requireNonNull(nameSuffix, "nameSuffix");
        Objects.requireNonNull(mode, "mode");
        if (nameSuffix.isBlank() || nameSuffix.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("nameSuffix must be a non-empty name without spaces: '" + nameSuffix + "'");
        }
        ask("cut-after-unlink " + nameSuffix + " " + mode.name() + " " + seed);
    }

    /** Powers the disk on: programs now see the durable image the last cut left. */
    public void powerOn() {
        ask("on");
    }

    /** Makes every file and directory durable, as {@code sync(1)} would: a setup a cut must not undo. */
    public void syncAll() {
        ask("sync");
    }

    /** Writes, syncs, cuts and unsynced changes so far, for reports. */
    public String counters() {
        return ask("counters").substring("counters ".length());
    }

    /**
     * Unmounts cleanly (every file is written out, unless the power is cut) and stops the process;
     * the backing directory keeps the durable image. A mount that
     * does not go away in time is torn down by force (its FUSE connection aborted), so that no
     * program is left hanging on it.
     */
    @Override
    public void close() {
        commands.println("quit");
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                destroy();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            destroy();
        }
        if (mounted()) {
            destroy();
        }
    }

    /**
     * Tears the mount down at once: aborts its FUSE connection (every program blocked on it gets an
     * error, even one that {@code kill -9} cannot reach while it waits on the file system), kills the
     * process and detaches the mount point.
     */
    public void destroy() {
        abortConnection();
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
            new ProcessBuilder("fusermount", "-u", "-z", mountPoint.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run fusermount -u " + mountPoint, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void abortConnection() {
        Path connections = Path.of("/sys/fs/fuse/connections");
        try {
            if (!Files.exists(connections.resolve(".")) || isEmpty(connections)) {
                new ProcessBuilder("mount", "-t", "fusectl", "none", connections.toString())
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
                        .waitFor(10, TimeUnit.SECONDS);
            }
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                // "id parent major:minor root mountpoint ...": the connection is named by the minor.
                String[] fields = line.split(" ");
                if (fields.length > 4 && fields[4].equals(mountPoint.toString())) {
                    Path abort = connections.resolve(fields[2].substring(fields[2].indexOf(':') + 1)).resolve("abort");
                    if (Files.exists(abort)) {
                        Files.writeString(abort, "1");
                    }
                }
            }
        } catch (IOException e) {
            // Best effort: fusermount -u -z still detaches the mount.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean isEmpty(Path directory) throws IOException {
        try (var entries = Files.list(directory)) {
            return entries.findAny().isEmpty();
        }
    }

    private boolean mounted() {
        try {
            return Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                    .anyMatch(line -> line.split(" ").length > 1 && line.split(" ")[1].equals(mountPoint.toString()));
        } catch (IOException e) {
            return false;
        }
    }

    private String ask(String command) {
        if (!process.isAlive()) {
            throw new IllegalStateException("the forgetful file system's process has exited (" + process.exitValue()
                    + "); it cannot answer " + command + logTail());
        }
        commands.println(command);
        String answer = next(command);
        if (answer.startsWith("error")) {
            throw new IllegalStateException("the forgetful file system refused " + command + ": " + answer);
        }
        return answer;
    }

    private String next(String command) {
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_TIMEOUT_SECONDS);
            while (System.nanoTime() < deadline) {
                String answer = answers.poll(200, TimeUnit.MILLISECONDS);
                if (answer != null) {
                    return answer;
                }
                if (!process.isAlive() && answers.isEmpty()) {
                    throw new IllegalStateException("the forgetful file system's process exited ("
                            + process.exitValue() + ") before it answered " + command + logTail());
                }
            }
            throw new IllegalStateException("the forgetful file system did not answer " + command + " within "
                    + ANSWER_TIMEOUT_SECONDS + " s" + logTail());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the file system to answer " + command, e);
        }
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return lines.isEmpty() ? "" : "; its log " + log + " ends: "
                    + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }
}
