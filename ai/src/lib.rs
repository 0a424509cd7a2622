//! Amora's AI providers: the chat, image, voice and speech-to-text models behind traits, so that the
//! embedded models and OpenAI-compatible services are interchangeable (ARCHITECTURE.md,
//! "AI providers").
//!
//! - [`chat`]: the [`chat::ChatModel`] trait, its request and streamed reply types, the
//!   embedded provider (a GGUF model run in-process on the CPU by llama.cpp, or by candle
//!   with `--features candle`) and the
//!   OpenAI-compatible provider (`/v1/chat/completions` with streaming), and
//!   [`chat::build`] to make one from [`chat::ModelSettings`].
//!
//! - [`image`]: the [`image::ImageModel`] trait and its backends.
//! - [`voice`]: the [`voice::VoiceModel`] trait and its backends.
//! - [`transcription`]: the [`transcription::SpeechToText`] trait, its backends and voice
//!   activity detection, for calls.
//! - [`moderation`]: the [`moderation::Classifier`] trait, moderation's second layer.
//!
//! Prompt building (persona, memories, history within a token budget) is not here: it
//! lives with the chat feature, which hands finished message lists to a [`chat::ChatModel`].

pub mod chat;
mod error;
pub mod image;
pub mod moderation;
pub mod transcription;
pub mod voice;

pub use error::AiError;
