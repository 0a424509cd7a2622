#!/usr/bin/env bash
# The frontend's whole test run: clean install, lint and format check, unit tests, production
# build, the first-screen size budget, and the browser journeys against the real server.
# Assumes the server binary is built (AMORA_BIN, default ../target/debug/amora).
# Usage: test.sh [unit | journeys]: the install, lint, format check, unit tests, build and size
# budget, or the browser journeys only (the journeys need the build); both by default.
set -euo pipefail
part="${1:-all}"
case "$part" in all|unit|journeys) ;; *) echo "usage: $0 [unit | journeys]" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."

if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  echo "test.sh: installing Debian's Chromium for the browser journeys"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

step() { printf '\n=== frontend: %s ===\n' "$1"; }

if [ "$part" != journeys ]; then
  step "npm ci"
  npm ci --no-audit --no-fund

  step "lint (ESLint: typescript-eslint, React hooks, feature boundaries)"
  npm run --silent lint

  step "format (Prettier)"
  npm run --silent format:check

  step "unit tests"
  npm run --silent test:unit

  step "build"
  npm run --silent build

  step "first-screen size"
  npm run --silent check:size
fi

if [ "$part" != unit ]; then
  step "browser journeys"
  npm run --silent test:e2e
fi
