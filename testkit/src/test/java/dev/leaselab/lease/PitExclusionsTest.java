package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The {@code pit} profile mutates lease's package, and this module's broken variants and wrappers
 * share that package, so its pom excludes them by name: a variant added here and not listed would
 * be mutated as if it were lease's code, its surviving mutants counted against lease's score.
 * This test holds the list to the classes in {@code src/main/java/dev/leaselab/lease}.
 */
class PitExclusionsTest {

    private static final Path OWN_CLASSES = Path.of("src/main/java/dev/leaselab/lease");

    @Test
    void everyClassOfThisModuleInLeasesPackageIsExcludedFromMutation() throws IOException {
        assertEquals(List.of(), notExcluded(classesHere(), excludedPatterns(Files.readString(Path.of("pom.xml")))),
                "classes of testkit in lease's package that pom.xml's <excludedClasses> does not list");
    }

    /** The negative control: a list that lacks one of them names it. */
    @Test
    void aClassLeftOffTheListIsNamed() throws IOException {
        List<String> patterns = excludedPatterns(Files.readString(Path.of("pom.xml"))).stream()
                .filter(p -> !p.equals("dev.leaselab.lease.CompletesOneCommitEach*"))
                .toList();
        assertEquals(List.of("CompletesOneCommitEach"), notExcluded(classesHere(), patterns));
    }

    /** The classes whose names no pattern matches; a pattern is a class name, or a prefix ending in {@code *}. */
    static List<String> notExcluded(List<String> classes, List<String> patterns) {
        return classes.stream()
                .filter(c -> patterns.stream().noneMatch(p -> p.endsWith("*")
                        ? ("dev.leaselab.lease." + c).startsWith(p.substring(0, p.length() - 1))
                        : p.equals("dev.leaselab.lease." + c)))
                .toList();
    }

    private static List<String> classesHere() throws IOException {
        try (Stream<Path> files = Files.list(OWN_CLASSES)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".java"))
                    .map(n -> n.substring(0, n.length() - ".java".length()))
                    .sorted()
                    .toList();
        }
    }

    private static List<String> excludedPatterns(String pom) {
        Matcher section = Pattern.compile("<excludedClasses>(.*?)</excludedClasses>", Pattern.DOTALL).matcher(pom);
        if (!section.find()) {
            throw new AssertionError("pom.xml has no <excludedClasses>");
        }
        return Pattern.compile("<param>\\s*([^<]+?)\\s*</param>").matcher(section.group(1)).results()
                .map(m -> m.group(1))
                .toList();
    }
}
