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
    prepared_file("AMORA_LLAMA_SERVER", "llama-server")
}

/// llama.cpp's in-process library (`libamora_llama.so`), built by `scripts/lib/model.sh llama-shim`.
pub fn llama_library() -> PathBuf {
    prepared_file("AMORA_LLAMA_LIB", "llama-shim")
}

/// The file the environment variable `name` points at, which `scripts/lib/model.sh step`
/// prepares. Missing is a failure, never a skip.
fn prepared_file(name: &str, step: &str) -> PathBuf {
    let path = std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        panic!(
            "{name} is not set: run `eval \"$(scripts/lib/model.sh env)\"` (or \
             `export {name}=$(scripts/lib/model.sh {step})`) before these tests"
        )
    });
    assert!(path.is_file(), "{name}={} is not a file: run scripts/lib/model.sh", path.display());
    path
}
