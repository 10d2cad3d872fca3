package dev.leaselab.testkit.process;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ChildJvmTest {

    /**
     * {@code java -jar stress/target/stress.jar} runs with a relative class path, and jcstress is
     * started in its own working directory: with the path passed on as it was, the child could not
     * find its main class (every jcstress check of a run from the project root failed that way).
     */
    @Test
    void theChildClassPathIsAbsoluteWhateverTheParentWasStartedWith() {
        String original = System.getProperty("java.class.path");
        try {
            Path absolute = Path.of("/opt/lib/b.jar");
            System.setProperty("java.class.path", "stress/target/stress.jar" + File.pathSeparator + absolute);
            assertEquals(Path.of("stress/target/stress.jar").toAbsolutePath() + File.pathSeparator + absolute,
                    ChildJvm.classPath());
        } finally {
            System.setProperty("java.class.path", original);
        }
    }
}
