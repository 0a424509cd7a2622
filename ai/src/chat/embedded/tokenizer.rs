//! The tokenizer and chat template of a GGUF model, built from the file's own metadata:
//! `tokenizer.ggml.tokens`, `.merges`, `.token_type`, the special ids, the pre-tokenizer
//! named by `tokenizer.ggml.pre`, and `tokenizer.chat_template`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::{BPE, Vocab};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{AddedToken, PreTokenizerWrapper, SplitDelimiterBehavior, Tokenizer};

use super::counts::RecentCounts;
use super::gguf::{GgufMetadata, GgufValue};
use crate::AiError;
use crate::chat::{ChatMessage, Role};

// llama.cpp's token types (`llama_token_type`).
const TYPE_CONTROL: u32 = 3;
const TYPE_USER_DEFINED: u32 = 4;

// The pre-tokenizer regex of Llama 3 style vocabularies (llama.cpp's LLAMA3 pre type).
const REGEX_LLAMA3: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

fn bad(message: impl Into<String>) -> AiError {
    AiError::BadRequest(message.into())
}

fn tk(error: tokenizers::Error) -> AiError {
    AiError::Internal(format!("tokenizer: {error}"))
}

/// A byte-level BPE tokenizer with the model's ChatML template.
#[derive(Clone)]
pub struct GgufTokenizer {
    /// Control tokens written in the text are read as control tokens.
    parsing: Tokenizer,
    /// Control tokens written in the text are plain text (for untrusted message content).
    plain: Tokenizer,
    tokens: Vec<String>,
    /// The bytes each token stands for; empty for control tokens.
    bytes: Vec<Vec<u8>>,
    control: Vec<bool>,
    ids: HashMap<String, u32>,
    bos: Option<u32>,
    eos: Option<u32>,
    unk: Option<u32>,
    im_start: u32,
    im_end: u32,
    default_system: Option<String>,
    pre: String,
    /// Each language's logit bias over the vocabulary (`language::language_bias`), built on
    /// first use and shared by the clones.
    language_biases: Arc<Mutex<HashMap<String, Arc<[f32]>>>>,
    /// Counts of the texts counted lately, shared by the clones (`counts.rs`).
    counts: Arc<RecentCounts>,
}

impl std::fmt::Debug for GgufTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GgufTokenizer")
            .field("vocab", &self.tokens.len())
            .field("pre", &self.pre)
            .field("bos", &self.bos)
            .field("eos", &self.eos)
            .finish_non_exhaustive()
    }
}

fn meta<'a>(content: &'a GgufMetadata, key: &str) -> Option<&'a GgufValue> {
    content.get(key)
}

fn meta_u32(content: &GgufMetadata, key: &str) -> Option<u32> {
    content.u32(key)
}

fn meta_strings(content: &GgufMetadata, key: &str) -> Result<Vec<String>, AiError> {
    let values = meta(content, key)
        .ok_or_else(|| bad(format!("the GGUF has no {key}")))?
        .as_array()
        .ok_or_else(|| bad(format!("{key} is not an array")))?;
    values
        .iter()
        .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| bad(format!("{key} holds a non-string"))))
        .collect()
}

/// GPT-2's map from bytes to the printable characters that byte-level vocabularies use.
fn byte_to_char() -> [char; 256] {
    let mut table = ['\0'; 256];
    let mut n = 0u32;
    for b in 0..=255u8 {
        let printable = matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
        let code = if printable {
            u32::from(b)
        } else {
            n += 1;
            255 + n
        };
        table[usize::from(b)] = char::from_u32(code).unwrap_or('\0');
    }
    table
}

impl GgufTokenizer {
    /// Reads the metadata of the GGUF file at `path` (not its tensors) and builds the tokenizer.
    pub fn from_file(path: &std::path::Path) -> Result<Self, AiError> {
        Self::from_gguf(&GgufMetadata::from_file(path)?)
    }

