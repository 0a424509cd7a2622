//! Character tags as a catalogue filter: `getCharacterList`'s optional `tags` (docs/api.md).
//! Tags match case-insensitively, so a tag is kept in one folded (lower-case) form both when
//! the stores index a character's tags and when a request names them.

use crate::Invalid;

const MAX_TAG_CHARS: usize = 30;
/// A landing page asks for four tags; a few more leave room without letting one request
/// fan out over many index partitions.
pub const MAX_FILTER_TAGS: usize = 8;

/// One tag in its folded form: 1 to 30 letters, digits, spaces, '-' or '_', lower case.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TagKey(String);

impl TagKey {
    /// Parses a tag a client sent: trimmed, then checked and folded.
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let trimmed = raw.trim();
        let valid_char = |c: char| c.is_alphanumeric() || c == ' ' || c == '-' || c == '_';
        let count = trimmed.chars().count();
        if count == 0 || count > MAX_TAG_CHARS || !trimmed.chars().all(valid_char) {
            return Err(Invalid::new("tags", "each tag must be 1 to 30 letters, digits, spaces, '-' or '_'"));
        }
        Ok(Self(trimmed.to_lowercase()))
    }

    /// The index key of a tag a character already carries. Stored tags were checked when
    /// the character was made; here they are only folded, so that every stored tag can
    /// be found by the same spelling in any case.
    pub fn of_stored(tag: &str) -> Self {
        Self(tag.trim().to_lowercase())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The distinct folded keys of a character's tags, in a stable order (for index upkeep).
pub fn stored_keys(tags: &[String]) -> Vec<TagKey> {
    let mut keys: Vec<TagKey> = tags.iter().map(|tag| TagKey::of_stored(tag)).filter(|k| !k.0.is_empty()).collect();
    keys.sort();
    keys.dedup();
    keys
}

/// A request's tag filter: 1 to 8 distinct tags, of which a listed character has at least one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagFilter(Vec<TagKey>);

impl TagFilter {
    pub fn parse(raw: &[String]) -> Result<Self, Invalid> {
        if raw.is_empty() || raw.len() > MAX_FILTER_TAGS {
            return Err(Invalid::new("tags", format!("must name 1 to {MAX_FILTER_TAGS} tags")));
        }
        let mut keys = raw.iter().map(|tag| TagKey::parse(tag)).collect::<Result<Vec<_>, _>>()?;
        keys.sort();
        keys.dedup();
        Ok(Self(keys))
    }

    pub fn keys(&self) -> &[TagKey] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(raw: &str) -> TagKey {
        TagKey::parse(raw).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn tags_fold_case_and_trim() {
        assert_eq!(key(" Flirty ").as_str(), "flirty");
        assert_eq!(key("Slow-Burn romance").as_str(), "slow-burn romance");
        assert_eq!(key("ÉTÉ").as_str(), "été");
        assert_eq!(TagKey::of_stored("Bold"), key("bOLD"));
    }

    #[test]
    fn bad_tags_are_refused() {
        for bad in ["", "   ", "a%b", "x'; DROP", &"a".repeat(31), "tab\there"] {
            assert!(TagKey::parse(bad).is_err(), "{bad:?}");
        }
        assert!(TagKey::parse(&"é".repeat(30)).is_ok(), "counted in characters, not bytes");
    }

    #[test]
    fn a_filter_names_one_to_eight_distinct_tags() {
        assert!(TagFilter::parse(&[]).is_err());
        let nine: Vec<String> = (0..9).map(|n| format!("t{n}")).collect();
        assert!(TagFilter::parse(&nine).is_err());
        let filter = TagFilter::parse(&["Bold".into(), "bold".into(), "Shy".into()]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(filter.keys().iter().map(TagKey::as_str).collect::<Vec<_>>(), vec!["bold", "shy"]);
        assert_eq!(stored_keys(&["Shy".into(), "shy".into(), " ".into()]), vec![key("shy")]);
    }
}
