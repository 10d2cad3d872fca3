package dev.leaselab.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** One shared Jackson mapper, and helpers that turn its checked exceptions into clear errors. */
final class Json {

    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper COMPACT = new ObjectMapper();

    private Json() {}

    static String write(Object value) {
        try {
            return COMPACT.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write as JSON: " + value, e);
        }
    }

    static void writeFile(Path file, Object value) {
        try {
            MAPPER.writeValue(file.toFile(), value);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }

    static JsonNode read(Path file) {
        try {
            return MAPPER.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("could not read JSON from " + file + ": " + e.getMessage(), e);
        }
    }

    static JsonNode readLine(String line) {
        try {
            return COMPACT.readTree(line);
        } catch (IOException e) {
            throw new IllegalArgumentException("not a JSON line: " + line, e);
        }
    }
}
