//! Blog posts (spec section 2: `/blog` and `/blogs/{blogKey}`), written in Markdown by the
//! operator and kept in the store with the sanitised HTML made from it.

use serde::Serialize;

use crate::Invalid;

const MAX_KEY_LEN: usize = 80;
pub const MAX_TITLE_LEN: usize = 200;
pub const MAX_DESCRIPTION_LEN: usize = 500;
/// A post is an article, not a book: 200 KB of Markdown is far past any real one.
pub const MAX_MARKDOWN_LEN: usize = 200_000;

/// The post's address: `/blogs/{key}`. Lowercase letters, digits and single hyphens, so it
/// is the same in every URL and file name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct BlogKey(String);

impl BlogKey {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let valid_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
        let ok = !raw.is_empty()
            && raw.len() <= MAX_KEY_LEN
            && raw.chars().all(valid_char)
            && !raw.starts_with('-')
            && !raw.ends_with('-')
            && !raw.contains("--");
        if !ok {
            return Err(Invalid::new("key", "must be 1 to 80 lowercase letters or digits joined by single hyphens"));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for BlogKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A publication day, `YYYY-MM-DD`; as text it sorts in time order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct BlogDate(String);

impl BlogDate {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let invalid = || Invalid::new("date", "must be a real day written YYYY-MM-DD");
        let parts: Vec<&str> = raw.split('-').collect();
        let [year, month, day] = parts.as_slice() else { return Err(invalid()) };
        if year.len() != 4 || month.len() != 2 || day.len() != 2 {
            return Err(invalid());
        }
        let number = |text: &str| text.parse::<u32>().map_err(|_| invalid());
        let (year, month, day) = (number(year)?, number(month)?, number(day)?);
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let days_in_month = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return Err(invalid()),
        };
        if !(2000..=9999).contains(&year) || day == 0 || day > days_in_month {
            return Err(invalid());
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A published post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlogPost {
    pub key: BlogKey,
    pub title: String,
    /// One or two sentences: the list's teaser and the page's meta description.
    pub description: String,
    pub date: BlogDate,
    /// The cover picture: a path on this site (`/blog/covers/...`, `/media/...`) or an https URL.
    pub cover: String,
    /// What the operator wrote.
    pub markdown: String,
    /// The Markdown rendered and sanitised, ready to show.
    pub html: String,
    /// From when (seconds since the epoch) the post is on the blog; a time to come
    /// schedules it. `None`: unpublished, kept but shown to nobody.
    pub publish_at: Option<i64>,
}

impl BlogPost {
    /// Whether readers see the post at `now` (seconds since the epoch).
    pub fn is_live(&self, now: i64) -> bool {
        self.publish_at.is_some_and(|at| at <= now)
    }
}

/// Checks the fields a person writes (the front matter and body of a post).
pub fn check_texts(title: &str, description: &str, cover: &str, markdown: &str) -> Result<(), Invalid> {
    if title.trim().is_empty() || title.chars().count() > MAX_TITLE_LEN {
        return Err(Invalid::new("title", format!("must be 1 to {MAX_TITLE_LEN} characters")));
    }
    if description.trim().is_empty() || description.chars().count() > MAX_DESCRIPTION_LEN {
        return Err(Invalid::new("description", format!("must be 1 to {MAX_DESCRIPTION_LEN} characters")));
    }
    let cover_ok = (cover.starts_with('/') && !cover.starts_with("//")) || cover.starts_with("https://");
    if !cover_ok || cover.chars().any(|c| c.is_whitespace() || c == '"' || c == '<' || c == '>') {
        return Err(Invalid::new("cover", "must be a path on this site (/...) or an https:// URL"));
    }
    if markdown.trim().is_empty() || markdown.len() > MAX_MARKDOWN_LEN {
        return Err(Invalid::new("body", format!("must be 1 to {MAX_MARKDOWN_LEN} bytes of Markdown")));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_url_safe_slugs() {
        assert!(BlogKey::parse("what-is-an-ai-companion").is_ok());
        assert!(BlogKey::parse("top-10-2024").is_ok());
        for bad in ["", "Upper", "two--hyphens", "-lead", "trail-", "sp ace", "a/b", &"x".repeat(81)] {
            assert!(BlogKey::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_are_real_days() {
        assert!(BlogDate::parse("2024-02-29").is_ok());
        for bad in ["2023-02-29", "2024-13-01", "2024-1-01", "24-01-01", "2024-04-31", "yesterday"] {
            assert!(BlogDate::parse(bad).is_err(), "{bad}");
        }
        assert!(BlogDate::parse("2024-10-20").unwrap() < BlogDate::parse("2024-11-02").unwrap());
    }

    #[test]
    fn covers_are_local_paths_or_https() {
        assert!(check_texts("T", "D", "/blog/covers/a.svg", "body").is_ok());
        assert!(check_texts("T", "D", "https://cdn.example/a.jpg", "body").is_ok());
        assert!(check_texts("T", "D", "javascript:alert(1)", "body").is_err());
        assert!(check_texts("T", "D", "//evil.example/a.jpg", "body").is_err());
        assert!(check_texts(" ", "D", "/a.svg", "body").is_err());
    }
}
