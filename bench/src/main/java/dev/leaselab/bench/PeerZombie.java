package dev.leaselab.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.event.SchedulerListener.SchedulerEventType;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The zombie comparison of {@link PeerDrainMain} ({@code --zombie-trials}): in each trial one worker
 * takes the only job, does its work, and stalls past its lease (leaselab) or its heartbeats
 * (db-scheduler) while a second worker takes the job over, does the work again and completes it;
 * then the stalled worker resumes and tries to complete too. Counted per system: trials in which the
 * work ran twice (expected of any lease: the stall is indistinguishable from a crash), and trials in
 * which the stalled worker's late completion was accepted (must be 0).
 *
 * <p>leaselab: one fresh database per trial, time passed explicitly: the stalled owner claims at
 * {@code now = 0} with {@code ttl = 1}, the second claims at {@code now = 2} (fence + 1) and
 * completes at 2.5, the stalled one then completes with its old fence at 3.
 *
 * <p>db-scheduler: two {@link Scheduler} instances in this JVM on one fresh database, one thread
 * each. The stalled one ({@code heartbeatInterval} 1 h, so its heartbeat thread, like that of a
 * frozen process, never beats during the trial) picks the job and its task blocks on a latch; the
 * second ({@code heartbeatInterval} 100 ms, {@code missedHeartbeatsLimit} 4, db-scheduler's minimum) finds the execution
 * dead after 400 ms without a heartbeat, revives it (a one-time task's default dead-execution
 * handler), runs and completes it (deleting the row). Then the latch opens and the stalled task
 * returns: db-scheduler's completion deletes the row only with the version it picked, so a late
 * completion shows as a completion-handler error rather than an accepted completion.
 */
final class PeerZombie {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private PeerZombie() {}

    /** One system's trials. */
    record Result(String system, String storage, int trials, int workRanTwice, int lateCompletionAccepted,
                  int lateCompletionRefused, int errors, String firstError) {

        String line() {
            return String.format(Locale.ROOT, "zombie %-30s %-10s trials %d: work ran twice %d, late completion "
                            + "accepted %d, refused %d, errors %d%s", system, storage, trials, workRanTwice,
                    lateCompletionAccepted, lateCompletionRefused, errors, firstError == null ? "" : " (" + firstError + ")");
        }
    }

    static Result leaselab(LockingStrategy strategy, Storage storage, int trials) {
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
                int runs = 0;
                Lease stalled = store.claimNext("stalled", 0, 1).orElseThrow();
                runs++;
                // The stalled owner's lease ran out at 1; the second owner claims at 2.
                Optional<Lease> rescuer = store.claimNext("rescuer", 2, 1);
                if (rescuer.isEmpty()) {
                    errors++;
                    firstError = firstError == null ? "the expired lease was not handed to the second owner" : firstError;
                    continue;
                }
                runs++;
                if (!store.complete(job, "rescuer", rescuer.get().fence(), 2.5, "rescuer")) {
                    errors++;
                    firstError = firstError == null ? "the second owner's completion was refused" : firstError;
                }
                if (store.complete(job, "stalled", stalled.fence(), 3, "stalled")) {
                    accepted++;
                } else {
                    refused++;
                }
                if (runs > 1) {
                    twice++;
                }
            } catch (RuntimeException e) {
                errors++;
                firstError = firstError == null ? e.toString() : firstError;
            }
        }
        return new Result(LeaselabDrain.systemName(strategy), storage.name(), trials, twice, accepted, refused, errors,
                firstError);
    }

    static Result dbScheduler(Storage storage, int trials) throws InterruptedException {
        int twice = 0;
        int accepted = 0;
        int refused = 0;
        int errors = 0;
        String firstError = null;
        java.util.Set<SchedulerEventType> lateEvents = java.util.EnumSet.noneOf(SchedulerEventType.class);
        for (int t = 0; t < trials; t++) {
            Trial trial = new Trial();
            try (DbSchedulerDrain.SchedulerDb db = DbSchedulerDrain.SchedulerDb.create(storage);
                 HikariDataSource pool = db.pool(8)) {
                String problem = trial.run(db, pool);
                if (problem != null) {
                    errors++;
                    firstError = firstError == null ? problem : firstError;
                }
            }
            if (trial.runs.get() > 1) {
                twice++;
            }
            // The stalled scheduler's late completion fails its DELETE ... WHERE version = ? (the row is
            // gone or re-picked); db-scheduler reports that as a completion-handler or unexpected error.
            Listener late = trial.stalledListener;
            int lateErrors = late.completionErrors.get() + late.otherErrors.get();
            if (late.ok.get() > 0 && lateErrors == 0) {
                accepted++;
            } else if (lateErrors > 0 || late.failed.get() > 0) {
                refused++;
            }
            if (trial.rescuerListener.otherErrors.get() > 0) {
                errors++;
                firstError = firstError == null ? "the second scheduler's error events: "
                        + trial.rescuerListener.otherErrorTypes : firstError;
            }
            lateEvents.addAll(late.otherErrorTypes);
        }
        return new Result("db-scheduler FETCH", storage.name(), trials, twice, accepted, refused, errors,
                firstError != null ? firstError : lateEvents.isEmpty() ? null : "the stalled scheduler's late completion: " + lateEvents);
    }

    /** One db-scheduler trial's state. */
    private static final class Trial {
        final AtomicInteger runs = new AtomicInteger();
        final CountDownLatch firstRunStarted = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        final Listener stalledListener = new Listener();
        final Listener rescuerListener = new Listener();

        /** Returns null, or what went wrong with the trial itself. */
        String run(DbSchedulerDrain.SchedulerDb db, HikariDataSource pool) throws InterruptedException {
            OneTimeTask<Void> task = Tasks.oneTime(DbSchedulerDrain.TASK_NAME).execute((instance, context) -> {
                if (runs.incrementAndGet() == 1) {
                    firstRunStarted.countDown();
                    try {
                        resume.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            SchedulerClient.Builder.create(pool, task).jdbcCustomization(db.dialect()).build()
                    .schedule(task.instance("zombie-job"), Instant.now().minusSeconds(1));
            Scheduler stalled = Scheduler.create(pool, task).threads(1).pollingInterval(Duration.ofMillis(10))
                    .jdbcCustomization(db.dialect()).schedulerName(new SchedulerName.Fixed("stalled"))
                    .heartbeatInterval(Duration.ofHours(1)).addSchedulerListener(stalledListener)
                    .shutdownMaxWait(Duration.ofSeconds(5)).build();
            Scheduler rescuer = Scheduler.create(pool, task).threads(1).pollingInterval(Duration.ofMillis(10))
                    .jdbcCustomization(db.dialect()).schedulerName(new SchedulerName.Fixed("rescuer"))
                    .heartbeatInterval(Duration.ofMillis(100)).missedHeartbeatsLimit(4)
                    .addSchedulerListener(rescuerListener).shutdownMaxWait(Duration.ofSeconds(5)).build();
            try {
                stalled.start();
                if (!firstRunStarted.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    return "the stalled scheduler never ran the job";
                }
                rescuer.start();
                if (!rescuerListener.completed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    return "the second scheduler did not take the job over within " + WAIT;
                }
                resume.countDown();
                if (!stalledListener.completed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    return "the stalled task never finished";
                }
                // The completion handler's error event may follow its completion event.
                Thread.sleep(200);
                return null;
            } finally {
                resume.countDown();
                rescuer.stop();
                stalled.stop();
            }
        }
    }

    private static final class Listener extends AbstractSchedulerListener {
        final CountDownLatch completed = new CountDownLatch(1);
        final AtomicInteger ok = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final AtomicInteger completionErrors = new AtomicInteger();
        final AtomicInteger otherErrors = new AtomicInteger();
        final java.util.Set<SchedulerEventType> otherErrorTypes = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @Override
        public void onExecutionComplete(ExecutionComplete complete) {
            (complete.getResult() == ExecutionComplete.Result.OK ? ok : failed).incrementAndGet();
            completed.countDown();
        }

        @Override
        public void onSchedulerEvent(SchedulerEventType type) {
            if (type == SchedulerEventType.COMPLETIONHANDLER_ERROR) {
                completionErrors.incrementAndGet();
            } else if (type != SchedulerEventType.DEAD_EXECUTION && DbSchedulerDrain.ERRORS.contains(type)) {
                // A dead execution is the point of the trial, not an error of it.
                otherErrors.incrementAndGet();
                otherErrorTypes.add(type);
            }
        }
    }
}
