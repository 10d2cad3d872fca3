package dev.leaselab.testkit.process;

import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * What a child JVM (a stress or benchmark worker, a jcstress run, a guest) needs to start with this
 * JVM's code: the launcher and the class path.
 */
public final class ChildJvm {

    private ChildJvm() {}

    /** The java launcher of this JVM. */
    public static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    /**
     * This JVM's class path with every entry made absolute: {@code java -jar stress/target/stress.jar}
     * has the relative class path {@code stress/target/stress.jar}, which a child started in
     * another working directory would not find.
     */
    public static String classPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.isEmpty())
                .map(entry -> Path.of(entry).toAbsolutePath().toString())
                .collect(Collectors.joining(File.pathSeparator));
    }
}
