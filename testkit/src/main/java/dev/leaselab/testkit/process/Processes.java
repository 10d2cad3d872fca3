package dev.leaselab.testkit.process;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Commands run to their end, free ports and trees removed, as the harnesses' servers need them. */
public final class Processes {

    private Processes() {}

    /**
     * Runs the command to its end, its output and errors read together.
     *
     * @throws IOException if it does not finish within the timeout (it is then killed), exits with
     *     another code than 0 (the message carries its output), or this thread is interrupted
     */
    public static void run(List<String> command, long timeoutSeconds) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            // A server that the command starts (pg_ctl's) keeps no handle on this pipe, its output
            // goes to its log file, so reading to the end returns when the command itself is done.
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
            }
            if (process.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed with exit code " + process.exitValue()
                        + ":\n" + new String(output, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted while running " + String.join(" ", command), e);
        }
    }

    /** A TCP port on the loopback address that was free a moment ago. */
    public static int freeLoopbackPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /**
     * Removes the tree, best effort: what cannot be deleted stays (in a temporary directory), and a
     * tree that cannot be walked is reported on standard error.
     */
    public static void deleteTree(Path tree) {
        if (!Files.exists(tree)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(tree)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // Best effort, as said.
                }
            });
        } catch (IOException e) {
            System.err.println("could not delete " + tree + ": " + e.getMessage());
        }
    }
}
