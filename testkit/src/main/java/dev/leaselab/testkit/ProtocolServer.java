package dev.leaselab.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leaselab.lease.Completion;
import dev.leaselab.lease.JobState;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStore;
import dev.leaselab.lease.LeaseStoreException;
import dev.leaselab.lease.LockingStrategy;
import dev.leaselab.lease.SqliteLeaseStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Serves a Java {@link LeaseStore} over the worker protocol ({@code docs/worker-protocol.md}): the
 * Java side of the protocol, so that a store of your own, or a built-in strategy, runs as a worker
 * command next to workers of other languages, and so that {@link ProtocolLeaseStore} is tested
 * against a server whose answers are known.
 *
 * <pre>
 * java -cp testkit.jar:lease.jar:... dev.leaselab.testkit.ProtocolServer --strategy IMMEDIATE jobs.db
 * java -cp my-store.jar:... dev.leaselab.testkit.ProtocolServer --provider com.example.MyStoreProvider jobs.db
 * </pre>
 */
public final class ProtocolServer {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final LeaseStore store;

    private ProtocolServer(LeaseStore store) {
        this.store = store;
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3 || !(args[0].equals("--strategy") || args[0].equals("--provider"))) {
            System.err.println("usage: ProtocolServer (--strategy NAME | --provider CLASS) DATABASE_FILE");
            System.exit(2);
        }
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        LeaseStore store;
        try {
            store = open(args[0], args[1], Path.of(args[2]));
        } catch (LeaseStoreException e) {
            ObjectNode ready = JSON.createObjectNode().put("ready", false);
            ready.putObject("error").put("type", "database").put("message", e.getMessage());
            out.println(JSON.writeValueAsString(ready));
            out.flush();
            System.exit(1);
            return;
        }
        try (store) {
            out.println(JSON.writeValueAsString(JSON.createObjectNode().put("ready", true)
                    .put("protocol", ProtocolLeaseStore.PROTOCOL).put("implementation", "java " + store)));
            out.flush();
            new ProtocolServer(store).serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), out);
        }
    }

    private static LeaseStore open(String kind, String name, Path file) {
        if (kind.equals("--strategy")) {
            return SqliteLeaseStore.open(file, LockingStrategy.valueOf(name));
        }
        try {
            Object provider = Class.forName(name).getConstructor().newInstance();
            if (!(provider instanceof LeaseStoreProvider p)) {
                throw new IllegalArgumentException(name + " is not a " + LeaseStoreProvider.class.getName());
            }
            return p.open(file);
        } catch (ReflectiveOperationException e) {
            Throwable cause = e instanceof InvocationTargetException i ? i.getCause() : e;
            throw new IllegalArgumentException("cannot create the provider " + name + ": " + cause, cause);
        }
    }

    /** Answers every request line until the input ends. */
    void serve(BufferedReader in, PrintStream out) throws IOException {
        for (String line; (line = in.readLine()) != null; ) {
            ObjectNode response;
            JsonNode request = null;
            try {
                request = JSON.readTree(line);
                response = JSON.createObjectNode().put("ok", true);
                response.set("value", answer(request.path("op").asText(""), request.path("args")));
            } catch (NullPointerException e) {
                response = error("null_argument", e.getMessage());
            } catch (IllegalArgumentException e) {
                response = error("illegal_argument", e.getMessage());
            } catch (LeaseStoreException e) {
                response = error("database", e.getMessage());
            } catch (IOException | UnsupportedOperationException e) {
                response = error("protocol", e.getMessage());
            } catch (RuntimeException e) {
                response = error("internal", e.toString());
            }
            response.set("id", request == null ? null : request.get("id"));
            out.println(JSON.writeValueAsString(response));
            out.flush();
        }
    }

    private JsonNode answer(String op, JsonNode a) {
        return switch (op) {
            case "enqueue" -> JSON.getNodeFactory().booleanNode(store.enqueue(text(a, "jobId")));
            case "state" -> state(store.state(text(a, "jobId")));
            case "claim" -> fence(store.claim(text(a, "jobId"), text(a, "owner"), number(a, "now"), number(a, "ttl")));
            case "renew" -> JSON.getNodeFactory().booleanNode(store.renew(text(a, "jobId"), text(a, "owner"),
                    integer(a, "fence"), number(a, "now"), number(a, "ttl")));
            case "complete" -> JSON.getNodeFactory().booleanNode(store.complete(text(a, "jobId"), text(a, "owner"),
                    integer(a, "fence"), number(a, "now"), text(a, "result")));
            case "release" -> JSON.getNodeFactory().booleanNode(store.release(text(a, "jobId"), text(a, "owner"),
                    integer(a, "fence")));
            case "claimMany" -> {
                List<String> owners = null;
                if (!a.path("owners").isNull() && !a.path("owners").isMissingNode()) {
                    owners = new ArrayList<>();
                    for (JsonNode owner : a.path("owners")) {
                        owners.add(owner.isNull() ? null : owner.asText());
                    }
                }
                ArrayNode fences = JSON.createArrayNode();
                store.claimMany(text(a, "jobId"), owners, number(a, "now"), number(a, "ttl")).forEach(f -> fences.add(fence(f)));
                yield fences;
            }
            case "completeAll" -> {
                List<Completion> completions = null;
                if (!a.path("completions").isNull() && !a.path("completions").isMissingNode()) {
                    completions = new ArrayList<>();
                    for (JsonNode c : a.path("completions")) {
                        completions.add(c.isNull() ? null
                                : new Completion(text(c, "jobId"), text(c, "owner"), integer(c, "fence"), text(c, "result")));
                    }
                }
                ArrayNode accepted = JSON.createArrayNode();
                store.completeAll(completions, number(a, "now")).forEach(accepted::add);
                yield accepted;
            }
            case "claimNext" -> {
                ArrayNode leases = JSON.createArrayNode();
                for (Lease lease : store.claimNext(text(a, "owner"), number(a, "now"), number(a, "ttl"), (int) integer(a, "max"))) {
                    leases.addObject().put("job", lease.jobId()).put("owner", lease.owner()).put("fence", lease.fence())
                            .put("until", lease.until());
                }
                yield leases;
            }
            default -> throw new UnsupportedOperationException("unknown operation: '" + op + "'");
        };
    }

    private static ObjectNode error(String type, String message) {
        ObjectNode response = JSON.createObjectNode().put("ok", false);
        response.putObject("error").put("type", type).put("message", message);
        return response;
    }

    private static JsonNode state(Optional<JobState> state) {
        if (state.isEmpty()) {
            return JSON.getNodeFactory().nullNode();
        }
        JobState s = state.get();
        return JSON.createObjectNode().put("id", s.id()).put("owner", s.owner()).put("until", s.until())
                .put("fence", s.fence()).put("result", s.result()).put("done", s.done());
    }

    private static JsonNode fence(OptionalLong fence) {
        return fence.isPresent() ? JSON.getNodeFactory().numberNode(fence.getAsLong()) : JSON.getNodeFactory().nullNode();
    }

    private static String text(JsonNode args, String name) {
        JsonNode value = args.path(name);
        return value.isNull() || value.isMissingNode() ? null : value.asText();
    }

    private static double number(JsonNode args, String name) {
        JsonNode value = args.path(name);
        if (value.isTextual()) {
            return Double.parseDouble(value.asText());  // "NaN", "Infinity", "-Infinity"
        }
        if (!value.isNumber()) {
            throw new UnsupportedOperationException("argument " + name + " must be a number: " + value);
        }
        return value.asDouble();
    }

    private static long integer(JsonNode args, String name) {
        JsonNode value = args.path(name);
        if (!value.isIntegralNumber()) {
            throw new UnsupportedOperationException("argument " + name + " must be an integer: " + value);
        }
        return value.asLong();
    }
}
