//! Amora's AI providers: the chat, image and voice models behind traits, so that the
//! embedded models and OpenAI-compatible services are interchangeable (ARCHITECTURE.md,
//! "AI providers"). The providers arrive with the chat feature; this crate holds the place
//! in the dependency graph `server → actors → {ai, store} → domain`.
