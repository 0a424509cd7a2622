# Shared by the scripts/bench-* parts: recording one row of the targets table of issue 19
# ("Against the peers" in BENCHMARKS.md). scripts/bench sets AMORA_BENCH_RESULTS to a file
# of JSON lines and rewrites the table from it; run alone, a part records nothing.

# bench_record ROW OURS PEER UNIT [NOTE]: one measured row. ROW is an id that
# scripts/lib/bench_report.py defines (its label, its target); OURS and PEER are numbers in
# UNIT ("" for a row without a peer); NOTE is what the reader should know about this run.
bench_record() {
  [ -n "${AMORA_BENCH_RESULTS:-}" ] || return 0
  python3 - "$@" >>"$AMORA_BENCH_RESULTS" <<'PY'
import datetime, json, os, sys
row, ours, peer, unit = sys.argv[1:5]
note = sys.argv[5] if len(sys.argv) > 5 else ""
print(json.dumps({
    "row": row,
    "ours": float(ours) if ours else None,
    "peer": float(peer) if peer else None,
    "unit": unit,
    "note": note,
    "command": os.environ.get("AMORA_BENCH_COMMAND", ""),
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
}))
PY
}
