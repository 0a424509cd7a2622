//! The header of a GGUF file: its metadata (key, value pairs), read without its tensors.
//!
//! Both engines need only this from the file on our side: the tokenizer's vocabulary, merges
//! and chat template, the model's name and trained context length. llama.cpp reads the
//! weights itself, so with this reader the server needs no tensor library unless it is built
//! with the candle engine (`--features candle`). The format is llama.cpp's
//! (`gguf-py/gguf/constants.py`, GGUF versions 2 and 3: little-endian, 64-bit counts).

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use crate::AiError;

const MAGIC: [u8; 4] = *b"GGUF";
/// No key or string of a real model comes near this; a corrupt length is refused before it
/// allocates (the vocabulary is an array of short strings, the chat template a few KB).
const MAX_STRING_BYTES: u64 = 16 << 20;
/// Above any vocabulary (Gemma's 262,144 tokens; merges a little more).
const MAX_ARRAY_ITEMS: u64 = 1 << 24;
const MAX_KEYS: u64 = 1 << 16;

/// One metadata value.
#[derive(Debug, Clone, PartialEq)]
pub enum GgufValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    String(String),
    Array(Vec<GgufValue>),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl GgufValue {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[GgufValue]> {
        match self {
            Self::Array(items) => Some(items),
            _ => None,
        }
    }

    /// An unsigned or non-negative signed integer, whatever width the writer chose.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Self::U8(v) => Some(u64::from(v)),
            Self::U16(v) => Some(u64::from(v)),
            Self::U32(v) => Some(u64::from(v)),
            Self::U64(v) => Some(v),
            Self::I8(v) => u64::try_from(v).ok(),
            Self::I16(v) => u64::try_from(v).ok(),
            Self::I32(v) => u64::try_from(v).ok(),
            Self::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    pub fn as_u32(&self) -> Option<u32> {
        self.as_u64().and_then(|v| u32::try_from(v).ok())
    }
}

/// The metadata of a GGUF file.
#[derive(Debug, Clone, Default)]
pub struct GgufMetadata {
    pub version: u32,
    pub tensor_count: u64,
    pub values: HashMap<String, GgufValue>,
}

impl GgufMetadata {
    /// Reads the header of the GGUF file at `path`.
    pub fn from_file(path: &Path) -> Result<Self, AiError> {
        let file = std::fs::File::open(path).map_err(|e| AiError::Unavailable(format!("{}: {e}", path.display())))?;
        Self::read(&mut std::io::BufReader::new(file))
            .map_err(|e| AiError::BadRequest(format!("{} is not a GGUF file: {e}", path.display())))
    }

    /// Reads a GGUF header from `reader` (left at the tensor index).
    pub fn read(reader: &mut impl Read) -> Result<Self, String> {
        let mut magic = [0u8; 4];
        reader.read_exact(&mut magic).map_err(|e| format!("no header: {e}"))?;
        if magic != MAGIC {
            return Err(format!("the file starts with {magic:?}, not GGUF"));
        }
        let version = read_u32(reader)?;
        if !(2..=3).contains(&version) {
            return Err(format!("GGUF version {version} is not supported (2 and 3 are)"));
        }
        let tensor_count = read_u64(reader)?;
        let key_count = read_u64(reader)?;
        if key_count > MAX_KEYS {
            return Err(format!("{key_count} metadata keys"));
        }
        let mut values = HashMap::new();
        for _ in 0..key_count {
            let key = read_string(reader)?;
            let kind = read_u32(reader)?;
            let value = read_value(reader, kind)?;
            values.insert(key, value);
        }
        Ok(Self { version, tensor_count, values })
    }

    pub fn get(&self, key: &str) -> Option<&GgufValue> {
        self.values.get(key)
    }

    pub fn string(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(GgufValue::as_str)
    }

    pub fn u32(&self, key: &str) -> Option<u32> {
        self.get(key).and_then(GgufValue::as_u32)
    }

    pub fn u64(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(GgufValue::as_u64)
    }

    /// The model's name: `general.name`, else the file's stem.
    pub fn model_name(&self, path: &Path) -> String {
        self.string("general.name")
            .map(str::to_owned)
            .unwrap_or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default())
    }

    /// The context length the model was trained for (`{architecture}.context_length`).
    pub fn trained_context(&self) -> Option<usize> {
        let architecture = self.string("general.architecture")?;
        self.u64(&format!("{architecture}.context_length")).and_then(|n| usize::try_from(n).ok())
    }
}

fn read_bytes<const N: usize>(reader: &mut impl Read) -> Result<[u8; N], String> {
    let mut bytes = [0u8; N];
    reader.read_exact(&mut bytes).map_err(|e| format!("the header ends early: {e}"))?;
    Ok(bytes)
}

fn read_u32(reader: &mut impl Read) -> Result<u32, String> {
    read_bytes(reader).map(u32::from_le_bytes)
}

