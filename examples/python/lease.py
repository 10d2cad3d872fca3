"""The lease contract's design (docs/CONTRACT.md) in Python, standard library only.

One job table in one SQLite file, a connection per call, ``BEGIN IMMEDIATE`` around every
read-then-write, and a fence that only grows. These are the contract's eight functions plus
``claim_next`` (the queue) and ``complete_all`` (a batch in one transaction), written the way the contract describes them, so that the harness
can race them against the Java strategies on one file.

``MUTATION`` switches on one of the contract's wrong changes (section "Eight ways to get it
subtly wrong"); ``None`` is the correct design. The harness sets it to prove that its suites
catch each change in this language too: it is a switch, not a copy of the code.
"""

import math
import sqlite3
import threading

SCHEMA = """CREATE TABLE IF NOT EXISTS jobs (
    id     TEXT PRIMARY KEY,
    owner  TEXT,
    until  REAL NOT NULL DEFAULT 0,
    fence  INTEGER NOT NULL DEFAULT 0,
    result TEXT,
    done   INTEGER NOT NULL DEFAULT 0
)"""

# The same index the Java stores create for claim_next: the not-done jobs in rowid order.
QUEUE_INDEX = "CREATE INDEX IF NOT EXISTS jobs_queue ON jobs (done) WHERE done = 0"

BUSY_TIMEOUT_SECONDS = 5.0

# The wrong changes, numbered as in the contract. Each keeps the happy path working.
MUTATIONS = {
    "TABLE_WITHOUT_IF_NOT_EXISTS": 1,   # re-opening the file fails
    "ENQUEUE_INSERT_OR_REPLACE": 2,     # re-enqueue wipes a live lease and its fence
    "STATE_OF_MISSING_IS_EMPTY_ROW": 3, # state of a missing id is a row of defaults
    "CLAIM_AT_EXPIRY_IS_HELD": 4,       # until >= now counts as held: now == until unclaimable
    "RENEW_EXPIRED_LEASE": 5,           # renew without until > now
    "COMPLETE_DONE_AT_LEAST_0": 6,      # done >= 0: a done job is completed again
    "RELEASE_RESETS_FENCE": 7,          # the next claim reuses an old token
    "CLAIM_MANY_FIRST_OWNER_ONLY": 8,   # a race that is never raced
    "CLAIM_READ_THEN_WRITE": 8,         # read in one transaction, write in another
    "COMPLETE_ALL_ONE_COMMIT_EACH": 20, # a batch that fails half-way keeps its first completes
}

MUTATION = None


class ArgumentError(ValueError):
    """A bad argument: the message starts with the argument's name, as the contract says."""


class NullArgument(ArgumentError):
    """A missing argument: the message is exactly the argument's name."""


def _connect(path):
    # isolation_level=None: autocommit, so BEGIN IMMEDIATE is ours and not the module's.
    return sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)


def _required(name, value):
    if value is None:
        raise NullArgument(name)
    return value


def _now(now):
    if not math.isfinite(now):
        raise ArgumentError("now must be finite: %r" % now)
    return now


def _ttl(now, ttl):
    if not math.isfinite(ttl):
        raise ArgumentError("ttl must be finite: %r" % ttl)
    if ttl <= 0:
        raise ArgumentError("ttl must be positive: %r" % ttl)
    if not math.isfinite(now + ttl):
        raise ArgumentError("now + ttl overflows: %r + %r" % (now, ttl))
    return ttl


def init_db(path):
    """Creates the table (and the queue's index) only if missing: re-opening never resets a fence."""
    con = _connect(path)
    try:
        if MUTATION == "TABLE_WITHOUT_IF_NOT_EXISTS":
            con.execute(SCHEMA.replace(" IF NOT EXISTS", ""))
        else:
            con.execute(SCHEMA)
        con.execute(QUEUE_INDEX)
    finally:
        con.close()


def enqueue(path, job_id):
    _required("jobId", job_id)
    con = _connect(path)
    try:
        if MUTATION == "ENQUEUE_INSERT_OR_REPLACE":
            cur = con.execute("INSERT OR REPLACE INTO jobs (id) VALUES (?)", (job_id,))
        else:
            cur = con.execute("INSERT INTO jobs (id) VALUES (?) ON CONFLICT (id) DO NOTHING", (job_id,))
        return cur.rowcount == 1
    finally:
        con.close()


def state(path, job_id):
    """The row as stored now, as a dict, or None when there is no such job."""
    _required("jobId", job_id)
    con = _connect(path)
    try:
        row = con.execute("SELECT id, owner, until, fence, result, done FROM jobs WHERE id = ?",
                          (job_id,)).fetchone()
    finally:
        con.close()
    if row is None:
        if MUTATION == "STATE_OF_MISSING_IS_EMPTY_ROW":
            return {"id": job_id, "owner": None, "until": 0.0, "fence": 0, "result": None, "done": False}
        return None
    return {"id": row[0], "owner": row[1], "until": float(row[2]), "fence": row[3], "result": row[4],
            "done": row[5] != 0}


def _claimable(until, now):
    if MUTATION == "CLAIM_AT_EXPIRY_IS_HELD":
        return until < now
    return until <= now


