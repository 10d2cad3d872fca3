package dev.leaselab.lease;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Reads and writes the jobs table with plain JDBC, as another program sharing the database would. */
final class Tables {

    private Tables() {}

    /** Every row of the jobs table, in id order, as text. */
    static List<String> dump(TestDatabase db) throws SQLException {
        return db.withConnection(c -> {
            try (Statement s = c.createStatement();
                 ResultSet rows = s.executeQuery("SELECT id, owner, until, fence, result, done FROM jobs ORDER BY id")) {
                List<String> out = new ArrayList<>();
                while (rows.next()) {
                    out.add(rows.getString(1) + "|" + rows.getString(2) + "|" + rows.getDouble(3) + "|"
                            + rows.getLong(4) + "|" + rows.getString(5) + "|" + rows.getInt(6));
                }
                return out;
            }
        });
    }

    static int execute(TestDatabase db, String sql) throws SQLException {
        return db.withConnection(c -> {
            try (Statement s = c.createStatement()) {
                s.setQueryTimeout(5);
                return s.executeUpdate(sql);
            }
        });
    }
}