fn read_u64(reader: &mut impl Read) -> Result<u64, String> {
    read_bytes(reader).map(u64::from_le_bytes)
}

fn read_string(reader: &mut impl Read) -> Result<String, String> {
    let length = read_u64(reader)?;
    if length > MAX_STRING_BYTES {
        return Err(format!("a string of {length} bytes"));
    }
    let mut bytes = vec![0u8; length as usize];
    reader.read_exact(&mut bytes).map_err(|e| format!("the header ends early: {e}"))?;
    // llama.cpp's writers emit UTF-8; a stray byte is kept readable rather than refused.
    Ok(String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

fn read_value(reader: &mut impl Read, kind: u32) -> Result<GgufValue, String> {
    Ok(match kind {
        0 => GgufValue::U8(u8::from_le_bytes(read_bytes(reader)?)),
        1 => GgufValue::I8(i8::from_le_bytes(read_bytes(reader)?)),
        2 => GgufValue::U16(u16::from_le_bytes(read_bytes(reader)?)),
        3 => GgufValue::I16(i16::from_le_bytes(read_bytes(reader)?)),
        4 => GgufValue::U32(read_u32(reader)?),
        5 => GgufValue::I32(i32::from_le_bytes(read_bytes(reader)?)),
        6 => GgufValue::F32(f32::from_le_bytes(read_bytes(reader)?)),
        7 => GgufValue::Bool(read_bytes::<1>(reader)?[0] != 0),
        8 => GgufValue::String(read_string(reader)?),
        9 => {
            let item_kind = read_u32(reader)?;
            if item_kind == 9 {
                return Err("an array of arrays".into());
            }
            let length = read_u64(reader)?;
            if length > MAX_ARRAY_ITEMS {
                return Err(format!("an array of {length} items"));
            }
            let mut items = Vec::with_capacity(length as usize);
            for _ in 0..length {
                items.push(read_value(reader, item_kind)?);
            }
            GgufValue::Array(items)
        }
        10 => GgufValue::U64(read_u64(reader)?),
        11 => GgufValue::I64(i64::from_le_bytes(read_bytes(reader)?)),
        12 => GgufValue::F64(f64::from_le_bytes(read_bytes(reader)?)),
        other => return Err(format!("unknown value type {other}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }

    fn header(version: u32, entries: &[(&str, u32, Vec<u8>)]) -> Vec<u8> {
        let mut out = b"GGUF".to_vec();
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes());
        out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (key, kind, value) in entries {
            string(&mut out, key);
            out.extend_from_slice(&kind.to_le_bytes());
            out.extend_from_slice(value);
        }
        out
    }

    #[test]
    fn reads_strings_integers_and_arrays() {
        let mut name = Vec::new();
        string(&mut name, "SmolLM2");
        let mut tokens = 8u32.to_le_bytes().to_vec();
        tokens.extend_from_slice(&2u64.to_le_bytes());
        string(&mut tokens, "a");
        string(&mut tokens, "é");
        let bytes = header(
            3,
            &[
                ("general.name", 8, name),
                ("general.architecture", 8, {
                    let mut v = Vec::new();
                    string(&mut v, "llama");
                    v
                }),
                ("llama.context_length", 4, 8192u32.to_le_bytes().to_vec()),
                ("tokenizer.ggml.bos_token_id", 5, 1i32.to_le_bytes().to_vec()),
                ("tokenizer.ggml.tokens", 9, tokens),
            ],
        );
        let meta = GgufMetadata::read(&mut bytes.as_slice()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(meta.string("general.name"), Some("SmolLM2"));
        assert_eq!(meta.trained_context(), Some(8192));
        assert_eq!(meta.u32("tokenizer.ggml.bos_token_id"), Some(1));
        let tokens: Vec<_> = meta
            .get("tokenizer.ggml.tokens")
            .and_then(GgufValue::as_array)
            .unwrap_or_default()
            .iter()
            .filter_map(GgufValue::as_str)
            .collect();
        assert_eq!(tokens, ["a", "é"]);
    }

    #[test]
    fn refuses_other_files_and_absurd_lengths() {
        assert!(GgufMetadata::read(&mut b"PK\x03\x04rest".as_slice()).is_err());
        assert!(GgufMetadata::read(&mut header(1, &[]).as_slice()).is_err());
        let mut huge = b"GGUF".to_vec();
        huge.extend_from_slice(&3u32.to_le_bytes());
        huge.extend_from_slice(&0u64.to_le_bytes());
        huge.extend_from_slice(&1u64.to_le_bytes());
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        let error = GgufMetadata::read(&mut huge.as_slice()).err().unwrap_or_default();
        assert!(error.contains("bytes"), "{error}");
        // A header cut short is an error, not a panic.
        let whole = header(3, &[("llama.context_length", 4, 8192u32.to_le_bytes().to_vec())]);
        assert!(GgufMetadata::read(&mut &whole[..whole.len() - 2]).is_err());
    }
}
