//! The landing pages' copy as published by operators (issue 33). The app is built with each
//! landing page's copy in every language (`frontend/public/locales/<lang>/topics.json`,
//! `{heading, intro, points, faq}`); an operator may publish a new version of a page's copy
//! in a language from the console (`admin::operator::content`). The newest version is what
//! the server-rendered page and the app show; older ones are kept. Versions are stored as
//! the legal texts' are (`LegalTextRepo`, the store's versioned texts), under the document
//! key `landing.<topic>`. Readers ask for it with `landing_routes`.

use amora_domain::gender::Gender;
use amora_store::{Store, StoreResult};
use serde_json::Value;

/// The landing pages: path, topic key (`topics.<key>`), catalogue and the tags whose
/// characters the grid shows. The same as the frontend's `features/home/lib/topics.ts`
/// (a test in `seo::body` reads that file and compares).
pub const TOPICS: &[(&str, &str, Gender, &[&str])] = &[
    ("/ai-sex", "aiSex", Gender::Girls, &["Passionate", "Flirty", "Bold", "Romantic"]),
    ("/ai-porn", "aiPorn", Gender::Girls, &["Bold", "Confident", "Passionate", "Flirty"]),
    ("/ai-nude", "aiNude", Gender::Girls, &["Artistic", "Confident", "Flirty", "Bold"]),
    ("/spicy-ai", "spicyAi", Gender::Girls, &["Flirty", "Playful", "Passionate", "Witty"]),
    ("/hentai-ai", "hentaiAi", Gender::Girls, &["Nerdy", "Playful", "Dreamy", "Artistic"]),
    ("/ai-gay", "aiGay", Gender::Guys, &["Romantic", "Confident", "Flirty", "Passionate"]),
    ("/ai-incest", "aiIncest", Gender::Girls, &["Mysterious", "Bold", "Passionate", "Ambitious"]),
    ("/ai-futa", "aiFuta", Gender::Girls, &["Bold", "Confident", "Mysterious", "Adventurous"]),
];

/// The landing pages' topic keys (`topics.<key>`).
pub fn topics() -> impl Iterator<Item = &'static str> {
    TOPICS.iter().map(|(_, topic, ..)| *topic)
}

/// The stored document key of a topic's copy, or `None` for a topic that is no landing page.
pub fn doc_key(topic: &str) -> Option<String> {
    topics().any(|known| known == topic).then(|| format!("landing.{topic}"))
}

const MAX_HEADING_CHARS: usize = 200;
const MAX_INTRO_CHARS: usize = 2_000;
const MAX_POINTS: usize = 10;
const MAX_POINT_CHARS: usize = 300;
const MAX_FAQ: usize = 20;
const MAX_QUESTION_CHARS: usize = 300;
const MAX_ANSWER_CHARS: usize = 2_000;

/// What is wrong with a page's copy an operator wants to publish, naming the field: the
/// shape the landing page shows (`frontend/src/features/home/lib/served-landing.ts` checks
/// it again). Unknown fields are refused, so nothing is stored that no page shows.
pub fn check_copy(copy: &Value) -> Result<(), String> {
    let object = copy.as_object().ok_or("copy: must be an object {heading, intro, points, faq}")?;
    if let Some(unknown) = object.keys().find(|key| !matches!(key.as_str(), "heading" | "intro" | "points" | "faq")) {
        return Err(format!("copy.{unknown}: not a field of a landing page's copy"));
    }
    let text = |value: Option<&Value>, field: &str, max: usize| -> Result<(), String> {
        let text = value.and_then(Value::as_str).map(str::trim).unwrap_or_default();
        if text.is_empty() || text.chars().count() > max {
            return Err(format!("{field}: required, 1 to {max} characters"));
        }
        Ok(())
    };
    text(object.get("heading"), "copy.heading", MAX_HEADING_CHARS)?;
    text(object.get("intro"), "copy.intro", MAX_INTRO_CHARS)?;
    let points = object.get("points").and_then(Value::as_array).ok_or("copy.points: must be a list")?;
    if points.len() > MAX_POINTS {
        return Err(format!("copy.points: at most {MAX_POINTS}"));
    }
    for (index, point) in points.iter().enumerate() {
        text(Some(point), &format!("copy.points[{index}]"), MAX_POINT_CHARS)?;
    }
    let faq = object.get("faq").and_then(Value::as_array).ok_or("copy.faq: must be a list")?;
    if faq.len() > MAX_FAQ {
        return Err(format!("copy.faq: at most {MAX_FAQ}"));
    }
    for (index, item) in faq.iter().enumerate() {
        if item.as_object().is_none_or(|item| item.keys().any(|key| key != "q" && key != "a")) {
            return Err(format!("copy.faq[{index}]: must be {{q, a}}"));
        }
        text(item.get("q"), &format!("copy.faq[{index}].q"), MAX_QUESTION_CHARS)?;
        text(item.get("a"), &format!("copy.faq[{index}].a"), MAX_ANSWER_CHARS)?;
    }
    Ok(())
}

