package dev.leaselab.stress;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
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

    /** A line that lacks a field is as damaged as one that is not JSON: "{}" is no operation. */
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

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
     * its invocation was written.
     *
     * <p>Every line is written whole by one call, so a {@code kill -9} can tear only the last one,
     * and a torn line has no newline after it (the newline is the write's last byte). That line,
     * and only that one, is skipped. Any other line that is not a whole operation means the file
     * was damaged: a verdict on what is left would be a verdict on a partial history.
     *
     * @throws IllegalStateException naming the file and the line when a line other than a torn
     *     last one cannot be read
     */
    public static List<Op> read(Path file) {
        Map<Long, Op> bySeq = new LinkedHashMap<>();
        if (!Files.exists(file)) {
            return new ArrayList<>();  // the process was killed before it wrote anything
        }
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            int number = 0;
            String unreadable = null;
            String why = null;
            for (String line; (line = in.readLine()) != null; ) {
                if (unreadable != null) {
                    throw damaged(file, number, unreadable, why);  // a line follows it: not the last
                }
                number++;
                Op op;
                try {
                    op = JSON.readValue(line, Op.class);
                } catch (JsonProcessingException e) {
                    unreadable = line;
                    why = e.getOriginalMessage();
                    continue;
                }
                if (op.process() == null || op.kind() == null || op.job() == null || op.outcome() == null) {
                    unreadable = line;
                    why = "process, kind, job and outcome must not be null";
                    continue;
                }
                // An answer replaces its invocation; an invocation never replaces an answer.
                bySeq.merge(op.seq(), op, (old, next) -> next.outcome() == Op.Outcome.UNKNOWN ? old : next);
            }
            if (unreadable != null && endsWithNewline(file)) {
                throw damaged(file, number, unreadable, why);  // whole, yet unreadable: not torn
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read history " + file, e);
        }
        return new ArrayList<>(bySeq.values());
    }

    private static IllegalStateException damaged(Path file, int number, String line, String why) {
        String shown = line.length() <= 80 ? line : line.substring(0, 80) + "...";
        return new IllegalStateException("history " + file + " is damaged at line " + number + ": \"" + shown
                + "\" is not an operation (" + why + "), and only a torn last line may be");
    }

    private static boolean endsWithNewline(Path file) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            long length = raf.length();
            if (length == 0) {
                return false;
            }
            raf.seek(length - 1);
            return raf.read() == '\n';
        }
    }
}