def claim(path, job_id, owner, now, ttl):
    """The new fence, or None when the job is missing, done or held by a live lease."""
    _required("jobId", job_id)
    _required("owner", owner)
    _ttl(_now(now), ttl)
    if MUTATION == "CLAIM_READ_THEN_WRITE":
        return _claim_read_then_write(path, job_id, owner, now, ttl)

    def check_then_write(con):
        row = con.execute("SELECT until, fence, done FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None or row[2] != 0 or not _claimable(row[0], now):
            return None
        con.execute("UPDATE jobs SET owner = ?, until = ?, fence = fence + 1 WHERE id = ?", (owner, now + ttl, job_id))
        return row[1] + 1

    # The write lock is taken before the read: nobody can claim between our check and our write.
    return _immediate(path, check_then_write)


def _immediate(path, work):
    """Runs work(con) between BEGIN IMMEDIATE and COMMIT on a connection of its own; rolled back if it raises."""
    con = _connect(path)
    try:
        con.execute("BEGIN IMMEDIATE")
        try:
            result = work(con)
            con.execute("COMMIT")
            return result
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise
    finally:
        con.close()


def _claim_read_then_write(path, job_id, owner, now, ttl):
    # Wrong change 8: the check reads on one connection, the write runs later on another.
    row = state(path, job_id)
    if row is None or row["done"] or not _claimable(row["until"], now):
        return None
    con = _connect(path)
    try:
        con.execute("UPDATE jobs SET owner = ?, until = ?, fence = ? WHERE id = ?",
                    (owner, now + ttl, row["fence"] + 1, job_id))
    finally:
        con.close()
    return row["fence"] + 1


def _write(path, statement, args):
    con = _connect(path)
    try:
        return con.execute(statement, args).rowcount == 1
    finally:
        con.close()


def renew(path, job_id, owner, fence, now, ttl):
    _required("jobId", job_id)
    _required("owner", owner)
    _ttl(_now(now), ttl)
    live = "" if MUTATION == "RENEW_EXPIRED_LEASE" else " AND until > ?"
    args = (now + ttl, job_id, owner, fence) + (() if MUTATION == "RENEW_EXPIRED_LEASE" else (now,))
    return _write(path, "UPDATE jobs SET until = ? WHERE id = ? AND owner = ? AND fence = ? AND done = 0" + live, args)


def _complete_statement():
    done = "done >= 0" if MUTATION == "COMPLETE_DONE_AT_LEAST_0" else "done = 0"
    return "UPDATE jobs SET result = ?, done = 1 WHERE id = ? AND owner = ? AND fence = ? AND " + done + " AND until > ?"


def complete(path, job_id, owner, fence, now, result):
    _required("jobId", job_id)
    _required("owner", owner)
    _required("result", result)
    _now(now)
    return _write(path, _complete_statement(), (result, job_id, owner, fence, now))


def complete_all(path, completions, now):
    """Completes a batch in one transaction: each completion (a dict jobId/owner/fence/result) by
    complete's rule, in list order, so a job named twice is completed once; the answers in list
    order. If a write fails, the transaction is rolled back and none of the batch is stored."""
    _required("completions", completions)
    for i, c in enumerate(completions):
        _required("completions[%d]" % i, c)
    for c in completions:
        _required("jobId", c.get("jobId"))
        _required("owner", c.get("owner"))
        _required("result", c.get("result"))
    _now(now)
    if not completions:
        return []
    if MUTATION == "COMPLETE_ALL_ONE_COMMIT_EACH":
        return [complete(path, c["jobId"], c["owner"], c["fence"], now, c["result"]) for c in completions]
    return _immediate(path, lambda con: [
        con.execute(_complete_statement(), (c["result"], c["jobId"], c["owner"], c["fence"], now)).rowcount == 1
        for c in completions])


def release(path, job_id, owner, fence):
    _required("jobId", job_id)
    _required("owner", owner)
    fence_effect = ", fence = 0" if MUTATION == "RELEASE_RESETS_FENCE" else ""
    return _write(path, "UPDATE jobs SET owner = NULL, until = 0" + fence_effect
                  + " WHERE id = ? AND owner = ? AND fence = ? AND done = 0", (job_id, owner, fence))


def claim_many(path, job_id, owners, now, ttl):
    """Claims the job for every owner at once, each on its own thread; results in owner order."""
    _required("jobId", job_id)
    _required("owners", owners)
    for i, owner in enumerate(owners):
        _required("owners[%d]" % i, owner)
    _ttl(_now(now), ttl)
    if MUTATION == "CLAIM_MANY_FIRST_OWNER_ONLY":
        return [claim(path, job_id, owners[0], now, ttl)] + [None] * (len(owners) - 1) if owners else []
    results = [None] * len(owners)
    errors = [None] * len(owners)
    gate = threading.Barrier(len(owners)) if owners else None

    def run(i):
        try:
            gate.wait()  # every thread is started before any claim runs
            results[i] = claim(path, job_id, owners[i], now, ttl)
        except BaseException as e:  # reported in owner order below
            errors[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(owners))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for e in errors:
        if e is not None:
            raise e
    return results


def claim_next(path, owner, now, ttl, max_jobs=1):
    """Up to max_jobs claimable jobs, oldest (lowest rowid) first, as dicts job/owner/fence/until."""
    _required("owner", owner)
    _ttl(_now(now), ttl)
    if max_jobs <= 0:
        raise ArgumentError("max must be positive: %d" % max_jobs)

    def pick_and_claim(con):
        held = "<" if MUTATION == "CLAIM_AT_EXPIRY_IS_HELD" else "<="
        rows = con.execute("SELECT id, fence FROM jobs WHERE done = 0 AND until " + held
                           + " ? ORDER BY rowid LIMIT ?", (now, max_jobs)).fetchall()
        for job_id, _ in rows:
            con.execute("UPDATE jobs SET owner = ?, until = ?, fence = fence + 1 WHERE id = ?", (owner, now + ttl, job_id))
        return rows

    picked = _immediate(path, pick_and_claim)
    return [{"job": job_id, "owner": owner, "fence": fence + 1, "until": now + ttl} for job_id, fence in picked]
