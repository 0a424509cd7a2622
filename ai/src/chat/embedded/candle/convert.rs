//! One-time conversion of a GGUF's slow block types to ones with SIMD kernels in candle.
//!
//! candle multiplies Q4_1 (and Q5_0, Q5_1) weights with scalar code; Q8_0 and Q4_0 have
//! AVX2/NEON kernels and run about 2.5 times faster. The converted file is written next to
//! the original as `<name>.<q8_0|q4_0>.gguf`, with the original's SHA-256 in its metadata
//! (`amora.source.sha256`) and in a sidecar `<converted>.sha256`, so a changed original is
//! converted again and an unchanged one never is.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use candle_core::Device;
use candle_core::quantized::{GgmlDType, QTensor, gguf_file};
use sha2::{Digest, Sha256};

use crate::AiError;
use crate::chat::Requantize;

/// The metadata key holding the original file's SHA-256 in a converted file.
pub const SOURCE_SHA256_KEY: &str = "amora.source.sha256";

fn io(path: &Path, error: std::io::Error) -> AiError {
    AiError::Unavailable(format!("{}: {error}", path.display()))
}

/// The lowercase hex SHA-256 of a file.
pub fn sha256_file(path: &Path) -> Result<String, AiError> {
    let mut file = BufReader::with_capacity(1 << 20, File::open(path).map_err(|e| io(path, e))?);
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(|e| io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Block types whose matrix product candle runs in scalar code.
fn is_slow(dtype: GgmlDType) -> bool {
    matches!(dtype, GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q5_1 | GgmlDType::Q8_1)
}

/// Where the converted copy of `original` lives.
pub fn converted_path(original: &Path, target: Requantize) -> Option<PathBuf> {
    let suffix = match target {
        Requantize::Q8_0 => "q8_0",
        Requantize::Q4_0 => "q4_0",
        Requantize::None => return None,
    };
    let stem = original.file_stem()?.to_string_lossy().into_owned();
    Some(original.with_file_name(format!("{stem}.{suffix}.gguf")))
}

/// Returns the file to load for `original`: the original itself when it needs no
/// conversion (or `target` is [`Requantize::None`]), else its converted copy, made now
/// unless one made from the same original (same SHA-256) is already there.
pub fn prepare_model(original: &Path, target: Requantize) -> Result<PathBuf, AiError> {
    let Some(converted) = converted_path(original, target) else {
        return Ok(original.to_path_buf());
    };
    // One conversion at a time in this process: models loaded at once wait for the first.
    static CONVERTING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = CONVERTING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dtype = match target {
        Requantize::Q4_0 => GgmlDType::Q4_0,
        _ => GgmlDType::Q8_0,
    };
    let mut reader = BufReader::new(File::open(original).map_err(|e| io(original, e))?);
    let content = gguf_file::Content::read(&mut reader)
        .map_err(|e| AiError::BadRequest(format!("{} is not a GGUF file: {e}", original.display())))?;
    if !content.tensor_infos.values().any(|t| is_slow(t.ggml_dtype)) {
        return Ok(original.to_path_buf());
    }

    let sha = sha256_file(original)?;
    let sidecar = sidecar_path(&converted);
    if converted.is_file()
        && let Ok(recorded) = std::fs::read_to_string(&sidecar)
        && recorded.split_whitespace().next() == Some(sha.as_str())
    {
        return Ok(converted);
    }

    let started = std::time::Instant::now();
    convert(&content, &mut reader, original, &converted, dtype, &sha)?;
    let name = original.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    std::fs::write(&sidecar, format!("{sha}  {name}\n")).map_err(|e| io(&sidecar, e))?;
    tracing::info!(
        from = %original.display(),
        to = %converted.display(),
        ?dtype,
        ms = started.elapsed().as_millis() as u64,
        "converted the chat model's weights"
    );
    Ok(converted)
}

fn sidecar_path(converted: &Path) -> PathBuf {
    let mut name = converted.as_os_str().to_owned();
    name.push(".sha256");
    PathBuf::from(name)
}

fn convert<R: std::io::Read + std::io::Seek>(
    content: &gguf_file::Content,
    reader: &mut R,
    original: &Path,
    converted: &Path,
    dtype: GgmlDType,
    sha: &str,
) -> Result<(), AiError> {
    // Tensors in file order, so the copy is laid out like the original.
    let mut infos: Vec<_> = content.tensor_infos.iter().collect();
    infos.sort_by_key(|(_, info)| info.offset);
    let mut tensors: Vec<(String, QTensor)> = Vec::with_capacity(infos.len());
    for (name, info) in infos {
        let tensor = content.tensor(reader, name, &Device::Cpu)?;
        let cols = info.shape.dims().last().copied().unwrap_or(0);
        let tensor = if is_slow(info.ggml_dtype) && cols % dtype.block_size() == 0 {
            QTensor::quantize(&tensor.dequantize(&Device::Cpu)?, dtype)?
        } else {
            tensor
        };
        tensors.push((name.clone(), tensor));
    }

    // llama.cpp's file types: 7 = mostly Q8_0, 2 = mostly Q4_0.
    let file_type = gguf_file::Value::U32(if dtype == GgmlDType::Q8_0 { 7 } else { 2 });
    let source = gguf_file::Value::String(sha.to_owned());
    let mut metadata: Vec<(&str, &gguf_file::Value)> = content
        .metadata
        .iter()
        .filter(|(k, _)| k.as_str() != "general.file_type" && k.as_str() != SOURCE_SHA256_KEY)
        .map(|(k, v)| (k.as_str(), v))
        .collect();
    metadata.sort_by_key(|(k, _)| {
        // general.architecture first, as llama.cpp's writer does; the rest by name.
        (*k != "general.architecture", k.to_string())
    });
    metadata.push(("general.file_type", &file_type));
    metadata.push((SOURCE_SHA256_KEY, &source));
    let tensor_refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();

    // Written aside and renamed, so a crash never leaves a half-written model to load.
    let dir = converted.parent().unwrap_or_else(|| Path::new("."));
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let temp = dir.join(format!(
        ".{}.{}-{nanos}.partial",
        converted.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        std::process::id()
    ));
    let result = (|| {
        let mut out = BufWriter::new(File::create(&temp).map_err(|e| io(&temp, e))?);
        gguf_file::write(&mut out, &metadata, &tensor_refs)?;
        out.flush().map_err(|e| io(&temp, e))?;
        std::fs::rename(&temp, converted).map_err(|e| io(converted, e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
        tracing::warn!(original = %original.display(), "could not write the converted model");
    }
    result
}
