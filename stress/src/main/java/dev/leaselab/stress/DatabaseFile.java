package dev.leaselab.stress;

import dev.leaselab.lease.JobState;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads a database file directly with JDBC, not through a store, so that what the checker sees
 * does not depend on the code under test.
 */
public final class DatabaseFile {

    private DatabaseFile() {
    }

    /** Every row of the {@code jobs} table, by id. */
    public static Map<String, JobState> rows(Path file) {
        Map<String, JobState> rows = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
                Statement s = c.createStatement();
                ResultSet row = s.executeQuery("SELECT id, owner, until, fence, result, done FROM jobs")) {
            while (row.next()) {
                rows.put(row.getString(1), new JobState(row.getString(1), row.getString(2), row.getDouble(3),
                        row.getLong(4), row.getString(5), row.getInt(6) != 0));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the jobs of " + file + ": " + e.getMessage(), e);
        }
        return rows;
    }

    /** The answer of {@code PRAGMA integrity_check}: "ok" for a sound file. */
    public static String integrityCheck(Path file) {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
                Statement s = c.createStatement();
                ResultSet row = s.executeQuery("PRAGMA integrity_check")) {
            StringBuilder answer = new StringBuilder();
            while (row.next()) {
                answer.append(answer.length() == 0 ? "" : "; ").append(row.getString(1));
            }
            return answer.toString();
        } catch (SQLException e) {
            return "failed: " + e.getMessage();
        }
    }
}
