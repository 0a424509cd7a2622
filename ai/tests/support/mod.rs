//! Shared by the integration tests and the benchmark: the real model file and a real
//! llama.cpp server, both prepared by `scripts/lib/model.sh`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod llama_server;

use std::path::PathBuf;

/// The GGUF chat model. Missing means the tests were started without the set-up step:
/// that is a failure, never a skip.
pub fn model_path() -> PathBuf {
    let path = std::env::var_os("AMORA_MODEL_PATH").map(PathBuf::from).unwrap_or_else(|| {
        panic!(
            "AMORA_MODEL_PATH is not set: run `eval \"$(scripts/lib/model.sh env)\"` (or \
             `export AMORA_MODEL_PATH=$(scripts/lib/model.sh model)`) before these tests"
        )
    });
    assert!(path.is_file(), "AMORA_MODEL_PATH={} is not a file: run scripts/lib/model.sh", path.display());
    path
}

/// llama.cpp's server binary, built by `scripts/lib/model.sh llama-server`.
pub fn llama_server_binary() -> PathBuf {
    let path = std::env::var_os("AMORA_LLAMA_SERVER").map(PathBuf::from).unwrap_or_else(|| {
        panic!(
            "AMORA_LLAMA_SERVER is not set: run `eval \"$(scripts/lib/model.sh env)\"` (or \
             `export AMORA_LLAMA_SERVER=$(scripts/lib/model.sh llama-server)`) before these tests"
        )
    });
    assert!(path.is_file(), "AMORA_LLAMA_SERVER={} is not a file: run scripts/lib/model.sh", path.display());
    path
}

/// llama.cpp's in-process library (`libamora_llama.so`), built by `scripts/lib/model.sh llama-shim`.
pub fn llama_library() -> PathBuf {
    let path = std::env::var_os("AMORA_LLAMA_LIB").map(PathBuf::from).unwrap_or_else(|| {
        panic!(
            "AMORA_LLAMA_LIB is not set: run `eval \"$(scripts/lib/model.sh env)\"` (or \
             `export AMORA_LLAMA_LIB=$(scripts/lib/model.sh llama-shim)`) before these tests"
        )
    });
    assert!(path.is_file(), "AMORA_LLAMA_LIB={} is not a file: run scripts/lib/model.sh", path.display());
    path
}
