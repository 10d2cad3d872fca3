package dev.leaselab.stress;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A history file of one worker process: one JSON object per line, an "invoked" line before each
 * operation and an "answered" line after it. Each line goes to the operating system before the
 * call proceeds, so a {@code kill -9} loses at most the answer of the operation in flight, which
 * then reads back as {@link Op.Outcome#UNKNOWN}.
 */
public final class JsonLinesHistory implements HistorySink, AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final FileOutputStream out;

    private JsonLinesHistory(FileOutputStream out) {
        this.out = out;
    }

    /** Creates (or truncates) the history file. */
    public static JsonLinesHistory create(Path file) {
        try {
            return new JsonLinesHistory(new FileOutputStream(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write history " + file, e);
        }
    }

    @Override
    public void invoked(Op op) {
        write(op);
    }

    @Override
    public void answered(Op op) {
        write(op);
    }

    private synchronized void write(Op op) {
        try {
            // One unbuffered write per line: the line is in the kernel before the call goes on.
            out.write((JSON.writeValueAsString(op) + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + op, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to history", e);
        }
    }

    @Override
    public void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads a history file back: each operation once, with its answer, or as unknown when only
     * its invocation was written. A torn last line (the process died while writing it) is skipped.
     */
    public static List<Op> read(Path file) {
        Map<Long, Op> bySeq = new LinkedHashMap<>();
        if (!Files.exists(file)) {
            return new ArrayList<>();  // the process was killed before it wrote anything
        }
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isBlank()) {
                    continue;
                }
                Op op;
                try {
                    op = JSON.readValue(line, Op.class);
                } catch (JsonProcessingException torn) {
                    continue;
                }
                // An answer replaces its invocation; an invocation never replaces an answer.
                bySeq.merge(op.seq(), op, (old, next) -> next.outcome() == Op.Outcome.UNKNOWN ? old : next);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read history " + file, e);
        }
        return new ArrayList<>(bySeq.values());
    }
}
