package dev.leaselab.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What a results folder records about the machine and the code it measured. */
final class Environment {

    private Environment() {}

    static Map<String, Object> describe() {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("javaVersion", System.getProperty("java.version"));
        env.put("javaVendor", System.getProperty("java.vendor"));
        env.put("vmName", System.getProperty("java.vm.name"));
        env.put("vmVersion", System.getProperty("java.vm.version"));
        env.put("osName", System.getProperty("os.name"));
        env.put("osVersion", System.getProperty("os.version"));
        env.put("osArch", System.getProperty("os.arch"));
        env.put("availableProcessors", Runtime.getRuntime().availableProcessors());
        env.put("cpuModel", cpuModel());
        env.put("memoryTotalBytes", memoryTotal());
        env.put("sqliteVersion", sqliteVersion());
        env.put("sqliteJdbcVersion", driverVersion());
        env.put("jmhVersion", org.openjdk.jmh.util.Version.getPlainVersion());
        env.put("gitCommit", git("rev-parse", "HEAD"));
        // Untracked files do not change the code measured: earlier runs' folders under results/
        // would otherwise mark every later run of a clean clone as having uncommitted changes.
        String status = git("status", "--porcelain", "--untracked-files=no");
        env.put("gitDirty", status == null ? null : !status.isBlank());
        env.put("workingDirectory", Path.of("").toAbsolutePath().toString());
        Path databases = Path.of(System.getProperty("java.io.tmpdir"));
        env.put("databaseDirectory", databases.toAbsolutePath().toString());
        env.put("databaseFileSystem", fileSystemType(databases));
        return env;
    }

    /**
     * The file system that SQLite's files live on: on {@code tmpfs} no commit touches a disk, and on
     * a disk even {@code synchronous=NORMAL} pays for the write-back of every page it writes.
     */
    private static String fileSystemType(Path directory) {
        try {
            return Files.getFileStore(directory).type();
        } catch (IOException | RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /** SQLite's own version, from {@code select sqlite_version()}: the library the driver bundles. */
    static String sqliteVersion() {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("select sqlite_version()")) {
            return r.next() ? r.getString(1) : null;
        } catch (SQLException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static String driverVersion() {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:")) {
            return c.getMetaData().getDriverVersion();
        } catch (SQLException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux, or not readable: the other fields still describe the machine.
        }
        return System.getenv().getOrDefault("PROCESSOR_IDENTIFIER", "unknown");
    }

    private static Long memoryTotal() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux: leave it out.
        }
        return null;
    }

    /** Runs git in the working directory; null when git or the repository is missing. */
    private static String git(String... args) {
        try {
            String[] command = new String[args.length + 1];
            command[0] = "git";
            System.arraycopy(args, 0, command, 1, args.length);
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return null;
            }
            return out;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
