//! The repository traits, one file per feature, named as the server's feature folders are
//! (docs/architecture.md, "Where does X live"). Both stores (`embedded/`, `cql/`)
//! implement every one; the crate root re-exports them all.

pub mod auth;
pub mod catalogue;
pub mod chat;
pub mod content;
pub mod creation;
pub mod images;
pub mod media;
pub mod memories;
pub mod moderation;
pub mod operators;
pub mod payments;
pub mod telemetry;
pub mod voice;
pub mod webhooks;
