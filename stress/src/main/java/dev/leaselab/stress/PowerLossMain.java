package dev.leaselab.stress;

import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.LockingStrategy.Engine;
import dev.leaselab.powerloss.CutMode;
import dev.leaselab.powerloss.ForgetfulMount;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The power-loss races: {@code java -cp stress/target/stress.jar dev.leaselab.stress.PowerLossMain
 * [--profile smoke|quick|long]}. Every SQLite strategy in the settings that promise durability
 * (WAL with {@code synchronous=FULL}, DELETE with {@code EXTRA}) must lose nothing acknowledged
 * across the cuts; the controls, {@link LockingStrategy#IMMEDIATE} in DELETE with {@code FULL}, WAL
 * with {@code NORMAL}, and WAL and DELETE with {@code OFF}, must be caught losing acknowledged
 * writes. On PostgreSQL (its data directory on the layer, {@link PowerLossPostgres}) every strategy
 * with {@code fsync=on} must lose nothing, and {@link LockingStrategy#PG_ROW_LOCK} with
 * {@code synchronous_commit=off} and with {@code fsync=off} are the controls ({@code --engine}
 * picks the engines; all by default). Prints a table, writes it to
 * {@code results/powerloss/<run-id>/report.md}, and exits 0 when every durable setting lost nothing
 * and every control was caught, 1 otherwise, 2 on a wrong option. Needs a machine that can mount
 * FUSE file systems (see {@link ForgetfulMount}), and for PostgreSQL its binaries.
 */
@Command(name = "powerloss", mixinStandardHelpOptions = true,
        description = "Cuts the power under every strategy and storage setting of SQLite and PostgreSQL; prints what was lost.")
public final class PowerLossMain implements Callable<Integer> {

    /** How many cuts each setting gets. */
    enum Profile {
        /**
         * CI, SQLite only: 20 cuts, and the DELETE_FULL control until it is caught (a budget of 24 cuts; it lost
         * an acknowledged write in 3 to 9 cuts of 10 here), a minute or two.
         */
        SMOKE(0, 0),
        /**
         * 5 cuts for each strategy in each durable setting, 10 for each control: 100 cuts on SQLite,
         * 35 on PostgreSQL.
         */
        QUICK(5, 10),
        /** 30 and 50. */
        LONG(30, 50);

        final int durableCuts;
        final int controlCuts;

        Profile(int durableCuts, int controlCuts) {
            this.durableCuts = durableCuts;
            this.controlCuts = controlCuts;
        }
    }

    /**
     * One setting to race: a store, a storage, and its cuts ({@code untilCaught}: a budget, the race
     * stops at the first cut that lost an acknowledged write).
     */
    record Plan(StoreUnderTest sut, PowerLossDriver.Storage storage, int cuts, boolean untilCaught) {
        Plan(StoreUnderTest sut, PowerLossDriver.Storage storage, int cuts) {
            this(sut, storage, cuts, false);
        }

        PowerLossDriver.Settings settings(CutMode mode, long seed) {
            return new PowerLossDriver.Settings(cuts, 2, 4, 1000, 300, 1200, mode, seed, untilCaught);
        }
    }

    static final List<String> DURABLE = List.of("WAL_FULL", "DELETE_EXTRA");
    static final List<String> CONTROLS = List.of("DELETE_FULL", "WAL_NORMAL", "WAL_OFF", "DELETE_OFF");
    static final List<PowerLossDriver.PostgresStorage> POSTGRES_CONTROLS = List.of(
            PowerLossDriver.PostgresStorage.SYNCHRONOUS_COMMIT_OFF, PowerLossDriver.PostgresStorage.FSYNC_OFF);

    /** Which engines to race. */
    enum Engines {
        ALL(EnumSet.allOf(Engine.class)), SQLITE(EnumSet.of(Engine.SQLITE)), POSTGRESQL(EnumSet.of(Engine.POSTGRESQL));

        final Set<Engine> engines;

        Engines(Set<Engine> engines) {
            this.engines = engines;
        }
    }

    @Option(names = "--profile", defaultValue = "quick", description = "smoke, quick (default) or long")
    Profile profile;

    @Option(names = "--engine", defaultValue = "all",
            description = "all (default), sqlite, or postgresql (a server from /usr/lib/postgresql/<version>/bin, its data directory on the layer)")
    Engines engine;

    @Option(names = "--cuts", description = "cuts per setting, instead of the profile's; runs every setting of the quick matrix, whatever the profile")
    Integer cuts;

    @Option(names = "--mode", defaultValue = "LOSE_UNSYNCED",
            description = "what a disk cache writes out at a cut: LOSE_UNSYNCED (default), TEAR_LAST_WRITE, KEEP_RANDOM_SUBSET")
    CutMode mode;

    @Option(names = "--seed", defaultValue = "20261202", description = "the races' seed")
    long seed;

    @Option(names = "--results", defaultValue = "results/powerloss", description = "folder for the run folders")
    Path results;

    public static void main(String[] args) {
        System.exit(new CommandLine(new PowerLossMain()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    /** The plans of every engine. */
    static List<Plan> plans(Profile profile, Integer cutsPerSetting) {
        return plans(profile, cutsPerSetting, EnumSet.allOf(Engine.class));
    }

    /**
     * The settings to race: on SQLite every strategy in each durable setting and {@code IMMEDIATE}
     * in each control; on PostgreSQL every strategy with {@code fsync=on} and
     * {@link LockingStrategy#PG_ROW_LOCK} in each control. The smoke profile has no PostgreSQL
     * plan: a server's start and crash recovery on the layer cost seconds a cut, which CI has not.
     */
    static List<Plan> plans(Profile profile, Integer cutsPerSetting, Set<Engine> engines) {
        List<Plan> plans = new ArrayList<>();
        if (profile == Profile.SMOKE && cutsPerSetting == null) {
            if (engines.contains(Engine.SQLITE)) {
                plans.add(new Plan(StoreUnderTest.correct(LockingStrategy.IMMEDIATE), PowerLossDriver.Storage.parse("WAL_FULL"), 10));
                plans.add(new Plan(StoreUnderTest.correct(LockingStrategy.CONDITIONAL_UPDATE),
                        PowerLossDriver.Storage.parse("DELETE_EXTRA"), 6));
                plans.add(new Plan(StoreUnderTest.correct(LockingStrategy.IMMEDIATE), PowerLossDriver.Storage.parse("WAL_OFF"), 4));
                plans.add(new Plan(StoreUnderTest.correct(LockingStrategy.IMMEDIATE), PowerLossDriver.Storage.parse("DELETE_FULL"),
                        24, true));
            }
            return plans;
        }
        int durableCuts = cutsPerSetting != null ? cutsPerSetting : Math.max(1, profile.durableCuts);
        int controlCuts = cutsPerSetting != null ? cutsPerSetting : Math.max(1, profile.controlCuts);
        if (engines.contains(Engine.SQLITE)) {
            for (String storage : DURABLE) {
                for (LockingStrategy strategy : LockingStrategy.of(Engine.SQLITE)) {
                    plans.add(new Plan(StoreUnderTest.correct(strategy), PowerLossDriver.Storage.parse(storage), durableCuts));
                }
            }
            for (String storage : CONTROLS) {
                plans.add(new Plan(StoreUnderTest.correct(LockingStrategy.IMMEDIATE), PowerLossDriver.Storage.parse(storage),
                        controlCuts));
            }
        }
        if (engines.contains(Engine.POSTGRESQL)) {
            for (LockingStrategy strategy : LockingStrategy.of(Engine.POSTGRESQL)) {
                plans.add(new Plan(StoreUnderTest.correct(strategy), PowerLossDriver.PostgresStorage.FSYNC_ON, durableCuts));
            }
            for (PowerLossDriver.PostgresStorage storage : POSTGRES_CONTROLS) {
                plans.add(new Plan(StoreUnderTest.correct(LockingStrategy.PG_ROW_LOCK), storage, controlCuts));
            }
        }
        return plans;
    }

    @Override
    public Integer call() {
        if (cuts != null && cuts < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--cuts must be at least 1: " + cuts);
        }
        if (engine.engines.contains(Engine.POSTGRESQL) && PowerLossPostgres.binaries().isEmpty()) {
            System.err.println("the PostgreSQL power-loss races need PostgreSQL's binaries (/usr/lib/postgresql/<version>/bin:"
                    + " apt-get install postgresql, or -D" + PowerLossPostgres.BIN_PROPERTY + "=DIR); or race SQLite only:"
                    + " --engine sqlite");
            return 2;
        }
        String runId = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path runDir = results.resolve(runId);
        Path work;
        try {
            Files.createDirectories(runDir);
            work = Files.createTempDirectory("leaselab-powerloss-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Plan> plans = plans(profile, cuts, engine.engines);
        int total = plans.stream().mapToInt(Plan::cuts).sum();
        System.out.println("powerloss " + profile.name().toLowerCase(Locale.ROOT) + " run " + runId + ": "
                + plans.size() + " settings, " + total + " cuts at most, mode " + mode + ", seed " + seed);
        List<PowerLossDriver.Result> rows = new ArrayList<>();
        long salt = seed;
        for (Plan plan : plans) {
            PowerLossDriver.Result r = PowerLossDriver.run(plan.sut(), plan.storage(), work, plan.settings(mode, salt++));
            rows.add(r);
            System.out.println("  " + line(r, plan.storage().durable()));
        }
        String report = report(profile, mode, seed, rows);
        try {
            Files.writeString(runDir.resolve("report.md"), report);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.println(report);
        boolean ok = rows.stream().allMatch(r -> verdict(r, PowerLossDriver.Storage.parse(r.storage()).durable()).ok);
        if (ok) {
            delete(work);
            System.out.println("report: " + runDir.resolve("report.md"));
        } else {
            System.out.println("report: " + runDir.resolve("report.md") + " (the races' files, kept: " + work + ")");
        }
        return ok ? 0 : 1;
    }

    private static void delete(Path tree) {
        try (var paths = Files.walk(tree)) {
            for (Path path : (Iterable<Path>) paths.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            System.err.println("could not remove " + tree + ": " + e.getMessage());
        }
    }

    /** PASS: durable and lost nothing; CAUGHT: a control that lost; LOST and MISSED are failures. */
    record Verdict(String word, boolean ok) {}

    static Verdict verdict(PowerLossDriver.Result r, boolean durable) {
        if (durable) {
            return r.lostAnything() ? new Verdict("LOST", false) : new Verdict("PASS", true);
        }
        return r.lostAnything() ? new Verdict("CAUGHT", true) : new Verdict("MISSED", false);
    }

    private static String line(PowerLossDriver.Result r, boolean durable) {
        return verdict(r, durable).word() + " " + r.store() + " " + r.storage() + ": " + r.cuts() + " cuts, "
                + r.acknowledged() + " acknowledged, " + r.lostWrites() + " lost in " + r.cutsWithLoss() + " cuts, "
                + r.reissuedFences() + " fences reissued, " + r.integrityFailures() + " integrity failures, "
                + r.interrupted() + " operations interrupted" + (r.firstProblem() == null ? "" : "; first: " + r.firstProblem());
    }

    private static String engineName(PowerLossDriver.Storage storage) {
        return storage.engine() == Engine.SQLITE ? "SQLite" : "PostgreSQL";
    }

    /** Wilson's 95% interval for {@code k} of {@code n}, as "[lo, hi]". */
    static String wilson(int k, int n) {
        double z = 1.959964;
        double p = (double) k / n;
        double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
        double half = z * Math.sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / (1 + z * z / n);
        return String.format(Locale.ROOT, "[%.2f, %.2f]", Math.max(0, centre - half), Math.min(1, centre + half));
    }

    static String report(Profile profile, CutMode mode, long seed, List<PowerLossDriver.Result> rows) {
        StringBuilder out = new StringBuilder();
        out.append("# Power-loss races (").append(profile.name().toLowerCase(Locale.ROOT)).append(" profile, mode ")
                .append(mode).append(", seed ").append(seed).append(")\n\n");
        out.append("| verdict | engine | store | storage | promise | cuts | acknowledged ops checked | lost acknowledged writes "
                + "| cuts that lost (95% interval of the rate) | reissued fences | integrity failures | interrupted ops | history check |\n");
        out.append("|---|---|---|---|---|---:|---:|---:|---|---:|---:|---:|---|\n");
        for (PowerLossDriver.Result r : rows) {
            PowerLossDriver.Storage storage = PowerLossDriver.Storage.parse(r.storage());
            boolean durable = storage.durable();
            out.append("| ").append(verdict(r, durable).word()).append(" | ").append(engineName(storage)).append(" | ")
                    .append(r.store()).append(" | ")
                    .append(r.storage()).append(" | ").append(durable ? "durable" : "control").append(" | ")
                    .append(r.cuts()).append(" | ").append(r.acknowledged()).append(" | ").append(r.lostWrites())
                    .append(" | ").append(r.cutsWithLoss()).append(" of ").append(r.cuts()).append(' ')
                    .append(wilson(r.cutsWithLoss(), r.cuts())).append(" | ").append(r.reissuedFences()).append(" | ")
                    .append(r.integrityFailures()).append(" | ").append(r.interrupted()).append(" | ")
                    .append(r.check().passed() ? "passed" : r.check().violations().size() + " violations").append(" |\n");
        }
        out.append("\nPooled by storage setting (cuts after which an acknowledged write was missing; Wilson's 95% interval"
                + " of the per-cut rate):\n\n| engine | storage | promise | cuts | cuts that lost | interval | acknowledged ops checked |"
                + " lost | reissued fences | integrity failures |\n|---|---|---|---:|---:|---|---:|---:|---:|---:|\n");
        rows.stream().map(PowerLossDriver.Result::storage).distinct().forEach(storage -> {
            List<PowerLossDriver.Result> of = rows.stream().filter(r -> r.storage().equals(storage)).toList();
            int cuts = of.stream().mapToInt(PowerLossDriver.Result::cuts).sum();
            int lossy = of.stream().mapToInt(PowerLossDriver.Result::cutsWithLoss).sum();
            out.append("| ").append(engineName(PowerLossDriver.Storage.parse(storage))).append(" | ").append(storage).append(" | ")
                    .append(PowerLossDriver.Storage.parse(storage).durable() ? "durable" : "control").append(" | ")
                    .append(cuts).append(" | ").append(lossy).append(" | ").append(wilson(lossy, cuts)).append(" | ")
                    .append(of.stream().mapToLong(PowerLossDriver.Result::acknowledged).sum()).append(" | ")
                    .append(of.stream().mapToLong(PowerLossDriver.Result::lostWrites).sum()).append(" | ")
                    .append(of.stream().mapToLong(PowerLossDriver.Result::reissuedFences).sum()).append(" | ")
                    .append(of.stream().mapToInt(PowerLossDriver.Result::integrityFailures).sum()).append(" |\n");
        });
        out.append("\nFirst problem of each run that had one:\n\n");
        for (PowerLossDriver.Result r : rows) {
            if (r.firstProblem() != null) {
                out.append("- ").append(r.store()).append(' ').append(r.storage()).append(": ")
                        .append(r.firstProblem().replace('\n', ' ')).append('\n');
            }
        }
        return out.toString();
    }
}
