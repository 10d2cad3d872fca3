package dev.leaselab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code gate} command end to end, narrowed to one strategy on one storage (three forks of the
 * paired benchmark, about 25 s): a baseline run, then a gate run whose strategy is slowed to a
 * quarter of its speed ({@link SlowedStore} claiming four times for every claim) must screen it,
 * measure it again in {@code <run>/confirmation}, confirm it and exit 1. The quarter, not the
 * proof's 0.75, is so that one short run catches it every time: at half speed a CI run on a
 * machine loaded by other builds (load average 17 on 2 cores) confirmed 0.65 with an interval
 * reaching 1.02, and passed the gate. A baseline narrowed otherwise is refused with exit 2.
 */
class GateCommandTest {

    private static final String[] NARROW = {"--strategies", "IMMEDIATE", "--storages", "WAL_NORMAL"};

    @Test
    void aSlowedStrategyIsScreenedMeasuredAgainAndConfirmed(@TempDir Path results) throws Exception {
        assertEquals(0, BenchMain.execute(new PrintStream(new ByteArrayOutputStream()), "run", "--profile", "gate",
                "--strategies", "IMMEDIATE", "--storages", "WAL_NORMAL", "--output", results.toString(), "--run-id", "base"));

        System.setProperty(BenchDb.DECORATOR_PROPERTY, SlowedStore.class.getName());
        System.setProperty(SlowedStore.EVERY_PROPERTY, "1");
        System.setProperty(SlowedStore.SHADOWS_PROPERTY, "3");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int code;
        try {
            code = BenchMain.execute(new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(errors, true, StandardCharsets.UTF_8), concat("gate", "--baseline",
                    results.resolve("base").toString(), "--output", results.toString(), "--run-id", "slowed"));
        } finally {
            System.clearProperty(BenchDb.DECORATOR_PROPERTY);
            System.clearProperty(SlowedStore.EVERY_PROPERTY);
            System.clearProperty(SlowedStore.SHADOWS_PROPERTY);
        }
        String text = out.toString(StandardCharsets.UTF_8) + errors.toString(StandardCharsets.UTF_8);
        assertEquals(BenchMain.REGRESSED, code, text);
        assertTrue(Files.isRegularFile(results.resolve("slowed").resolve(GateRunner.CONFIRMATION).resolve(BenchResults.TALLY)),
                "the screened strategy was measured again");
        String verdict = Files.readString(results.resolve("slowed").resolve("gate.md"));
        assertTrue(verdict.contains("**regressed**, confirmed"), verdict);
        assertTrue(verdict.contains("Two stages"), verdict);

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int refused = BenchMain.execute(new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8),
                "gate", "--baseline", results.resolve("base").toString(), "--output", results.toString(), "--run-id", "wider",
                "--strategies", "IMMEDIATE,EXCLUSIVE", "--storages", "WAL_NORMAL");
        assertEquals(BenchMain.ERROR, refused);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("settings.steps"), err.toString(StandardCharsets.UTF_8));
    }

    private static String[] concat(String... head) {
        String[] all = new String[head.length + NARROW.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(NARROW, 0, all, head.length, NARROW.length);
        return all;
    }
}
