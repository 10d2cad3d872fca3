import java.nio.file.*; import java.sql.*; import java.util.*;
/** Throwaway: commit-time distribution of one connection, 8 hot claims a transaction, WAL_FULL; autocheckpoint on vs off (WAL kept bounded by a background PASSIVE checkpoint every 20 ms). */
public class Ckpt {
  static final String CLAIM = "UPDATE jobs SET owner = ?2, until = ?4, fence = fence + 1 WHERE id = ?1 AND (done = 0 AND until <= ?3) RETURNING fence";
  public static void main(String[] a) throws Exception {
    String mode = a[0]; int seconds = Integer.parseInt(a[1]); String sync = a.length > 2 ? a[2] : "FULL";
    Path dir = Files.createTempDirectory("ckpt"); String url = "jdbc:sqlite:" + dir.resolve("c.db");
    Connection c = DriverManager.getConnection(url);
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode = WAL"); s.execute("PRAGMA synchronous = " + sync);
      s.execute("CREATE TABLE jobs (id TEXT PRIMARY KEY, owner TEXT, until REAL NOT NULL DEFAULT 0, fence INTEGER NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0)");
      s.execute("INSERT INTO jobs (id) VALUES ('hot')");
      if (mode.equals("off")) s.execute("PRAGMA wal_autocheckpoint = 0");
    }
    volatile_stop = false;
    Thread bg = null; long[] ckpts = {0, 0};
    if (mode.equals("off")) {
      Connection b = DriverManager.getConnection(url);
      try (Statement s = b.createStatement()) { s.execute("PRAGMA synchronous = " + sync); s.execute("PRAGMA busy_timeout = 0"); }
      bg = new Thread(() -> { try (Statement s = b.createStatement()) { while (!volatile_stop) { Thread.sleep(20); long t0 = System.nanoTime(); try { s.execute("PRAGMA wal_checkpoint(PASSIVE)"); } catch (SQLException e) { } ckpts[0]++; ckpts[1] += System.nanoTime() - t0; } } catch (Exception e) { e.printStackTrace(); } });
      bg.setDaemon(true); bg.start();
    }
    PreparedStatement claim = c.prepareStatement(CLAIM);
    long[] commits = new long[10_000_000]; int n = 0; double clock = 0; long won = 0;
    Statement s = c.createStatement();
    long start = System.nanoTime(), end = start + seconds * 1_000_000_000L, warm = start + 2_000_000_000L; long measuredStart = 0; long wonAtWarm = 0;
    while (true) {
      long now0 = System.nanoTime(); if (now0 >= end) break;
      if (measuredStart == 0 && now0 >= warm) { measuredStart = now0; wonAtWarm = won; n = 0; }
      s.execute("BEGIN IMMEDIATE");
      for (int i = 0; i < 8; i++) { double now = clock++; claim.setString(1, "hot"); claim.setString(2, "me"); claim.setDouble(3, now); claim.setDouble(4, now + 1);
        try (ResultSet r = claim.executeQuery()) { if (r.next()) won++; while (r.next()) {} } }
      long t = System.nanoTime(); s.execute("COMMIT"); commits[n++] = System.nanoTime() - t;
    }
    double secs = (System.nanoTime() - measuredStart) / 1e9;
    volatile_stop = true;
    long[] x = Arrays.copyOf(commits, n); Arrays.sort(x); double sum = 0; int over1 = 0; double sumOver = 0;
    for (long v : x) { sum += v; if (v > 1_000_000) { over1++; sumOver += v; } }
    long walSize = Files.size(dir.resolve("c.db-wal"));
    System.out.printf("%s %s: %.0f claims/s; commits %d: mean %.1f us, p50 %.1f, p99 %.1f, p99.9 %.1f, max %.1f; >1ms: %d (%.1f us of the mean); bg checkpoints %d mean %.1f us; wal %d KB%n",
      mode, sync, (won - wonAtWarm) / secs, n, sum / n / 1e3, x[n/2]/1e3, x[(int)(n*0.99)]/1e3, x[(int)(n*0.999)]/1e3, x[n-1]/1e3, over1, sumOver / n / 1e3, ckpts[0], ckpts[0] == 0 ? 0 : ckpts[1]/1e3/ckpts[0], walSize/1024);
  }
  static volatile boolean volatile_stop;
}
