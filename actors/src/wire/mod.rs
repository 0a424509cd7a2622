//! The wire vocabulary (docs/api.md): every shape a client sees, by feature — the events
//! a socket receives (`ServerEvent`), the actions it sends (`ClientAction`), and the views
//! of chat, images and voice they carry. The TypeScript the web app reads is generated
//! from these types (`wire_types`).
//!
//! This module depends on no other module of the crate, only on the domain (and the
//! store's plain records the views are made from): the actors that publish events import
//! it, never the other way round, so the vocabulary cannot pull the actors into a circle.

pub mod actions;
pub mod calls;
pub mod chat;
pub mod events;
pub mod groups;
pub mod images;
pub mod voice;
