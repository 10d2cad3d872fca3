package dev.leaselab.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.event.SchedulerListener.SchedulerEventType;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import dev.leaselab.lease.BrokenStore;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.PostgresLeaseStore;
import dev.leaselab.lease.SqliteLeaseStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The stalled worker of {@link ProcessZombie}, in a JVM of its own so that its parent can stop it
 * with {@code SIGSTOP} while it holds the job, and let it go on with {@code SIGCONT}. It speaks in
 * lines on stdout:
 *
 * <ul>
 *   <li>leaselab ({@code leaselab database storage strategy [brokenStore]}): claims the job with
 *       {@code claimNext} on the wall clock (a lease of {@link ProcessZombie#LEASE_SECONDS}), prints
 *       {@code HOLD fence}, works for {@link #WORK_MILLIS}, completes with its fence and prints
 *       {@code LATE true|false}, the store's answer;
 *   <li>db-scheduler ({@code db-scheduler location storage}): a scheduler with one thread whose
 *       heartbeat beats every 100 ms, as a live process's does; its task prints {@code RUNNING}
 *       and works for {@link #WORK_MILLIS}. It prints each error event of its scheduler as it
 *       comes ({@code EVENT type}), {@code LATE OK|FAILED} when the execution completes, and
 *       {@code DONE} 300 ms after that.
 * </ul>
 * The parent stops the child as soon as it reads {@code HOLD} or {@code RUNNING}, so the work
 * outlasts the lease or the heartbeats only because the process was stopped.
 */
final class ZombieChild {

    /** The work on the job: long enough for the parent's {@code SIGSTOP} to land inside it. */
    static final long WORK_MILLIS = 500;

    private ZombieChild() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "leaselab" -> leaselab(args);
            case "db-scheduler" -> dbScheduler(args);
            default -> throw new IllegalArgumentException("usage: ZombieChild leaselab|db-scheduler ...: " + args[0]);
        }
    }

    private static void leaselab(String[] args) throws InterruptedException {
        Storage storage = Storage.valueOf(args[2]);
        LockingStrategy strategy = LockingStrategy.valueOf(args[3]);
        try (LeaseStore store = args.length > 4
                ? BrokenStore.valueOf(args[4]).open(Path.of(args[1]), strategy, storage.options())
                : open(args[1], storage, strategy)) {
            Lease lease = store.claimNext("stalled", ProcessZombie.wallSeconds(), ProcessZombie.LEASE_SECONDS)
                    .orElseThrow(() -> new IllegalStateException("the stalled worker found no job"));
            say("HOLD " + lease.fence());
            Thread.sleep(WORK_MILLIS);
            say("LATE " + store.complete(lease.jobId(), "stalled", lease.fence(), ProcessZombie.wallSeconds(), "stalled"));
        }
    }

    private static LeaseStore open(String database, Storage storage, LockingStrategy strategy) {
        return switch (storage.engine()) {
            case SQLITE -> SqliteLeaseStore.open(Path.of(database), strategy, storage.options());
            case POSTGRESQL -> PostgresLeaseStore.open(database, strategy, storage.postgresOptions());
        };
    }

    private static void dbScheduler(String[] args) throws InterruptedException {
        Storage storage = Storage.valueOf(args[2]);
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch completed = new CountDownLatch(1);
        OneTimeTask<Void> task = Tasks.oneTime(DbSchedulerDrain.TASK_NAME).execute((instance, context) -> {
            if (runs.incrementAndGet() == 1) {
                say("RUNNING");
                try {
                    Thread.sleep(WORK_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        try (DbSchedulerDrain.SchedulerDb db = DbSchedulerDrain.SchedulerDb.attach(storage, args[1]);
             HikariDataSource pool = db.pool(4)) {
            Scheduler stalled = Scheduler.create(pool, task).threads(1).pollingInterval(Duration.ofMillis(10))
                    .jdbcCustomization(db.dialect()).schedulerName(new SchedulerName.Fixed("stalled"))
                    .heartbeatInterval(ProcessZombie.HEARTBEAT).missedHeartbeatsLimit(ProcessZombie.MISSED_HEARTBEATS)
                    .addSchedulerListener(new AbstractSchedulerListener() {
                        @Override
                        public void onExecutionComplete(ExecutionComplete complete) {
                            say("LATE " + complete.getResult());
                            completed.countDown();
                        }

                        @Override
                        public void onSchedulerEvent(SchedulerEventType type) {
                            if (DbSchedulerDrain.ERRORS.contains(type)) {
                                say("EVENT " + type);
                            }
                        }
                    })
                    .shutdownMaxWait(Duration.ofSeconds(5)).build();
            stalled.start();
            try {
                completed.await(60, TimeUnit.SECONDS);
                // The completion handler's error event follows the completion event.
                Thread.sleep(300);
            } finally {
                stalled.stop();
            }
            say("DONE");
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
