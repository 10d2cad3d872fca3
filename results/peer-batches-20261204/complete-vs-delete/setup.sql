DROP TABLE IF EXISTS jobs; DROP TABLE IF EXISTS scheduled;
CREATE TABLE jobs (id TEXT PRIMARY KEY, owner TEXT, until DOUBLE PRECISION NOT NULL DEFAULT 0, fence BIGINT NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0);
CREATE INDEX jobs_queue ON jobs (until, id) WHERE done = 0;
INSERT INTO jobs (id) SELECT 'job-' || g FROM generate_series(1, 5000) g;
UPDATE jobs SET owner = 'w', until = 100, fence = fence + 1;
CREATE TABLE scheduled AS SELECT * FROM jobs; ALTER TABLE scheduled ADD PRIMARY KEY (id);
CREATE INDEX scheduled_queue ON scheduled (until, id) WHERE done = 0;
VACUUM ANALYZE jobs; VACUUM ANALYZE scheduled;
