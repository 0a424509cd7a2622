//! Amora's domain: the values the rest of the system passes around, each parsed once at
//! the edge so that code past the edge cannot hold an invalid one. No I/O, no framework.

pub mod account;
pub mod appearance;
pub mod blog;
pub mod character;
pub mod chat;
pub mod code;
pub mod creation;
pub mod gender;
pub mod group;
pub mod image;
pub mod moderation;
pub mod money;
pub mod paging;
pub mod payment;
pub mod persona;
pub mod recall;
pub mod report;
pub mod tag;
pub mod telemetry;
pub mod text;
pub mod viewer;

/// A value that failed to parse, with the field it came from and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct Invalid {
    pub field: &'static str,
    pub reason: String,
}

impl Invalid {
    pub fn new(field: &'static str, reason: impl Into<String>) -> Self {
        Self { field, reason: reason.into() }
    }
}
