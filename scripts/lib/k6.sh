# k6 for the load tests (load-tests/), built once from the Go module proxy into the cache.
# Source after lib/common.sh. `k6_binary` prints its path.

K6_VERSION="v1.8.1"

k6_binary() {
  local bin="$AMORA_CACHE/bin/k6"
  if [ ! -x "$bin" ] || ! "$bin" version 2>/dev/null | grep -q "k6 $K6_VERSION "; then
    command -v go >/dev/null || apt_install golang-go
    printf '== building k6 %s from the Go module proxy (once, into %s)\n' "$K6_VERSION" "$AMORA_CACHE/bin" >&2
    GOBIN="$AMORA_CACHE/bin" GOPATH="$AMORA_CACHE/go" GOMODCACHE="$AMORA_CACHE/go/mod" GOFLAGS=-modcacherw \
      go install "go.k6.io/k6@$K6_VERSION" >&2
  fi
  printf '%s\n' "$bin"
}
