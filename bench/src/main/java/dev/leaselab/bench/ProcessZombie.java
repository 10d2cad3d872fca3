package dev.leaselab.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import dev.leaselab.lease.BrokenStore;
import dev.leaselab.lease.JobState;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.testkit.process.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The zombie comparison of {@link PeerDrainMain} with a real stall ({@code --zombie-stall SIGSTOP},
 * the default): the worker that holds the job runs in a child JVM ({@link ZombieChild}) and is
 * stopped with {@code kill -STOP} while it works on the job, as a process frozen by the kernel, a
 * debugger or a long GC pause is. While it is stopped, a worker in this JVM takes the job over and
 * starts on it again; then the child gets {@code kill -CONT}, finishes its work and completes late,
 * while the rescuer still works; the rescuer completes last. Counted per system, as in
 * {@link PeerZombie}: trials in which the work ran twice, and trials in which the stopped worker's
 * late completion was accepted (must be 0).
 *
 * <p>leaselab: a lease of {@link #LEASE_SECONDS} on the wall clock; the rescuer claims with
 * {@code claimNext} once the lease has run out and completes; the child's late {@code complete}
 * carries its old fence. db-scheduler: both schedulers beat every {@link #HEARTBEAT} with
 * {@link #MISSED_HEARTBEATS} missed beats allowed (db-scheduler's minimum), so the rescuer finds the
 * stopped one's execution dead about 400 ms after its last beat and runs it again; the child's late
 * completion then deletes with the version it picked, which the rescuer's pick has moved on.
 */
final class ProcessZombie {

    static final double LEASE_SECONDS = 0.3;
    static final Duration HEARTBEAT = Duration.ofMillis(100);
    static final int MISSED_HEARTBEATS = 4;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private ProcessZombie() {}

    static double wallSeconds() {
        return System.currentTimeMillis() / 1000.0;
    }

    /** leaselab's trials; {@code broken} names a {@link BrokenStore} for the stopped worker (tests), or is null. */
    static PeerZombie.Result leaselab(LockingStrategy strategy, Storage storage, int trials, BrokenStore broken) {
        int twice = 0;
        int accepted = 0;
        int refused = 0;
        int errors = 0;
        String firstError = null;
        for (int t = 0; t < trials; t++) {
            try (BenchDb db = BenchDb.open(strategy, storage)) {
                String job = "zombie-job";
                db.insertJobs(new String[] {job}, null, 0);
                LeaseStore store = db.store();
                List<String> args = new ArrayList<>(List.of("leaselab", db.workerArgument(), storage.name(), strategy.name()));
                if (broken != null) {
                    args.add(broken.name());
                }
                try (Child child = Child.start(args)) {
                    long stalledFence = Long.parseLong(child.expect("HOLD "));
                    child.signal("STOP");
                    // Past the stopped worker's lease, on the same wall clock.
                    Thread.sleep((long) (LEASE_SECONDS * 1000) + 100);
                    Optional<Lease> rescuer = store.claimNext("rescuer", wallSeconds(), 10);
                    if (rescuer.isEmpty() || rescuer.get().fence() != stalledFence + 1) {
                        throw new IllegalStateException("the stopped worker's expired lease was not handed to the rescuer: " + rescuer);
                    }
                    twice++;
                    // The stopped worker resumes while the rescuer still works on the job.
                    child.signal("CONT");
                    boolean lateAccepted = Boolean.parseBoolean(child.expect("LATE "));
                    child.awaitExit();
                    if (lateAccepted) {
                        accepted++;
                    } else {
                        refused++;
                    }
                    boolean rescuerAccepted = store.complete(job, "rescuer", rescuer.get().fence(), wallSeconds(), "rescuer");
                    JobState row = store.state(job).orElseThrow();
                    if (broken == null && (!rescuerAccepted || !"rescuer".equals(row.result()) || !row.done())) {
                        throw new IllegalStateException("the rescuer's completion was " + (rescuerAccepted ? "accepted" : "refused")
                                + " and the job ended as " + row);
                    }
                }
            } catch (RuntimeException | IOException e) {
                errors++;
                firstError = firstError == null ? e.toString() : firstError;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted during a zombie trial", e);
            }
        }
        return new PeerZombie.Result(LeaselabDrain.systemName(strategy) + (broken == null ? "" : " " + broken.name()),
                storage.name(), trials, twice, accepted, refused, errors, firstError);
    }

    static PeerZombie.Result dbScheduler(Storage storage, int trials) {
        int twice = 0;
        int accepted = 0;
        int refused = 0;
        int errors = 0;
        String firstError = null;
        java.util.Set<String> lateOutcomes = new java.util.TreeSet<>();
        for (int t = 0; t < trials; t++) {
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch rescuing = new CountDownLatch(1);
            CountDownLatch lateReported = new CountDownLatch(1);
            CountDownLatch rescued = new CountDownLatch(1);
            // The rescuer's run waits until the stopped worker has resumed and completed late, as
            // leaselab's rescuer does: the late write meets a job that is being worked on again.
            OneTimeTask<Void> task = Tasks.oneTime(DbSchedulerDrain.TASK_NAME).execute((instance, context) -> {
                runs.incrementAndGet();
                rescuing.countDown();
                try {
                    lateReported.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try (DbSchedulerDrain.SchedulerDb db = DbSchedulerDrain.SchedulerDb.create(storage);
                 HikariDataSource pool = db.pool(4)) {
                SchedulerClient.Builder.create(pool, task).jdbcCustomization(db.dialect()).build()
                        .schedule(task.instance("zombie-job"), Instant.now().minusSeconds(1));
                try (Child child = Child.start(List.of("db-scheduler", db.location(), storage.name()))) {
                    child.expect("RUNNING");
                    child.signal("STOP");
                    Scheduler rescuer = Scheduler.create(pool, task).threads(1).pollingInterval(Duration.ofMillis(10))
                            .jdbcCustomization(db.dialect()).schedulerName(new SchedulerName.Fixed("rescuer"))
                            .heartbeatInterval(HEARTBEAT).missedHeartbeatsLimit(MISSED_HEARTBEATS)
                            .addSchedulerListener(new AbstractSchedulerListener() {
                                @Override
                                public void onExecutionComplete(ExecutionComplete complete) {
                                    rescued.countDown();
                                }
                            })
                            .shutdownMaxWait(Duration.ofSeconds(5)).build();
                    rescuer.start();
                    String late = null;
                    List<String> events = new ArrayList<>();
                    try {
                        if (!rescuing.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                            throw new IllegalStateException("the rescuer did not take the job over within " + WAIT);
                        }
                        twice++;
                        child.signal("CONT");
                        // Its heartbeat's failure (the row was taken over) may come before its completion.
                        for (String line; !(line = child.next()).equals("DONE"); ) {
                            if (line.startsWith("EVENT ")) {
                                events.add(line.substring("EVENT ".length()));
                            } else if (line.startsWith("LATE ")) {
                                late = line.substring("LATE ".length());
                            } else {
                                throw new IllegalStateException("the stalled worker said \"" + line + "\"");
                            }
                        }
                        child.awaitExit();
                        lateReported.countDown();
                        if (!rescued.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                            throw new IllegalStateException("the rescuer's run did not complete within " + WAIT);
                        }
                    } finally {
                        lateReported.countDown();
                        rescuer.stop();
                    }
                    if (late == null) {
                        throw new IllegalStateException("the stalled worker's task never completed; its events: " + events);
                    }
                    if (runs.get() != 1 || db.rows() != 0) {
                        throw new IllegalStateException("the rescuer ran the job " + runs.get() + " times and left "
                                + db.rows() + " executions");
                    }
                    lateOutcomes.add(late + " " + events);
                    // As in PeerZombie: db-scheduler's late completion deletes the row only with the
                    // version it picked; finding it gone shows as an error event of the completion.
                    boolean completionFailed = events.stream().anyMatch(e -> !e.equals("DEAD_EXECUTION") && !e.equals("FAILED_HEARTBEAT"));
                    if ("OK".equals(late) && !completionFailed) {
                        accepted++;
                    } else {
                        refused++;
                    }
                }
            } catch (RuntimeException | IOException e) {
                errors++;
                firstError = firstError == null ? e.toString() : firstError;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted during a zombie trial", e);
            }
        }
        return new PeerZombie.Result("db-scheduler", storage.name(), trials, twice, accepted, refused, errors,
                firstError != null ? firstError : "the stopped scheduler's late completion and events: " + lateOutcomes);
    }

    /** A {@link ZombieChild} process: its stdout as lines, signals, and kill on close. */
    private static final class Child implements AutoCloseable {
        private final Process process;
        private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(1024);

        private Child(Process process) {
            this.process = process;
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        lines.offer(line);
                    }
                } catch (IOException e) {
                    // The process is gone; next() reports the missing line.
                }
                lines.offer("EXIT " + process.pid());
            }, "zombie-child-output");
            reader.setDaemon(true);
            reader.start();
        }

        static Child start(List<String> args) throws IOException {
            List<String> command = new ArrayList<>(List.of(ChildJvm.java(),
                    "-cp", ChildJvm.classPath()));
            // The child runs under this JVM's busy settings, the longest sleep among them.
            command.addAll(Storage.childJvmProperties());
            command.add("-D" + BenchMain.SLF4J_VERBOSITY + "=ERROR");
            String url = System.getProperty(PostgresTarget.URL_PROPERTY);
            if (url != null) {
                command.add("-D" + PostgresTarget.URL_PROPERTY + "=" + url);
            }
            command.add(ZombieChild.class.getName());
            command.addAll(args);
            return new Child(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        }

        /** The next line, which must start with {@code prefix}; returns the rest of it. */
        String expect(String prefix) throws InterruptedException {
            String line = next();
            if (!line.startsWith(prefix)) {
                throw new IllegalStateException("the stalled worker said \"" + line + "\", not \"" + prefix + "...\"");
            }
            return line.substring(prefix.length()).strip();
        }

        String next() throws InterruptedException {
            String line = lines.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (line == null) {
                throw new IllegalStateException("the stalled worker said nothing for " + WAIT);
            }
            return line;
        }

        void signal(String name) throws IOException, InterruptedException {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        }

        void awaitExit() throws InterruptedException {
            if (!process.waitFor(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the stalled worker did not exit within " + WAIT);
            }
        }

        @Override
        public void close() {
            // A trial that failed half-way may leave the child stopped: let it go, then end it.
            try {
                new ProcessBuilder("kill", "-CONT", Long.toString(process.pid())).start().waitFor();
            } catch (IOException e) {
                // It is killed below either way.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process.destroyForcibly();
        }
    }
}
