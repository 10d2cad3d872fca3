package dev.leaselab.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.leaselab.lease.Completion;
import dev.leaselab.lease.JobState;
import dev.leaselab.lease.Lease;
import dev.leaselab.lease.LeaseStoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker protocol from both ends: {@link ProtocolLeaseStore} against the Java
 * {@link ProtocolServer} serving a real SQLite store (every operation's answer and every error
 * type carried across), and against workers that break the protocol (exit, answer garbage, hang,
 * speak another version), each of which must fail the call with a {@link LeaseStoreException}
 * that says what happened, never a refusal.
 */
class ProtocolLeaseStoreTest {

    @TempDir
    Path dir;

    private static List<String> javaServer(String strategy) {
        return List.of(ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
                ProtocolServer.class.getName(), "--strategy", strategy);
    }

    private static List<String> shell(String script) {
        return List.of("sh", "-c", script, "worker");  // the database file becomes $1
    }

    @Test
    void everyOperationAndItsAnswerCrossesTheProtocol() {
        try (ProtocolLeaseStore store = ProtocolLeaseStore.open(javaServer("IMMEDIATE"), dir.resolve("jobs.db"))) {
            assertTrue(store.implementation().startsWith("java "), store.implementation());
            assertTrue(store.enqueue("a"));
            assertEquals(false, store.enqueue("a"));
            assertEquals(Optional.empty(), store.state("missing"));
            assertEquals(OptionalLong.of(1), store.claim("a", "A", 100, 30));
            assertEquals(OptionalLong.empty(), store.claim("a", "B", 110, 30));
            assertTrue(store.renew("a", "A", 1, 120, 30));
            assertEquals(false, store.renew("a", "A", 7, 120, 30));
            assertTrue(store.release("a", "A", 1));
            assertEquals(new JobState("a", null, 0, 1, null, false), store.state("a").orElseThrow());
            store.enqueue("b");
            assertEquals(List.of(new Lease("a", "C", 2, 230), new Lease("b", "C", 1, 230)), store.claimNext("C", 200, 30, 5));
            assertTrue(store.complete("a", "C", 2, 210, "done"));
            assertEquals(new JobState("a", "C", 230, 2, "done", true), store.state("a").orElseThrow());
            store.enqueue("c");
            List<OptionalLong> many = store.claimMany("c", List.of("x", "y", "z"), 300, 30);
            assertEquals(3, many.size());
            assertEquals(1, many.stream().filter(OptionalLong::isPresent).count(), many.toString());
            assertEquals(ProtocolLeaseStore.PROTOCOL, store.protocol());
            long c = many.stream().filter(OptionalLong::isPresent).findFirst().orElseThrow().getAsLong();
            String winner = List.of("x", "y", "z").get(many.indexOf(OptionalLong.of(c)));
            assertEquals(List.of(true, false, false), store.completeAll(List.of(new Completion("c", winner, c, "batch"),
                    new Completion("c", winner, c, "again"), new Completion("b", "someone", 1, "stale")), 310));
            assertEquals("batch", store.state("c").orElseThrow().result());
        }
    }

    /**
     * completeAll is one request to a worker of protocol 2, and one complete request per completion
     * to a worker of protocol 1, which has no completeAll; an answer that is not one boolean per
     * completion, or any answer to a null list, fails the call.
     */
    @Test
    void completeAllIsOneRequestToAProtocol2WorkerAndOneCompletePerJobToAProtocol1Worker() throws Exception {
        List<Completion> batch = List.of(new Completion("a", "w", 1, "r"), new Completion("b", "w", 1, "r"));
        Path heard = dir.resolve("heard.log");
        try (ProtocolLeaseStore store = ProtocolLeaseStore.open(shell("echo '{\"ready\":true,\"protocol\":2}'; read l; "
                + "echo \"$l\" >> " + heard + "; echo '{\"id\":1,\"ok\":true,\"value\":[true,false]}'; cat >/dev/null"),
                dir.resolve("jobs.db"))) {
            assertEquals(2, store.protocol());
            assertEquals(List.of(true, false), store.completeAll(batch, 100));
        }
        List<String> requests = Files.readAllLines(heard);
        assertEquals(1, requests.size(), requests.toString());
        assertTrue(requests.get(0).contains("\"op\":\"completeAll\"") && requests.get(0).contains("\"jobId\":\"b\""), requests.get(0));

        Files.delete(heard);
        try (ProtocolLeaseStore store = ProtocolLeaseStore.open(shell("echo '{\"ready\":true,\"protocol\":1}'; "
                + "read l; echo \"$l\" >> " + heard + "; echo '{\"id\":1,\"ok\":true,\"value\":true}'; "
                + "read l; echo \"$l\" >> " + heard + "; echo '{\"id\":2,\"ok\":true,\"value\":false}'; cat >/dev/null"),
                dir.resolve("jobs.db"))) {
            assertEquals(1, store.protocol());
            assertEquals(List.of(true, false), store.completeAll(batch, 100));
        }
        requests = Files.readAllLines(heard);
        assertEquals(2, requests.size(), requests.toString());
        assertTrue(requests.stream().allMatch(r -> r.contains("\"op\":\"complete\"")), requests.toString());

        try (ProtocolLeaseStore store = ProtocolLeaseStore.open(shell("echo '{\"ready\":true,\"protocol\":2}'; read l; "
                + "echo '{\"id\":1,\"ok\":true,\"value\":[true]}'; cat >/dev/null"), dir.resolve("jobs.db"))) {
            assertTrue(assertThrows(LeaseStoreException.class, () -> store.completeAll(batch, 100)).getMessage()
                    .contains("not one boolean per completion"));
        }
        try (ProtocolLeaseStore store = ProtocolLeaseStore.open(shell("echo '{\"ready\":true,\"protocol\":2}'; read l; "
                + "echo '{\"id\":1,\"ok\":true,\"value\":[]}'; cat >/dev/null"), dir.resolve("jobs.db"))) {
            assertTrue(assertThrows(LeaseStoreException.class, () -> store.completeAll(null, 100)).getMessage()
                    .contains("null_argument 'completions'"));
        }
    }

