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
  cargo build --release --locked --workspace --features amora-ai/candle --bins --examples >&2
  echo "$CARGO_TARGET_DIR/release"
}

# bench_go_build DIR NAME: the Go program in DIR into $AMORA_CACHE/bin/NAME, its modules
# from the Go module proxy, cached.
bench_go_build() {
  command -v go >/dev/null || apt_install golang-go
  (cd "$REPO_ROOT/$1" && GOPATH="$AMORA_CACHE/go" GOMODCACHE="$AMORA_CACHE/go/mod" GOFLAGS=-modcacherw \
    go build -o "$AMORA_CACHE/bin/$2" .)
}

# A free loopback port.
bench_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# bench_wait_ready URL PID LOG: waits up to 60 s for URL to answer 2xx; stops with the log
# when the process PID has ended.
bench_wait_ready() {
  command -v curl >/dev/null || apt_install curl
  for _ in $(seq 1 600); do
    curl -fsS "$1" >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || { cat "$3" >&2; die "$1 did not start"; }
    sleep 0.1
  done
  die "$1 is not ready after 60 s"
}
