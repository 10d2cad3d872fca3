package dev.leaselab.stress;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Writes the verdict table ({@code verdicts.txt}) and JUnit XML ({@code TEST-stress.xml}) of a run. */
public final class VerdictReport {

    private VerdictReport() {
    }

    /** The table, with a closing summary line. */
    public static String table(List<Verdict> verdicts) {
        StringBuilder text = new StringBuilder(Verdict.header()).append('\n');
        verdicts.forEach(v -> text.append(v.row()).append('\n'));
        long good = verdicts.stream().filter(v -> v.outcome().good()).count();
        text.append(String.format(Locale.ROOT, "%d passed, %d failed%n", good, verdicts.size() - good));
        return text.toString();
    }

    /** Writes both files into {@code dir}. */
    public static void write(Path dir, List<Verdict> verdicts) {
        try {
            Files.createDirectories(dir);
            StringBuilder details = new StringBuilder(table(verdicts)).append('\n');
            for (Verdict v : verdicts) {
                details.append(v.store()).append(" / ").append(v.check()).append(": ").append(v.outcome())
                        .append("\n  ").append(v.detail().replace("\n", "\n  ")).append("\n");
            }
            Files.writeString(dir.resolve("verdicts.txt"), details, StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("TEST-stress.xml"), junitXml(verdicts), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report into " + dir, e);
        }
    }

    static String junitXml(List<Verdict> verdicts) {
        long failures = verdicts.stream().filter(v -> !v.outcome().good()).count();
        double seconds = verdicts.stream().mapToLong(Verdict::millis).sum() / 1000.0;
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        xml.append(String.format(Locale.ROOT, "<testsuite name=\"leaselab.stress\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\" time=\"%.3f\">%n",
                verdicts.size(), failures, seconds));
        for (Verdict v : verdicts) {
            xml.append(String.format(Locale.ROOT, "  <testcase classname=\"stress.%s\" name=\"%s\" time=\"%.3f\">%n",
                    escape(v.check().replace(' ', '.')), escape(v.store()), v.millis() / 1000.0));
            if (!v.outcome().good()) {
                xml.append("    <failure type=\"").append(v.outcome()).append("\" message=\"")
                        .append(escape(v.outcome() + ": " + firstLine(v.detail()))).append("\">")
                        .append(escape(v.detail())).append("</failure>\n");
            }
            xml.append("    <system-out>").append(escape(v.row() + "\n" + v.detail())).append("</system-out>\n");
            xml.append("  </testcase>\n");
        }
        return xml.append("</testsuite>\n").toString();
    }

    private static String firstLine(String text) {
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