    @Test
    void argumentErrorsComeBackAsTheExceptionsOfTheContract() {
        try (ProtocolLeaseStore store = ProtocolLeaseStore.open(javaServer("CONDITIONAL_UPDATE"), dir.resolve("jobs.db"))) {
            assertEquals("owner", assertThrows(NullPointerException.class, () -> store.claim("a", null, 1, 1)).getMessage());
            assertEquals("owners[1]", assertThrows(NullPointerException.class,
                    () -> store.claimMany("a", java.util.Arrays.asList("x", null), 1, 1)).getMessage());
            assertTrue(assertThrows(IllegalArgumentException.class, () -> store.claim("a", "A", Double.NaN, 1))
                    .getMessage().startsWith("now"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> store.claim("a", "A", 1, Double.POSITIVE_INFINITY))
                    .getMessage().startsWith("ttl"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> store.claimNext("A", 1, 1, 0))
                    .getMessage().startsWith("max"));
            assertEquals("completions", assertThrows(NullPointerException.class, () -> store.completeAll(null, 1)).getMessage());
            assertEquals("completions[1]", assertThrows(NullPointerException.class, () -> store.completeAll(
                    java.util.Arrays.asList(new Completion("a", "A", 1, "r"), null), 1)).getMessage());
            assertTrue(assertThrows(IllegalArgumentException.class, () -> store.completeAll(List.of(), Double.NaN))
                    .getMessage().startsWith("now"));
        }
    }

    @Test
    void aDatabaseFailureIsALeaseStoreExceptionNotARefusal() throws Exception {
        Path notADatabase = dir.resolve("garbage.db");
        java.nio.file.Files.writeString(notADatabase, "this is not a SQLite file, not even close ".repeat(40));
        LeaseStoreException e = assertThrows(LeaseStoreException.class,
                () -> ProtocolLeaseStore.open(javaServer("IMMEDIATE"), notADatabase).close());
        assertTrue(e.getMessage().contains("garbage.db"), e.getMessage());
    }

    @Test
    void aWorkerThatExitsFailsTheCallAndSaysSo() {
        try (ProtocolLeaseStore store = ProtocolLeaseStore.open(
                shell("echo '{\"ready\":true,\"protocol\":1}'; read line; exit 3"), dir.resolve("jobs.db"))) {
            LeaseStoreException e = assertThrows(LeaseStoreException.class, () -> store.enqueue("a"));
            assertTrue(e.getMessage().contains("exited with code 3"), e.getMessage());
        }
    }

    @Test
    void aWorkerThatAnswersGarbageOrAnotherRequestFailsTheCall() {
        try (ProtocolLeaseStore store = ProtocolLeaseStore.open(
                shell("echo '{\"ready\":true,\"protocol\":1}'; read line; echo 'true'; cat >/dev/null"), dir.resolve("jobs.db"))) {
            assertTrue(assertThrows(LeaseStoreException.class, () -> store.enqueue("a")).getMessage()
                    .contains("not a JSON object"));
        }
        try (ProtocolLeaseStore store = ProtocolLeaseStore.open(
                shell("echo '{\"ready\":true,\"protocol\":1}'; read line; echo '{\"id\":99,\"ok\":true}'; cat >/dev/null"),
                dir.resolve("jobs.db"))) {
            assertTrue(assertThrows(LeaseStoreException.class, () -> store.enqueue("a")).getMessage()
                    .contains("answered request 1"));
        }
    }

    @Test
    void aWorkerThatDoesNotAnswerFailsTheCallAfterTheTimeout() {
        try (ProtocolLeaseStore store = ProtocolLeaseStore.open(shell("echo '{\"ready\":true,\"protocol\":1}'; exec sleep 30"),
                dir.resolve("jobs.db"), Duration.ofMillis(300))) {
            assertTrue(assertThrows(LeaseStoreException.class, () -> store.state("a")).getMessage()
                    .contains("did not answer within"));
        }
    }

    @Test
    void aWorkerOfAnotherVersionOrThatCannotOpenIsRefusedAtOpen() {
        assertTrue(assertThrows(LeaseStoreException.class, () -> ProtocolLeaseStore.open(
                shell("echo '{\"ready\":true,\"protocol\":3}'"), dir.resolve("jobs.db"))).getMessage().contains("protocol 3"));
        assertEquals("no such disk", assertThrows(LeaseStoreException.class, () -> ProtocolLeaseStore.open(
                shell("echo '{\"ready\":false,\"error\":{\"type\":\"database\",\"message\":\"no such disk\"}}'"),
                dir.resolve("jobs.db"))).getMessage());
        assertTrue(assertThrows(LeaseStoreException.class, () -> ProtocolLeaseStore.open(
                List.of("/nonexistent/worker"), dir.resolve("jobs.db"))).getMessage().contains("cannot start"));
    }

    @Test
    void aClosedStoreRefusesEveryCall() {
        ProtocolLeaseStore store = ProtocolLeaseStore.open(javaServer("IMMEDIATE"), dir.resolve("jobs.db"));
        store.close();
        store.close();
        assertTrue(assertThrows(IllegalStateException.class, () -> store.state("a")).getMessage().contains("is closed"));
    }
}