/// The newest published copy of a topic's page in a language; `None` while it is as built.
pub async fn published(store: &Store, topic: &str, lang: &str) -> StoreResult<Option<Value>> {
    let Some(doc) = doc_key(topic) else { return Ok(None) };
    let Some(newest) = store.legal.legal_versions(&doc, lang, 1).await?.into_iter().next() else {
        return Ok(None);
    };
    match serde_json::from_str(&newest.body) {
        Ok(copy) => Ok(Some(copy)),
        // Written by `check_copy`'s caller only, so never expected; the built copy stands.
        Err(error) => {
            tracing::error!(%error, topic, lang, "a published landing copy is not JSON");
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refusal(copy: &Value) -> String {
        check_copy(copy).err().unwrap_or_default()
    }

    #[test]
    fn a_copy_needs_a_heading_an_intro_and_lists_of_text() {
        let good = json!({"heading": "H", "intro": "I", "points": ["p"], "faq": [{"q": "Q?", "a": "A."}]});
        assert_eq!(check_copy(&good), Ok(()));
        assert_eq!(check_copy(&json!({"heading": "H", "intro": "I", "points": [], "faq": []})), Ok(()));
        assert!(refusal(&json!({"intro": "I", "points": [], "faq": []})).starts_with("copy.heading"));
        assert!(refusal(&json!({"heading": " ", "intro": "I", "points": [], "faq": []})).starts_with("copy.heading"));
        let long = "x".repeat(MAX_HEADING_CHARS + 1);
        assert!(refusal(&json!({"heading": long, "intro": "I", "points": [], "faq": []})).starts_with("copy.heading"));
        assert!(refusal(&json!({"heading": "H", "points": [], "faq": []})).starts_with("copy.intro"));
        assert!(
            refusal(&json!({"heading": "H", "intro": "I", "points": [""], "faq": []})).starts_with("copy.points[0]")
        );
        assert!(refusal(&json!({"heading": "H", "intro": "I", "faq": []})).starts_with("copy.points"));
        let no_answer = json!({"heading": "H", "intro": "I", "points": [], "faq": [{"q": "Q"}]});
        assert!(refusal(&no_answer).starts_with("copy.faq[0].a"));
        let extra = json!({"heading": "H", "intro": "I", "points": [], "faq": [], "script": "x"});
        assert!(refusal(&extra).starts_with("copy.script"));
        assert!(refusal(&json!("H")).starts_with("copy:"));
    }

    #[test]
    fn every_landing_page_has_a_document_key_and_nothing_else_does() {
        assert_eq!(doc_key("aiSex").as_deref(), Some("landing.aiSex"));
        assert_eq!(topics().count(), 8);
        assert_eq!(doc_key("termsOfService"), None);
    }

    #[test]
    fn the_shipped_copy_passes_the_check() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../frontend/public/locales");
        for lang in amora_domain::account::LANGUAGES {
            let path = format!("{dir}/{lang}/topics.json");
            let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default())
                .unwrap_or_else(|e| panic!("{path}: {e}"));
            for topic in topics() {
                assert_eq!(check_copy(&file[topic]), Ok(()), "{lang} {topic}");
            }
        }
    }
}
