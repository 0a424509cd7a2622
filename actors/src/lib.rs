//! Amora's actors: per-user and per-character state in front of the store and the AI
//! providers (ARCHITECTURE.md, "Actors: who owns what"). They arrive with the coin ledger
//! and realtime events; this crate holds their place in the dependency graph
//! `server → actors → {ai, store} → domain`.

pub use amora_store as store;
