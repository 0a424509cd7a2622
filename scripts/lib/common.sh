# Shared by scripts/run and scripts/test: where things are, and installing what is missing.
# Heavy downloads are cached outside the repository, in ~/.cache/amora.

set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
AMORA_CACHE="${AMORA_CACHE:-$HOME/.cache/amora}"
mkdir -p "$AMORA_CACHE"
# Where cargo builds: ./target unless the caller chose. The test command builds into the
# cache instead (scripts/test), outside the clone, so that a clean clone compiles only the
# workspace's own crates (issue 29; BENCHMARKS.md "Test command").
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$REPO_ROOT/target}"
# Past this many GiB (old toolchains' and dependencies' artifacts pile up) the cached target
# dir is emptied before a build; the test command's build of today's tree is ~11 GiB.
TARGET_CACHE_LIMIT_GIB="${TARGET_CACHE_LIMIT_GIB:-40}"

say() { printf '\n== %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Empties the cached target dir when it grew past TARGET_CACHE_LIMIT_GIB (only the one in the
# cache: a target dir of the caller's own choosing is theirs to keep).
prune_target_cache() {
  [ "$CARGO_TARGET_DIR" = "$AMORA_CACHE/target" ] && [ -d "$CARGO_TARGET_DIR" ] || return 0
  local kib
  kib="$(du -sk "$CARGO_TARGET_DIR" 2>/dev/null | cut -f1)"
  if [ "${kib:-0}" -gt $((TARGET_CACHE_LIMIT_GIB * 1024 * 1024)) ]; then
    say "the cached target dir holds $((kib / 1024 / 1024)) GiB (limit ${TARGET_CACHE_LIMIT_GIB}): emptied"
    rm -rf "$CARGO_TARGET_DIR"
  fi
}

# Runs the shell commands in $1 when the script exits, keeping the script's exit status:
# under `set -e` a failing clean-up command (`kill` of a process that has already ended)
# would otherwise become the status, and a green run would exit 1.
on_exit() {
  AMORA_ON_EXIT="$1"
  trap 'amora_status=$?; set +e; eval "$AMORA_ON_EXIT"; exit "$amora_status"' EXIT
}

# apt-get update at most once per script run, and only when something is missing.
APT_UPDATED=0
apt_install() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || die "apt-get is needed to install: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ "$APT_UPDATED" -eq 0 ]; then
    $sudo apt-get update -qq
    APT_UPDATED=1
  fi
  say "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

require_toolchains() {
  command -v cargo >/dev/null || die "Rust (cargo) is required: https://rustup.rs"
  command -v node >/dev/null || apt_install nodejs npm
  command -v npm >/dev/null || apt_install npm
  # rusqlite's bundled SQLite and some crates build C code.
  command -v cc >/dev/null || apt_install build-essential
  command -v pkg-config >/dev/null || apt_install pkg-config
}

# Installs the frontend's packages when the lock file changed since the last install.
frontend_install() {
  local stamp="$REPO_ROOT/frontend/node_modules/.amora-lock-hash"
  local hash
  hash="$(sha256sum "$REPO_ROOT/frontend/package-lock.json" | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$hash" ]; then
    say "installing frontend packages"
    (cd "$REPO_ROOT/frontend" && npm ci --no-audit --no-fund --cache "$AMORA_CACHE/npm")
    echo "$hash" > "$stamp"
  fi
}

# A virtualenv in the cache with the test command's Python packages (the SMTP server).
python_test_env() {
  local venv="$AMORA_CACHE/venv"
  local stamp="$venv/.amora-requirements-hash"
  local hash
  hash="$(sha256sum "$REPO_ROOT/scripts/requirements-test.txt" | cut -d' ' -f1)"
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" 2>/dev/null || { apt_install python3-venv; python3 -m venv "$venv"; }
  fi
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$hash" ]; then
    say "installing Python test packages"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$REPO_ROOT/scripts/requirements-test.txt"
    echo "$hash" > "$stamp"
  fi
  export AMORA_PYTHON="$venv/bin/python"
}
