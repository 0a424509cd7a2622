#!/usr/bin/env bash
# The frontend's whole test run: clean install, unit tests, production build, the
# first-screen size budget, and the browser journeys against the real server.
# Assumes the server binary is built (AMORA_BIN, default ../target/debug/amora).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  echo "test.sh: installing Debian's Chromium for the browser journeys"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

step() { printf '\n=== frontend: %s ===\n' "$1"; }

step "npm ci"
npm ci --no-audit --no-fund

step "unit tests"
npm run --silent test:unit

step "build"
npm run --silent build

step "first-screen size"
npm run --silent check:size

step "browser journeys"
npm run --silent test:e2e