    /// Builds the tokenizer from the GGUF's metadata.
    pub fn from_gguf(content: &GgufMetadata) -> Result<Self, AiError> {
        let model = content.string("tokenizer.ggml.model").unwrap_or_default().to_owned();
        if model != "gpt2" {
            return Err(bad(format!("tokenizer.ggml.model {model:?} is not supported (only byte-level BPE, gpt2)")));
        }
        let tokens = meta_strings(content, "tokenizer.ggml.tokens")?;
        let merges = meta_strings(content, "tokenizer.ggml.merges")?
            .into_iter()
            .map(|m| m.split_once(' ').map(|(a, b)| (a.to_owned(), b.to_owned())))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| bad("a merge of tokenizer.ggml.merges is not two tokens"))?;
        let types: Vec<u32> = match meta(content, "tokenizer.ggml.token_type").and_then(GgufValue::as_array) {
            Some(values) => values.iter().map(|v| v.as_u32().unwrap_or(1)).collect(),
            None => vec![1; tokens.len()],
        };
        if types.len() != tokens.len() {
            return Err(bad("tokenizer.ggml.token_type and tokenizer.ggml.tokens differ in length"));
        }
        let bos = meta_u32(content, "tokenizer.ggml.bos_token_id");
        let eos = meta_u32(content, "tokenizer.ggml.eos_token_id");
        let unk = meta_u32(content, "tokenizer.ggml.unknown_token_id");
        let add_space_prefix = matches!(meta(content, "tokenizer.ggml.add_space_prefix"), Some(GgufValue::Bool(true)));
        let pre = content.string("tokenizer.ggml.pre").unwrap_or("default").to_owned();

        let vocab: Vocab = tokens.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
        let mut bpe = BPE::builder().vocab_and_merges(vocab, merges);
        if let Some(token) = unk.and_then(|id| tokens.get(id as usize)) {
            bpe = bpe.unk_token(token.clone());
        }
        let bpe = bpe.build().map_err(tk)?;

        // Mirrors llama.cpp's pre-tokenizer types (llama-vocab.cpp) with Hugging Face's pieces.
        let byte_level = ByteLevel::new(add_space_prefix, true, true);
        let pre_tokenizer: PreTokenizerWrapper = match pre.as_str() {
            // "\p{N}" then GPT-2's regex: single digits, then byte level.
            "smollm" | "codeshell" => Sequence::new(vec![Digits::new(true).into(), byte_level.into()]).into(),
            "default" | "gpt2" | "gpt-2" | "phi-2" => byte_level.into(),
            "llama3" | "llama-v3" | "llama-bpe" | "smaug-bpe" => {
                let split =
                    Split::new(SplitPattern::Regex(REGEX_LLAMA3.into()), SplitDelimiterBehavior::Isolated, false)
                        .map_err(tk)?;
                Sequence::new(vec![split.into(), ByteLevel::new(add_space_prefix, true, false).into()]).into()
            }
            other => return Err(bad(format!("tokenizer.ggml.pre {other:?} is not supported"))),
        };

        let mut parsing = Tokenizer::new(bpe);
        parsing.with_pre_tokenizer(Some(pre_tokenizer));
        parsing.with_decoder(Some(ByteLevelDecoder::new(add_space_prefix, true, true)));

        let mut control = vec![false; tokens.len()];
        let mut specials = Vec::new();
        let mut user_defined = Vec::new();
        for (id, (token, kind)) in tokens.iter().zip(&types).enumerate() {
            let is_special_id = [bos, eos, unk].contains(&Some(id as u32));
            if *kind == TYPE_CONTROL || is_special_id {
                control[id] = true;
                specials.push(AddedToken::from(token.clone(), true));
            } else if *kind == TYPE_USER_DEFINED {
                user_defined.push(AddedToken::from(token.clone(), false));
            }
        }
        parsing.add_special_tokens(specials).map_err(tk)?;
        parsing.add_tokens(user_defined).map_err(tk)?;
        let mut plain = parsing.clone();
        plain.set_encode_special_tokens(true);

        let to_byte = byte_to_char();
        let from_char: HashMap<char, u8> = to_byte.iter().enumerate().map(|(b, c)| (*c, b as u8)).collect();
        let bytes = tokens
            .iter()
            .zip(&types)
            .zip(&control)
            .map(|((token, kind), is_control)| {
                if *is_control {
                    Vec::new()
                } else if *kind == TYPE_USER_DEFINED {
                    token.as_bytes().to_vec()
                } else {
                    let mut out = Vec::with_capacity(token.len());
                    for c in token.chars() {
                        match from_char.get(&c) {
                            Some(b) => out.push(*b),
                            None => out.extend_from_slice(c.to_string().as_bytes()),
                        }
                    }
                    out
                }
            })
            .collect();

        let ids: HashMap<String, u32> = tokens.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
        let template = content.string("tokenizer.chat_template").unwrap_or_default().to_owned();
        let (im_start, im_end) = match (ids.get("<|im_start|>"), ids.get("<|im_end|>")) {
            (Some(s), Some(e)) if template.is_empty() || template.contains("<|im_start|>") => (*s, *e),
            _ => return Err(bad("the model's chat template is not ChatML (<|im_start|>role ... <|im_end|>)")),
        };
        let default_system = default_system_prompt(&template);

