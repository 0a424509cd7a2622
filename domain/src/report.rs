//! Reports of characters and replies that break the community guidelines (spec section 1:
//! "Reports go through a Report function"). The reasons are the guidelines' rules.

use serde::Serialize;

use crate::Invalid;
use crate::account::UserId;
use crate::character::CharacterId;
use crate::chat::{EntryId, MessageId};

/// Longest note a reporter may add, in characters.
pub const MAX_NOTE_CHARS: usize = 1000;

/// Which rule of the community guidelines a report says was broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ReportReason {
    /// A minor, or a character "aged up" to pass as an adult.
    Minor,
    /// An overly realistic or real person's likeness.
    RealPerson,
    /// Illegal content.
    Illegal,
    /// Non-consensual content.
    NonConsensual,
    Hate,
    Harassment,
    Spam,
    Impersonation,
    Other,
}

impl ReportReason {
    pub const ALL: [ReportReason; 9] = [
        ReportReason::Minor,
        ReportReason::RealPerson,
        ReportReason::Illegal,
        ReportReason::NonConsensual,
        ReportReason::Hate,
        ReportReason::Harassment,
        ReportReason::Spam,
        ReportReason::Impersonation,
        ReportReason::Other,
    ];

    /// How the API and every store write the reason.
    pub fn code(self) -> &'static str {
        match self {
            ReportReason::Minor => "minor",
            ReportReason::RealPerson => "realPerson",
            ReportReason::Illegal => "illegal",
            ReportReason::NonConsensual => "nonConsensual",
            ReportReason::Hate => "hate",
            ReportReason::Harassment => "harassment",
            ReportReason::Spam => "spam",
            ReportReason::Impersonation => "impersonation",
            ReportReason::Other => "other",
        }
    }

    pub fn parse(code: &str) -> Result<Self, Invalid> {
        Self::ALL
            .into_iter()
            .find(|reason| reason.code() == code)
            .ok_or_else(|| Invalid::new("reason", "must be one of the community guidelines' reasons"))
    }
}

/// The reporter's own words: trimmed, at most 1,000 characters, no control characters but
/// line breaks. May be empty, except for the reason `other`, which needs it.
pub fn parse_note(raw: &str, reason: ReportReason) -> Result<String, Invalid> {
    let note = raw.trim();
    if note.chars().count() > MAX_NOTE_CHARS {
        return Err(Invalid::new("note", format!("must be at most {MAX_NOTE_CHARS} characters")));
    }
    if note.chars().any(|c| c.is_control() && c != '\n' && c != '\r' && c != '\t') {
        return Err(Invalid::new("note", "must not hold control characters"));
    }
    if note.is_empty() && reason == ReportReason::Other {
        return Err(Invalid::new("note", "must say what is wrong when the reason is 'other'"));
    }
    Ok(note.replace("\r\n", "\n"))
}

/// A filed report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Time-ordered, as message ids are.
    pub report_id: EntryId,
    pub reporter_id: UserId,
    pub character_id: CharacterId,
    /// The reply reported, when it is a reply rather than the character itself.
    pub message_id: Option<MessageId>,
    pub reason: ReportReason,
    pub note: String,
    /// Unix seconds.
    pub created_at: i64,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reasons_round_trip_through_their_codes() {
        for reason in ReportReason::ALL {
            assert_eq!(ReportReason::parse(reason.code()), Ok(reason));
        }
        assert!(ReportReason::parse("boring").is_err());
    }

    #[test]
    fn notes_are_bounded_and_other_needs_one() {
        assert_eq!(parse_note("  looks 15  ", ReportReason::Minor).unwrap(), "looks 15");
        assert_eq!(parse_note("", ReportReason::Spam).unwrap(), "");
        assert!(parse_note(" ", ReportReason::Other).is_err());
        assert!(parse_note(&"x".repeat(1001), ReportReason::Hate).is_err());
        assert!(parse_note("a\u{0}b", ReportReason::Hate).is_err());
    }
}
