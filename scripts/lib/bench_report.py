#!/usr/bin/env python3
"""Issue 19's targets table: merges one `scripts/bench` run's rows into
load-tests/results.jsonl (the latest figure of every row) and rewrites the table between
the markers of BENCHMARKS.md ("Against the peers").

Each row the parts record is a JSON line: {"row", "ours", "peer", "unit", "note",
"command"[, "date"]} (scripts/lib/bench.sh and scripts/lib/bench_record.rs write them).
What a row measures and what it must reach is defined here, once, so that a part only
reports numbers.

    python3 scripts/lib/bench_report.py RESULTS_OF_THIS_RUN
    python3 scripts/lib/bench_report.py --check   # the table again from results.jsonl
"""
import datetime
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
LATEST = ROOT / "load-tests" / "results.jsonl"
BENCHMARKS = ROOT / "BENCHMARKS.md"
BEGIN = "<!-- bench:targets (rewritten by scripts/bench; edit scripts/lib/bench_report.py) -->"
END = "<!-- /bench:targets -->"


def ratio_at_least(bound):
    return (f"ours : peer ≥ {bound}", lambda ours, peer: peer and ours / peer >= bound)


def ratio_at_most(bound):
    return (f"ours : peer ≤ {bound}", lambda ours, peer: peer and ours / peer <= bound)


def below(bound, unit, and_peer=False):
    text = f"< {bound} {unit}" + (", ≤ peer" if and_peer else "")
    return (text, lambda ours, peer: ours < bound and (not and_peer or peer is None or ours <= peer))


def at_least(bound, unit):
    return (f"≥ {bound:,} {unit}", lambda ours, peer: ours >= bound)


def at_most(bound, unit):
    return (f"≤ {bound} {unit}", lambda ours, peer: ours <= bound)


def recorded():
    return ("recorded", lambda ours, peer: True)


# id, workload, peer, target (text, test on ours and peer).
ROWS = [
    ("model.tps.60", "embedded model, reply tokens/s, 60-token prompt",
     "llama-server, same GGUF, same threads", ratio_at_least(0.8)),
    ("model.tps.1000", "embedded model, reply tokens/s, 1,000-token prompt",
     "llama-server, same GGUF, same threads", ratio_at_least(0.8)),
    ("model.ttft.60", "embedded model, time to first token, 60-token prompt",
     "llama-server, same GGUF, same threads", ratio_at_most(1.5)),
    ("model.ttft.1000", "embedded model, time to first token, 1,000-token prompt",
     "llama-server, same GGUF, same threads", ratio_at_most(1.5)),
    ("model.batch8", "8 conversations replying at once, total tokens/s",
     "llama-server --parallel 8", ratio_at_least(0.8)),
    ("http.rps", "encrypted getCharacterList (30 cards), requests/s at saturation",
     "plain actix-web handler, same 30 cards as JSON", ratio_at_least(0.8)),
    # Issue 35 raised both targets (0.6, 10 ms in issue 19).
    ("http.p99", "same, p99 at half of our saturation rate",
     "the plain handler at the same rate", below(5, "ms")),
    ("sockets.count", "idle WebSockets held by one server process",
     "centrifuge library server, same client tool", at_least(18000, "sockets")),
    ("sockets.kib", "server memory per idle WebSocket",
     "centrifuge library server, same client tool", at_most(8, "KiB")),
    ("fanout.one", "tokenCount publish → receive p99, 5,000 events/s over 10,000 sockets, one node",
     "centrifuge, memory broker", below(5, "ms", and_peer=True)),
    ("fanout.two", "the same, two nodes via Redis",
     "centrifuge, Redis broker", below(15, "ms", and_peer=True)),
    ("actors.user", "memory per idle user actor, 100,000 resident on one node",
     "actix actor holding nothing, kept in a map", at_most(2, "KiB")),
    ("actors.conversation", "memory per resident conversation of 40 messages, 20,000 resident on one node",
     "the text of its messages", recorded()),
    ("actors.budget", "resident memory under a budget once the 20,000 conversations were opened",
     "the budget (actors.memory_budget_mib)", ratio_at_most(1.0)),
    ("turn.two", "chat turn on two nodes (Cassandra + Redis), server's added latency p99",
     "the same turns on one node, embedded store and bus", below(10, "ms")),
    ("catalogue.sqlite", "character list page 3,000 of a 100,000-character catalogue, SQLite",
     "page 2 of the same listing", ratio_at_most(1.5)),
    ("catalogue.cql", "the same on Cassandra 5",
     "page 2 of the same listing", ratio_at_most(1.5)),
]


def number(value, unit):
    if value is None:
        return "—"
    if unit == "sockets":
        return f"{value:,.0f}"
    if unit in ("ms", "KiB") and value < 10:
        return f"{value:.2f} {unit}"
    if unit == "requests/s":
        return f"{value:,.0f}/s"
    return f"{value:,.1f} {unit}"


def load(path):
    rows = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                rows[record["row"]] = record
    return rows


def table(latest):
    lines = [
        "| workload | ours | peer | ours : peer | target | | command | date |",
        "|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for row_id, workload, peer_name, (target, meets) in ROWS:
        record = latest.get(row_id)
        if record is None:
            lines.append(f"| {workload} | not measured | {peer_name} | | {target} | | | |")
            continue
        ours, peer, unit = record["ours"], record["peer"], record["unit"]
        ratio = f"{ours / peer:.2f}×" if ours is not None and peer else "—"
        verdict = "met" if ours is not None and meets(ours, peer) else "**short**"
        lines.append(
            f"| {workload} | {number(ours, unit)} | {peer_name}: {number(peer, unit)} | {ratio} | {target} "
            f"| {verdict} | `{record.get('command', '')}` | {record.get('date', '')} |"
        )
        if record.get("note"):
            notes.append(f"- {workload}: {record['note']}.")
    return "\n".join(lines + [""] + notes)


def main():
    latest = load(LATEST)
    if sys.argv[1:] != ["--check"]:
        today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        run = load(pathlib.Path(sys.argv[1]))
        known = {row[0] for row in ROWS}
        for row_id, record in run.items():
            if row_id not in known:
                sys.exit(f"a part recorded {row_id!r}, which no row of bench_report.py defines")
            record.setdefault("date", today)
            latest[row_id] = record
        LATEST.write_text("".join(json.dumps(latest[r[0]]) + "\n" for r in ROWS if r[0] in latest))
    text = BENCHMARKS.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    BENCHMARKS.write_text(text[:start] + "\n" + table(latest) + "\n" + text[end:])
    print(table(latest))


if __name__ == "__main__":
    main()
