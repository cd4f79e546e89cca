#!/usr/bin/env python3
"""Tiles a real Kineto trace N times into one large trace, for benchmarks at a real trace's mix.

Usage: bench/replicate_trace.py SOURCE.json[.gz] COPIES OUTPUT.json.gz

Each copy of the source's events (metadata events once) is shifted by the source's span plus
1 ms, and its ids are offset so that copies do not link to each other: flow ids and the args
correlation, External id, Ev Idx, Python id, Python parent id and Record function id. The
synthetic traces of `traceprism synth` are dense and regular; a replica keeps a real trace's
proportions (python frames, args, host-bound gaps), where costs can scale differently
(docs/performance.md, "A real trace's mix at 1 GB"). Needs only Python 3's standard library.
"""
import gzip
import json
import sys

ID_ARGS = ["correlation", "External id", "Ev Idx", "Python id", "Python parent id",
           "Record function id"]


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def next_free(values):
    return max([v for v in values if isinstance(v, int)] + [0]) + 1


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    source, copies, output = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open_text(source) as f:
        trace = json.load(f)
    events = trace.pop("traceEvents")
    once = [e for e in events if e.get("ph") == "M" or "ts" not in e]  # metadata
    body = [e for e in events if e.get("ph") != "M" and "ts" in e]
    start = min(e["ts"] for e in body)
    span = max(e["ts"] + e.get("dur", 0) for e in body) - start + 1000.0
    id_step = {k: next_free(e.get("args", {}).get(k) for e in body) for k in ID_ARGS}
    flow_step = next_free(e.get("id") for e in body)
    with gzip.open(output, "wt", compresslevel=1) as out:
        out.write(json.dumps(trace)[:-1] + ', "traceEvents": [\n')
        separator = ""
        for e in once:
            out.write(separator + json.dumps(e))
            separator = ",\n"
        for k in range(copies):
            for e in body:
                copy = dict(e, ts=round(e["ts"] + k * span, 3))
                if isinstance(copy.get("id"), int):
                    copy["id"] += k * flow_step
                if copy.get("args"):
                    args = dict(copy["args"])
                    for key in ID_ARGS:
                        if isinstance(args.get(key), int) and args[key] > 0:
                            args[key] += k * id_step[key]
                    copy["args"] = args
                out.write(separator + json.dumps(copy))
                separator = ",\n"
        out.write("\n]}\n")


if __name__ == "__main__":
    main()
