//! The frontend's translations, read once from the build (`locales/<lng>/<namespace>.json`
//! for the namespaces public pages show: `translation`, `legal`, `topics`), so the server's
//! head and body say what the client will say.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::LANGUAGES;

/// The namespaces the server renders from.
const NAMESPACES: [&str; 3] = ["translation", "legal", "topics"];

#[derive(Debug, Default)]
pub struct Texts {
    /// `translation.json` by language.
    by_language: HashMap<&'static str, Value>,
    /// The other namespaces, by namespace and language.
    others: HashMap<(&'static str, &'static str), Value>,
}

impl Texts {
    /// Reads every language's translation file under `static_dir`; a missing or broken
    /// file leaves that language to fall back to English.
    pub fn load(static_dir: &Path) -> Self {
        let mut texts = Self::default();
        for lng in LANGUAGES {
            for namespace in NAMESPACES {
                let path = static_dir.join("locales").join(lng).join(format!("{namespace}.json"));
                let Ok(text) = std::fs::read_to_string(&path) else { continue };
                match serde_json::from_str::<Value>(&text) {
                    Ok(value) if namespace == "translation" => {
                        texts.by_language.insert(lng, value);
                    }
                    Ok(value) => {
                        texts.others.insert((namespace, lng), value);
                    }
                    Err(error) => tracing::warn!(path = %path.display(), %error, "a translation file is not JSON"),
                }
            }
        }
        texts
    }

    /// The value (text, list or object) at a dotted `key` of `namespace` in `lng`, else in
    /// English.
    pub fn value(&self, namespace: &str, lng: &str, key: &str) -> Option<&Value> {
        let file = |lng: &str| {
            if namespace == "translation" {
                self.by_language.get(lng)
            } else {
                self.others.iter().find(|((ns, l), _)| *ns == namespace && *l == lng).map(|(_, v)| v)
            }
        };
        let at = |lng: &str| {
            let mut node = file(lng)?;
            for part in key.split('.') {
                node = node.get(part)?;
            }
            Some(node).filter(|node| !node.is_null())
        };
        at(lng).or_else(|| at("en"))
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
