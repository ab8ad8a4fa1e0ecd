"""knobscope-sim's truth log (--truth-log), read the same way by every bench script.

The C++ reader for tools and tests is readTruthLog in sim/truthlog.h; both skip
lines that are not a JSON object (a line cut short by a killed simulator).
"""
import json


def read_truth_log(path):
    """Every record in file order, as the simulator wrote it (one dict per request)."""
    records = []
    with open(path) as f:
        for line in f:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
    return records


def truth_by_client_id(path):
    """The records that carry a client request id (X-Request-Id), by that id."""
    return {r["client_request_id"]: r for r in read_truth_log(path) if r.get("client_request_id")}