        Ok(Self {
            parsing,
            plain,
            tokens,
            bytes,
            control,
            ids,
            bos,
            eos,
            unk,
            im_start,
            im_end,
            default_system,
            pre,
            language_biases: Arc::default(),
            counts: Arc::default(),
        })
    }

    /// Token ids of `text`. With `parse_special`, control tokens written in the text
    /// (`<|im_start|>`) become those tokens; without, they are tokenized as plain text.
    pub fn encode(&self, text: &str, parse_special: bool) -> Result<Vec<u32>, AiError> {
        let tokenizer = if parse_special { &self.parsing } else { &self.plain };
        Ok(tokenizer.encode(text, false).map_err(tk)?.get_ids().to_vec())
    }

    /// Tokens of `text` as plain text (control tokens in it not read as such), as a prompt
    /// is measured against its budget; remembered for the texts counted lately.
    pub fn count(&self, text: &str) -> usize {
        self.counts.get_or_count(text, |text| {
            self.encode(text, false).map_or_else(|_| crate::chat::estimate_tokens(text), |ids| ids.len())
        })
    }

    /// Text of `ids`; control tokens are written out unless `skip_control`. Invalid UTF-8
    /// (a cut multi-byte character) becomes U+FFFD.
    pub fn decode(&self, ids: &[u32], skip_control: bool) -> String {
        let mut bytes = Vec::new();
        for &id in ids {
            if self.is_control(id) {
                if !skip_control && let Some(token) = self.tokens.get(id as usize) {
                    bytes.extend_from_slice(token.as_bytes());
                }
            } else {
                bytes.extend_from_slice(self.token_bytes(id));
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Hugging Face's own decoding of `ids`, for cross-checks.
    pub fn decode_with_hf(&self, ids: &[u32], skip_special: bool) -> Result<String, AiError> {
        self.parsing.decode(ids, skip_special).map_err(tk)
    }

    /// The raw bytes of one token (empty for control tokens and unknown ids).
    pub fn token_bytes(&self, id: u32) -> &[u8] {
        self.bytes.get(id as usize).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The token's text in the vocabulary (byte-level form).
    pub fn token(&self, id: u32) -> Option<&str> {
        self.tokens.get(id as usize).map(String::as_str)
    }

    /// The id of a token written as in the vocabulary.
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    pub fn is_control(&self, id: u32) -> bool {
        self.control.get(id as usize).copied().unwrap_or(false)
    }

    /// Whether sampling `id` ends the assistant's turn: end of sequence, `<|im_end|>`, or
    /// any other control token (which never belongs in a reply's text).
    pub fn ends_turn(&self, id: u32) -> bool {
        self.is_control(id) || Some(id) == self.eos || id == self.im_end
    }

    pub fn vocab_size(&self) -> usize {
        self.tokens.len()
    }

    pub fn bos_id(&self) -> Option<u32> {
        self.bos
    }
    pub fn eos_id(&self) -> Option<u32> {
        self.eos
    }
    pub fn unk_id(&self) -> Option<u32> {
        self.unk
    }

    /// The pre-tokenizer named in the GGUF (`tokenizer.ggml.pre`).
    pub fn pre_tokenizer(&self) -> &str {
        &self.pre
    }

    /// The logit bias that holds a reply to `language` (`super::language`; `strict`: English's
    /// common words never sampled), built once per language and strictness; `None` for a
    /// language it does not know.
    pub fn language_bias(&self, language: &str, strict: bool) -> Option<Arc<[f32]>> {
        let key = format!("{language}{}", if strict { " strict" } else { "" });
        let mut biases = self.language_biases.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(bias) = biases.get(&key) {
            return Some(bias.clone());
        }
        let bias: Arc<[f32]> = super::language::language_bias(&self.bytes, &self.control, language, strict)?.into();
        biases.insert(key, bias.clone());
        Some(bias)
    }

    /// The system prompt the template adds when a conversation has none.
    pub fn default_system_prompt(&self) -> Option<&str> {
        self.default_system.as_deref()
    }

    /// The prompt for `messages` in the model's ChatML template, with the assistant's turn
    /// opened, as text (control tokens written out).
    pub fn render_chat(&self, messages: &[ChatMessage]) -> String {
        let mut out = String::new();
        for (role, content) in self.turns(messages) {
            out.push_str(&format!("<|im_start|>{role}\n{content}<|im_end|>\n"));
        }
        out.push_str("<|im_start|>assistant\n");
        out
    }

    /// The prompt for `messages` as token ids. Message content is tokenized as plain text,
    /// so a user who types `<|im_end|>` cannot close their turn.
    pub fn encode_chat(&self, messages: &[ChatMessage]) -> Result<Vec<u32>, AiError> {
        let mut ids = Vec::new();
        for (role, content) in self.turns(messages) {
            ids.extend(self.encode_turn(role, content)?);
        }
        ids.extend(self.encode_reply_start()?);
        Ok(ids)
    }

    /// One message in the template: `<|im_start|>role\ncontent<|im_end|>\n`. The prompt is
    /// the concatenation of its turns, so each can be counted (and dropped) on its own.
    pub fn encode_turn(&self, role: &str, content: &str) -> Result<Vec<u32>, AiError> {
        let mut ids = vec![self.im_start];
        ids.extend(self.encode(&format!("{role}\n{content}"), false)?);
        ids.push(self.im_end);
        ids.extend(self.encode("\n", false)?);
        Ok(ids)
    }

    /// What opens the assistant's turn at the end of a prompt.
    pub fn encode_reply_start(&self) -> Result<Vec<u32>, AiError> {
        let mut ids = vec![self.im_start];
        ids.extend(self.encode("assistant\n", false)?);
        Ok(ids)
    }

    fn turns<'a>(&'a self, messages: &'a [ChatMessage]) -> impl Iterator<Item = (&'static str, &'a str)> + 'a {
        let default = match (messages.first().map(|m| m.role), &self.default_system) {
            (Some(Role::System), _) | (_, None) => None,
            (_, Some(system)) => Some(("system", system.as_str())),
        };
        default.into_iter().chain(messages.iter().map(|m| (m.role.as_str(), m.content.as_str())))
    }
}

/// The default system prompt of a ChatML template such as SmolLM2's:
/// `{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are …<|im_end|>\n' }}`.
fn default_system_prompt(template: &str) -> Option<String> {
    if !template.contains("!= 'system'") && !template.contains("!= \"system\"") {
        return None;
    }
    let start = template.find("<|im_start|>system")? + "<|im_start|>system".len();
    let rest = &template[start..];
    let rest = rest.strip_prefix("\\n").or_else(|| rest.strip_prefix('\n'))?;
    let end = rest.find("<|im_end|>")?;
    let prompt = &rest[..end];
    // A Jinja expression instead of literal text means there is no fixed default.
    if prompt.contains("{{") || prompt.contains('\'') || prompt.contains('+') {
        return None;
    }
    Some(prompt.replace("\\n", "\n"))
}

/// Turns token bytes into text as they come, holding back a character cut between tokens.
#[derive(Debug, Default)]
pub struct Utf8Decoder {
    pending: Vec<u8>,
}

impl Utf8Decoder {
    /// Adds `bytes`; returns the complete characters now available (maybe empty).
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(text) => {
                    out.push_str(text);
                    self.pending.clear();
                    return out;
                }
                Err(error) => {
                    let valid = error.valid_up_to();
                    out.push_str(&String::from_utf8_lossy(&self.pending[..valid]));
                    match error.error_len() {
                        // An incomplete character at the end: wait for the next token.
                        None => {
                            self.pending.drain(..valid);
                            return out;
                        }
                        // Bytes that no continuation can make valid.
                        Some(len) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            self.pending.drain(..valid + len);
                        }
                    }
                }
            }
        }
    }

    /// What is left at the end (an incomplete character becomes U+FFFD).
    pub fn finish(&mut self) -> String {
        let out = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_table_is_gpt2s() {
        let table = byte_to_char();
        assert_eq!(table[usize::from(b' ')], 'Ġ');
        assert_eq!(table[usize::from(b'\n')], 'Ċ');
        assert_eq!(table[usize::from(b'a')], 'a');
        let distinct: std::collections::HashSet<char> = table.iter().copied().collect();
        assert_eq!(distinct.len(), 256);
    }

    #[test]
    fn utf8_decoder_waits_for_whole_characters() {
        let mut d = Utf8Decoder::default();
        let heart = "❤️é".as_bytes();
        let mut out = String::new();
        for b in heart {
            out.push_str(&d.push(&[*b]));
        }
        assert_eq!(out, "❤️é");
        assert_eq!(d.push(&[0xE2, 0x9D]), "");
        assert_eq!(d.push(b"x"), "\u{FFFD}x");
        assert_eq!(d.push(&[0xF0, 0x9F]), "");
        assert_eq!(d.finish(), "\u{FFFD}");
    }

    #[test]
    fn finds_smollm2s_default_system_prompt() {
        let template = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}";
        assert_eq!(
            default_system_prompt(template).as_deref(),
            Some("You are a helpful AI assistant named SmolLM, trained by Hugging Face")
        );
        assert_eq!(default_system_prompt("{{'<|im_start|>' + message['role'] + '\n'}}"), None);
    }
}
