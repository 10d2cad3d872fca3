package dev.leaselab.testkit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leaselab.lease.Completion;
import dev.leaselab.lease.JobState;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LeaseStoreException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LeaseStore} whose every operation runs in a worker process that speaks the worker
 * protocol of {@code docs/worker-protocol.md}: one JSON request line on the worker's stdin, one
 * JSON response line on its stdout. It lets the contract suite and the stress harness judge a
 * lease store written in any language, e.g. the contract's design in Python
 * ({@code examples/python/worker.py}).
 *
 * <p>A worker answers one request at a time, so the store keeps a pool of worker processes, as a
 * store keeps a pool of connections: a call takes an idle worker or starts one, and calls on
 * several threads run in several processes at once. Every worker is started as {@code command}
 * followed by the database file. {@link #close()} closes the workers' stdin and waits for them
 * to exit.
 *
 * <p>Errors come back typed: {@code null_argument} as {@link NullPointerException},
 * {@code illegal_argument} as {@link IllegalArgumentException}, {@code database} as
 * {@link LeaseStoreException}, with the worker's message. A worker that exits, answers something
 * that is not the protocol, or does not answer within the answer timeout fails the call with a
 * {@link LeaseStoreException} that says so; that worker is discarded. A closed store throws
 * {@link IllegalStateException} before anything is sent.
 */
public final class ProtocolLeaseStore implements LeaseStore {

    /**
     * The newest protocol version this client speaks. Version 2 added the {@code completeAll}
     * request; a worker of version 1 is still served, its completeAll sent as one {@code complete}
     * request per completion.
     */
    public static final int PROTOCOL = 2;

    /** The oldest protocol version this client serves. */
    public static final int OLDEST_PROTOCOL = 1;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration DEFAULT_ANSWER_TIMEOUT = Duration.ofSeconds(60);

    private final List<String> command;
    private final Path file;
    private final Duration answerTimeout;
    private final Deque<Worker> idle = new ArrayDeque<>();
    private final List<Worker> all = new ArrayList<>();
    private volatile boolean closed;
    private String implementation;
    /** The version the first worker's ready line named; every later worker must name the same. */
    private volatile int protocol;

    private ProtocolLeaseStore(List<String> command, Path file, Duration answerTimeout) {
        this.command = List.copyOf(command);
        this.file = file;
        this.answerTimeout = answerTimeout;
    }

    /**
     * Opens the store: starts one worker on {@code file} and waits for its ready line (the worker
     * creates the table if it is missing, as opening any store does).
     *
     * @param command the worker's command line, without the database file, e.g.
     *     {@code [python3, examples/python/worker.py]}
     * @throws LeaseStoreException when the worker cannot be started or reports that it could not
     *     open the database
     */
    public static ProtocolLeaseStore open(List<String> command, Path file) {
        return open(command, file, DEFAULT_ANSWER_TIMEOUT);
    }

    /** As {@link #open(List, Path)}, failing a call whose answer takes longer than {@code answerTimeout}. */
    public static ProtocolLeaseStore open(List<String> command, Path file, Duration answerTimeout) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(answerTimeout, "answerTimeout");
        if (command.isEmpty()) {
            throw new IllegalArgumentException("command must not be empty");
        }
        if (answerTimeout.isNegative() || answerTimeout.isZero()) {
            throw new IllegalArgumentException("answerTimeout must be positive: " + answerTimeout);
        }
        ProtocolLeaseStore store = new ProtocolLeaseStore(command, file, answerTimeout);
        store.giveBack(store.start());
        return store;
    }

    /** What the first worker said it is, from its ready line. */
    public String implementation() {
        return implementation;
    }

    /** The protocol version the workers speak, from the first worker's ready line. */
    public int protocol() {
        return protocol;
    }

    @Override
    public boolean enqueue(String jobId) {
        return call("enqueue", args().put("jobId", jobId)).asBoolean();
    }

    @Override
    public Optional<JobState> state(String jobId) {
        JsonNode row = call("state", args().put("jobId", jobId));
        if (row.isNull()) {
            return Optional.empty();
        }
        return Optional.of(new JobState(row.path("id").asText(), text(row.path("owner")), row.path("until").asDouble(),
                row.path("fence").asLong(), text(row.path("result")), row.path("done").asBoolean()));
    }

    @Override
    public OptionalLong claim(String jobId, String owner, double now, double ttl) {
        return fence(call("claim", number(number(args().put("jobId", jobId).put("owner", owner), "now", now), "ttl", ttl)));
    }

    @Override
    public List<Lease> claimNext(String owner, double now, double ttl, int max) {
        JsonNode leases = call("claimNext", number(number(args().put("owner", owner), "now", now), "ttl", ttl).put("max", max));
        List<Lease> out = new ArrayList<>();
        for (JsonNode lease : leases) {
            out.add(new Lease(lease.path("job").asText(), lease.path("owner").asText(), lease.path("fence").asLong(),
                    lease.path("until").asDouble()));
        }
        return out;
    }

    @Override
    public boolean renew(String jobId, String owner, long fence, double now, double ttl) {
        return call("renew", number(number(args().put("jobId", jobId).put("owner", owner).put("fence", fence), "now", now),
                "ttl", ttl)).asBoolean();
    }

    @Override
    public boolean complete(String jobId, String owner, long fence, double now, String result) {
        return call("complete", number(args().put("jobId", jobId).put("owner", owner).put("fence", fence), "now", now)
                .put("result", result)).asBoolean();
    }

    /**
     * To a worker of protocol 2, one {@code completeAll} request, which the worker runs as one
     * atomic step; a {@code null} list or element is sent as JSON {@code null}, so that the worker's
     * own checks are judged. To a worker of protocol 1, one {@code complete} request per completion,
     * as {@link LeaseStore#completeAll}'s default does, which is not atomic.
     *
     * @throws LeaseStoreException also when the worker answers anything but one boolean per completion
     */
    @Override
    public List<Boolean> completeAll(List<Completion> completions, double now) {
        if (protocol < 2) {
            return LeaseStore.super.completeAll(completions, now);
        }
        ObjectNode args = number(args(), "now", now);
        if (completions == null) {
            args.putNull("completions");
        } else {
            ArrayNode list = args.putArray("completions");
            for (Completion c : completions) {
                if (c == null) {
                    list.addNull();
                } else {
                    list.addObject().put("jobId", c.jobId()).put("owner", c.owner()).put("fence", c.fence()).put("result", c.result());
                }
            }
        }
        JsonNode answers = call("completeAll", args);
        if (completions == null) {
            throw new LeaseStoreException("completeAll on " + file + " (" + this + "): the worker answered " + answers
                    + " to a null list of completions, where the protocol's answer is the null_argument 'completions'", null);
        }
        List<Boolean> accepted = new ArrayList<>();
        for (JsonNode answer : answers) {
            if (!answer.isBoolean()) {
                break;
            }
            accepted.add(answer.asBoolean());
        }
        if (!answers.isArray() || accepted.size() != completions.size()) {
            throw new LeaseStoreException("completeAll of " + completions.size() + " completions on " + file + " ("
                    + this + "): the worker answered " + answers + ", not one boolean per completion", null);
        }
        return List.copyOf(accepted);
    }

    @Override
    public boolean release(String jobId, String owner, long fence) {
        return call("release", args().put("jobId", jobId).put("owner", owner).put("fence", fence)).asBoolean();
    }

    @Override
    public List<OptionalLong> claimMany(String jobId, List<String> owners, double now, double ttl) {
        ObjectNode args = args().put("jobId", jobId);
        if (owners == null) {
            args.putNull("owners");
        } else {
            ArrayNode list = args.putArray("owners");
            owners.forEach(list::add);
        }
        List<OptionalLong> out = new ArrayList<>();
        for (JsonNode fence : call("claimMany", number(number(args, "now", now), "ttl", ttl))) {
            out.add(fence(fence));
        }
        return out;
    }

    @Override
    public void close() {
        List<Worker> workers;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            workers = List.copyOf(all);
        }
        for (Worker worker : workers) {
            worker.close();
        }
    }

    @Override
    public String toString() {
        return "ProtocolLeaseStore[" + String.join(" ", command) + " " + file + "]";
    }

    private JsonNode call(String op, ObjectNode args) {
        if (closed) {
            throw new IllegalStateException("the store on " + file + " is closed");
        }
        Worker worker = take();
        boolean healthy = false;
        try {
            JsonNode response = worker.ask(op, args);
            healthy = true;
            if (response.path("ok").asBoolean(false)) {
                return response.path("value");
            }
            JsonNode error = response.path("error");
            String message = error.path("message").asText("(no message)");
            switch (error.path("type").asText("")) {
                case "null_argument" -> throw new NullPointerException(message);
                case "illegal_argument" -> throw new IllegalArgumentException(message);
                case "database" -> throw new LeaseStoreException(message, null);
                default -> throw new LeaseStoreException(op + " failed on " + file + " (" + this + "): the worker answered "
                        + response, null);
            }
        } finally {
            if (healthy) {
                giveBack(worker);
            } else {
                worker.discard();
            }
        }
    }

    private Worker take() {
        synchronized (this) {
            Worker worker = idle.pollFirst();
            if (worker != null) {
                return worker;
            }
        }
        return start();
    }

    private void giveBack(Worker worker) {
        synchronized (this) {
            if (!closed) {
                idle.addFirst(worker);
                return;
            }
        }
        worker.close();  // the store was closed while the call ran
    }

    private Worker start() {
        List<String> line = new ArrayList<>(command);
        line.add(file.toString());
        Process process;
        try {
            process = new ProcessBuilder(line).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new LeaseStoreException("cannot start the worker " + line + ": " + e.getMessage(), e);
        }
        Worker worker = new Worker(process, String.join(" ", line));
        synchronized (this) {
            all.add(worker);
        }
        JsonNode ready;
        try {
            ready = worker.next("open");
        } catch (RuntimeException e) {
            worker.discard();
            throw e;
        }
        if (!ready.path("ready").asBoolean(false)) {
            worker.discard();
            String message = ready.path("error").path("message").asText("the worker is not ready: " + ready);
            throw new LeaseStoreException(message, null);
        }
        int version = ready.path("protocol").asInt(-1);
        if (version < OLDEST_PROTOCOL || version > PROTOCOL || protocol != 0 && version != protocol) {
            worker.discard();
            throw new LeaseStoreException("the worker " + worker.line + " speaks protocol " + ready.path("protocol")
                    + ", not " + (protocol != 0 ? "the " + protocol + " of the store's first worker"
                            : OLDEST_PROTOCOL + " to " + PROTOCOL), null);
        }
        synchronized (this) {
            if (implementation == null) {
                implementation = ready.path("implementation").asText("");
                protocol = version;
            }
            if (closed) {
                worker.close();
                throw new IllegalStateException("the store on " + file + " is closed");
            }
        }
        return worker;
    }

    private static ObjectNode args() {
        return JSON.createObjectNode();
    }

    /** JSON has no NaN or infinity: the protocol sends them as the strings Java and Python spell alike. */
    private static ObjectNode number(ObjectNode args, String name, double value) {
        return Double.isFinite(value) ? args.put(name, value) : args.put(name, Double.toString(value));
    }

    private static OptionalLong fence(JsonNode fence) {
        return fence.isNull() ? OptionalLong.empty() : OptionalLong.of(fence.asLong());
    }

    private static String text(JsonNode node) {
        return node.isNull() || node.isMissingNode() ? null : node.asText();
    }

    /** One worker process: requests go to its stdin, and a reader thread queues its stdout's lines. */
    private final class Worker {

        private static final String EOF = "\u0000eof";

        private final Process process;
        private final String line;
        private final OutputStream in;
        private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(16);
        private long nextId;

        Worker(Process process, String line) {
            this.process = process;
            this.line = line;
            this.in = process.getOutputStream();
            Thread reader = new Thread(this::readLines, "protocol-" + process.pid());
            reader.setDaemon(true);
            reader.start();
        }

        private void readLines() {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = out.readLine()) != null; ) {
                    lines.put(l);
                }
            } catch (IOException | InterruptedException e) {
                // The worker is gone; the call waiting for it is told below.
            }
            lines.offer(EOF);
        }

        JsonNode ask(String op, ObjectNode args) {
            long id = ++nextId;
            ObjectNode request = JSON.createObjectNode().put("id", id).put("op", op);
            request.set("args", args);
            try {
                in.write((JSON.writeValueAsString(request) + "\n").getBytes(StandardCharsets.UTF_8));
                in.flush();
            } catch (IOException e) {
                throw gone(op, "its stdin is closed (" + e.getMessage() + ")");
            }
            JsonNode response = next(op);
            if (response.path("id").asLong(-1) != id) {
                throw new LeaseStoreException(op + " failed on " + file + ": the worker " + line + " answered request " + id
                        + " with " + response, null);
            }
            return response;
        }

        JsonNode next(String op) {
            String answer;
            try {
                answer = lines.poll(answerTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LeaseStoreException(op + " on " + file + " was interrupted while the worker " + line + " ran it", e);
            }
            if (answer == null) {
                throw gone(op, "it did not answer within " + answerTimeout);
            }
            if (answer == EOF) {
                throw gone(op, "it exited" + exitCode());
            }
            try {
                JsonNode node = JSON.readTree(answer);
                if (!node.isObject()) {
                    throw gone(op, "it answered a line that is not a JSON object: " + answer);
                }
                return node;
            } catch (JsonProcessingException e) {
                throw gone(op, "it answered a line that is not JSON: " + answer);
            }
        }

        private String exitCode() {
            try {
                return process.waitFor(1, TimeUnit.SECONDS) ? " with code " + process.exitValue() + " (its stderr is above)" : "";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "";
            }
        }

        private LeaseStoreException gone(String op, String why) {
            return new LeaseStoreException(op + " failed on " + file + ": the worker " + line + " is unusable: " + why, null);
        }

        /** Ends the worker the protocol's way: end of input, then a wait for it to exit. */
        void close() {
            try {
                in.close();
            } catch (IOException e) {
                // It is gone already.
            }
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }

        void discard() {
            process.destroyForcibly();
            synchronized (ProtocolLeaseStore.this) {
                all.remove(this);
            }
        }
    }
}
