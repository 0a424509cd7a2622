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

# bench_release_build: every binary and example of the workspace in release, in one cargo
# call. Each part used to build only its own (`-p amora-ai --example bench`, `-p
# amora-server --bin amora`, …), and cargo unifies features per call, so every part
# rebuilt shared dependencies with other features; one call builds them once, and the
# parts after the first find nothing to do. Echoes the release directory.
bench_release_build() {
  require_toolchains
  cargo build --release --locked --workspace --bins --examples >&2
  echo "${CARGO_TARGET_DIR:-$REPO_ROOT/target}/release"
}
