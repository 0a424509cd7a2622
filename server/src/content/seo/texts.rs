//! The frontend's translations, read once from the build (`locales/<lng>/translation.json`),
//! so the server's head says what the client's `usePageMeta` will say.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::LANGUAGES;

#[derive(Debug, Default)]
pub struct Texts {
    by_language: HashMap<&'static str, Value>,
}

impl Texts {
    /// Reads every language's translation file under `static_dir`; a missing or broken
    /// file leaves that language to fall back to English.
    pub fn load(static_dir: &Path) -> Self {
        let mut by_language = HashMap::new();
        for lng in LANGUAGES {
            let path = static_dir.join("locales").join(lng).join("translation.json");
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            match serde_json::from_str::<Value>(&text) {
                Ok(value) => {
                    by_language.insert(lng, value);
                }
                Err(error) => tracing::warn!(path = %path.display(), %error, "a translation file is not JSON"),
            }
        }
        Self { by_language }
    }

    /// The non-empty text at a dotted `key` in `lng`, else in English.
    pub fn get(&self, lng: &str, key: &str) -> Option<&str> {
        self.exact(lng, key).or_else(|| self.exact("en", key))
    }

    fn exact(&self, lng: &str, key: &str) -> Option<&str> {
        let mut node = self.by_language.get(lng)?;
        for part in key.split('.') {
            node = node.get(part)?;
        }
        node.as_str().map(str::trim).filter(|text| !text.is_empty())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_translation_falls_back_to_english() {
        let dir = tempfile::tempdir().unwrap();
        for (lng, body) in
            [("en", r#"{"a":{"b":"Hello","c":"Only English"}}"#), ("de", r#"{"a":{"b":"Hallo","c":" "}}"#)]
        {
            std::fs::create_dir_all(dir.path().join("locales").join(lng)).unwrap();
            std::fs::write(dir.path().join("locales").join(lng).join("translation.json"), body).unwrap();
        }
        let texts = Texts::load(dir.path());
        assert_eq!(texts.get("de", "a.b"), Some("Hallo"));
        assert_eq!(texts.get("de", "a.c"), Some("Only English"));
        assert_eq!(texts.get("fr", "a.b"), Some("Hello"));
        assert_eq!(texts.get("de", "a.missing"), None);
    }
}
