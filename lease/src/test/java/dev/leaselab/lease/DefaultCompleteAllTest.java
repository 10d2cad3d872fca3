package dev.leaselab.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link LeaseStore#completeAll}'s default, which a store of someone else's gets unless it
 * overrides it: each completion through {@link LeaseStore#complete}, in the order given, with
 * complete's answers in that order, and a null list or element refused before any complete runs.
 * The stores of this library override it; this runs it on a store that only answers complete.
 */
class DefaultCompleteAllTest {

    private final List<String> completed = new ArrayList<>();

    /** A store whose complete accepts every job but "refused", and records the calls; everything else fails. */
    private final LeaseStore store = (LeaseStore) Proxy.newProxyInstance(LeaseStore.class.getClassLoader(),
            new Class<?>[] {LeaseStore.class}, this::answer);

    private Object answer(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.isDefault()) {
            return InvocationHandler.invokeDefault(proxy, method, args);
        }
        if (method.getName().equals("complete")) {
            completed.add(args[0] + " " + args[1] + " " + args[2] + " " + args[3] + " " + args[4]);
            return !args[0].equals("refused");
        }
        throw new UnsupportedOperationException(method.getName() + Arrays.toString(args));
    }

    @Test
    void completesEachInTheOrderGivenAndAnswersInThatOrder() {
        List<Boolean> accepted = store.completeAll(List.of(new Completion("b", "A", 2, "rb"),
                new Completion("refused", "A", 1, "r"), new Completion("a", "B", 7, "ra")), 10);
        assertEquals(List.of(true, false, true), accepted);
        assertEquals(List.of("b A 2 10.0 rb", "refused A 1 10.0 r", "a B 7 10.0 ra"), completed);
        assertEquals(List.of(), store.completeAll(List.of(), 10));
    }

    @Test
    void aNullListOrElementIsRefusedBeforeAnyComplete() {
        NullPointerException list = assertThrows(NullPointerException.class, () -> store.completeAll(null, 10));
        assertEquals("completions", list.getMessage());
        List<Completion> withNull = Arrays.asList(new Completion("a", "A", 1, "r"), null);
        NullPointerException element = assertThrows(NullPointerException.class, () -> store.completeAll(withNull, 10));
        assertEquals("completions[1]", element.getMessage());
        assertEquals(List.of(), completed);
    }
}
