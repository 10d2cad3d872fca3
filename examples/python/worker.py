"""The worker protocol (docs/worker-protocol.md) over lease.py: JSON lines on stdin and stdout.

    python3 worker.py [--mutation NAME] DATABASE_FILE

It opens the file (init_db), answers with a ready line, then one response line per request line
until stdin ends.
"""

import json
import sqlite3
import sys

import lease

PROTOCOL = 2


def number(value):
    # JSON has no NaN or infinity: the protocol sends them as the strings "NaN", "Infinity", "-Infinity".
    if isinstance(value, str):
        return float(value)
    if value is None or isinstance(value, bool):
        raise lease.ArgumentError("expected a number: %r" % (value,))
    return value


def dispatch(db, op, a):
    if op == "enqueue":
        return lease.enqueue(db, a.get("jobId"))
    if op == "state":
        return lease.state(db, a.get("jobId"))
    if op == "claim":
        return lease.claim(db, a.get("jobId"), a.get("owner"), number(a["now"]), number(a["ttl"]))
    if op == "renew":
        return lease.renew(db, a.get("jobId"), a.get("owner"), a["fence"], number(a["now"]), number(a["ttl"]))
    if op == "complete":
        return lease.complete(db, a.get("jobId"), a.get("owner"), a["fence"], number(a["now"]), a.get("result"))
    if op == "completeAll":
        return lease.complete_all(db, a.get("completions"), number(a["now"]))
    if op == "release":
        return lease.release(db, a.get("jobId"), a.get("owner"), a["fence"])
    if op == "claimMany":
        return lease.claim_many(db, a.get("jobId"), a.get("owners"), number(a["now"]), number(a["ttl"]))
    if op == "claimNext":
        return lease.claim_next(db, a.get("owner"), number(a["now"]), number(a["ttl"]), a.get("max", 1))
    raise KeyError(op)


def error(kind, message):
    return {"ok": False, "error": {"type": kind, "message": message}}


def answer(db, request):
    try:
        return {"ok": True, "value": dispatch(db, request["op"], request.get("args", {}))}
    except lease.NullArgument as e:
        return error("null_argument", str(e))
    except lease.ArgumentError as e:
        return error("illegal_argument", str(e))
    except sqlite3.Error as e:
        return error("database", "%s failed on %s (python): %s" % (request.get("op"), db, e))
    except KeyError as e:
        return error("protocol", "unknown operation or missing argument: %s" % e)


def write(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def main(argv):
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--mutation":
        if args[1] not in lease.MUTATIONS:
            sys.exit("unknown mutation %s (one of %s)" % (args[1], ", ".join(lease.MUTATIONS)))
        lease.MUTATION = args[1]
        args = args[2:]
    if len(args) != 1:
        sys.exit("usage: worker.py [--mutation NAME] DATABASE_FILE")
    db = args[0]
    try:
        lease.init_db(db)
    except sqlite3.Error as e:
        write({"ready": False, "error": {"type": "database", "message": "open failed on %s (python): %s" % (db, e)}})
        return 1
    write({"ready": True, "protocol": PROTOCOL, "implementation": "python " + sys.version.split()[0]
           + (" mutation " + lease.MUTATION if lease.MUTATION else "")})
    while True:
        line = sys.stdin.readline()
        if not line:
            return 0  # the harness closed our stdin: the store was closed
        try:
            request = json.loads(line)
        except ValueError as e:
            write(error("protocol", "not a JSON object: %s" % e))
            continue
        response = answer(db, request)
        response["id"] = request.get("id")
        write(response)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
