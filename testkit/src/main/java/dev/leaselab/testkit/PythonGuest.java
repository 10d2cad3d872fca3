package dev.leaselab.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The first guest of the harness: the contract's design in Python ({@code examples/python}),
 * served over the worker protocol by {@code worker.py} and opened as a {@link ProtocolLeaseStore}.
 * The interpreter is {@code python3} unless the environment variable {@value #PYTHON_VARIABLE}
 * names another; the example is found by walking up from the working directory, so a module's
 * tests and the repository root both find it.
 */
public final class PythonGuest {

    /** The environment variable naming the Python interpreter. */
    public static final String PYTHON_VARIABLE = "LEASELAB_PYTHON";

    /**
     * The wrong changes {@code lease.py} can switch on, each with the number of the contract's
     * "eight ways to get it subtly wrong" it comes from (8 has two: a race never raced, and a
     * claim that reads and writes in two transactions).
     */
    public static final Map<String, Integer> MUTATIONS = mutations();

    private PythonGuest() {}

    private static Map<String, Integer> mutations() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("TABLE_WITHOUT_IF_NOT_EXISTS", 1);
        m.put("ENQUEUE_INSERT_OR_REPLACE", 2);
        m.put("STATE_OF_MISSING_IS_EMPTY_ROW", 3);
        m.put("CLAIM_AT_EXPIRY_IS_HELD", 4);
        m.put("RENEW_EXPIRED_LEASE", 5);
        m.put("COMPLETE_DONE_AT_LEAST_0", 6);
        m.put("RELEASE_RESETS_FENCE", 7);
        m.put("CLAIM_MANY_FIRST_OWNER_ONLY", 8);
        m.put("CLAIM_READ_THEN_WRITE", 8);
        m.put("COMPLETE_ALL_ONE_COMMIT_EACH", 20);
        return Collections.unmodifiableMap(m);
    }

    /** The command that serves the correct design (append the database file to run it). */
    public static List<String> command() {
        return command(null);
    }

    /**
     * The command that serves the design with {@code mutation} switched on, or the correct design
     * for null.
     *
     * @throws IllegalArgumentException naming the mutation when it is not one of {@link #MUTATIONS}
     * @throws IllegalStateException when the interpreter cannot be run or the example is not found
     */
    public static List<String> command(String mutation) {
        if (mutation != null && !MUTATIONS.containsKey(mutation)) {
            throw new IllegalArgumentException("mutation must be one of " + MUTATIONS.keySet() + ": " + mutation);
        }
        List<String> line = new ArrayList<>(List.of(interpreter(), worker().toString()));
        if (mutation != null) {
            line.add("--mutation");
            line.add(mutation);
        }
        return line;
    }

    /** {@code examples/python/worker.py}, found from the working directory upwards. */
    public static Path worker() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path worker = dir.resolve("examples").resolve("python").resolve("worker.py");
            if (Files.isRegularFile(worker)) {
                return worker;
            }
        }
        throw new IllegalStateException("examples/python/worker.py not found in " + Path.of("").toAbsolutePath()
                + " or any directory above it");
    }

    private static volatile String checked;

    /** The interpreter, run once to make sure it is there: a missing one is an error, not a skip. */
    public static String interpreter() {
        String python = Objects.requireNonNullElse(System.getenv(PYTHON_VARIABLE), "python3");
        if (python.equals(checked)) {
            return python;
        }
        try {
            Process p = new ProcessBuilder(python, "-c", "import sqlite3, sys; sys.exit(sys.version_info < (3, 8))")
                    .redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(python + " is not a Python 3.8+ with sqlite3 (exit "
                        + (p.isAlive() ? "none" : p.exitValue()) + "); set " + PYTHON_VARIABLE + " to one");
            }
        } catch (IOException e) {
            throw new IllegalStateException("the cross-language suites need Python 3 with sqlite3: cannot run '" + python
                    + "' (" + e.getMessage() + "); install python3 or set " + PYTHON_VARIABLE, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking " + python, e);
        }
        checked = python;
        return python;
    }
}
