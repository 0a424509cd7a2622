//! The legal texts as published by operators (issue 33). The app is built with every legal
//! text in every language (`frontend/public/locales/<lang>/legal.json`); an operator may
//! publish a new version of one, with the date it shows as last modified, from the console
//! (`admin::operator::desks`). The newest version of each document is what readers see;
//! older ones are kept, for the record of what a user agreed to when.

use actix_web::web;
use amora_domain::account::parse_language;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::api::{ApiReply, ApiResult, Payload};
use crate::state::AppState;

/// The documents of spec section 1, by the keys of the `legal` namespace's `docs`.
pub const LEGAL_DOCS: [&str; 9] = [
    "termsOfService",
    "termsOfUse",
    "privacyPolicy",
    "communityGuidelines",
    "payDisclaimer",
    "refundPolicy",
    "complaintPolicy",
    "compliance2257",
    "membershipPolicy",
];

/// A text's longest JSON, far above the longest shipped one (about 12 KB).
pub const MAX_TEXT_BYTES: usize = 200_000;

/// What is wrong with a text an operator wants to publish, naming the field: the shape the
/// user app shows (`frontend/src/features/legal/lib/served-legal.ts` checks it again).
pub fn check_text(text: &Value) -> Result<(), String> {
    let object = text.as_object().ok_or("text: must be an object {title, intro, sections}")?;
    let title = object.get("title").and_then(Value::as_str).map(str::trim).unwrap_or_default();
    if title.is_empty() || title.chars().count() > 200 {
        return Err("text.title: required, 1 to 200 characters".into());
    }
    if !object.get("intro").is_some_and(Value::is_string) {
        return Err("text.intro: required, a string".into());
    }
    let sections = object.get("sections").and_then(Value::as_array).ok_or("text.sections: must be a list")?;
    for (index, section) in sections.iter().enumerate() {
        let heading_ok = section.get("heading").is_some_and(Value::is_string);
        let texts = |list: &Value| {
            list.as_array().is_some_and(|items| items.iter().all(|p| p.as_str().is_some_and(|p| !p.trim().is_empty())))
        };
        let paragraphs_ok = section.get("paragraphs").is_some_and(texts);
        // A list of points after the paragraphs, as some shipped texts have.
        let items_ok = section.get("items").is_none_or(texts);
        if !heading_ok || !paragraphs_ok || !items_ok {
            return Err(format!(
                "text.sections[{index}]: needs a heading, paragraphs of text and, if any, items of text"
            ));
        }
    }
    if serde_json::to_vec(text).map(|bytes| bytes.len()).unwrap_or(usize::MAX) > MAX_TEXT_BYTES {
        return Err(format!("text: at most {MAX_TEXT_BYTES} bytes"));
    }
    Ok(())
}

/// Whether `raw` is a real calendar day written `YYYY-MM-DD`.
pub fn is_day(raw: &str) -> bool {
    amora_domain::blog::BlogDate::parse(raw).is_ok()
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(rename = "LegalTextsRequest")]
pub struct TextsRequest {
    lang: String,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PublishedLegalText {
    doc_key: String,
    /// YYYY-MM-DD, shown as "Last modified".
    last_modified: String,
    /// As `docs.<docKey>` of the `legal` namespace: `{title, intro?, sections}`.
    #[ts(type = "unknown")]
    text: Value,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LegalTexts {
    /// Only the documents an operator published in this language; the others are as built.
    docs: Vec<PublishedLegalText>,
}

/// `legal/getLegalTexts {lang}` → `{docs: [{docKey, lastModified, text}]}`: the newest
/// published version of each document in the language. Open to everyone.
pub async fn get_legal_texts(state: web::Data<AppState>, payload: Payload<TextsRequest>) -> ApiResult<LegalTexts> {
    let lang = parse_language(&payload.into_inner().lang)?;
    let mut docs = Vec::new();
    for doc in LEGAL_DOCS {
        let Some(newest) = state.store.legal.legal_versions(doc, &lang, 1).await?.into_iter().next() else {
            continue;
        };
        match serde_json::from_str(&newest.body) {
            Ok(text) => {
                docs.push(PublishedLegalText { doc_key: doc.to_owned(), last_modified: newest.last_modified, text })
            }
            // Written by `check_text`'s caller only, so never expected; the built text stands.
            Err(error) => tracing::error!(%error, doc, lang, "a published legal text is not JSON"),
        }
    }
    Ok(ApiReply(LegalTexts { docs }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refusal(text: &Value) -> String {
        check_text(text).err().unwrap_or_default()
    }

    #[test]
    fn a_text_needs_a_title_and_sections_of_paragraphs() {
        let good = json!({"title": "Terms", "intro": "Hi", "sections": [{"heading": "1.", "paragraphs": ["Text."]}]});
        assert_eq!(check_text(&good), Ok(()));
        let with_items = json!({"title": "T", "intro": "", "sections": [{"heading": "1.", "paragraphs": ["P."], "items": ["a", "b"]}]});
        assert_eq!(check_text(&with_items), Ok(()));
        let bad_items =
            json!({"title": "T", "intro": "", "sections": [{"heading": "1.", "paragraphs": ["P."], "items": [1]}]});
        assert!(refusal(&bad_items).starts_with("text.sections[0]"));
        assert!(refusal(&json!({"title": "T", "sections": []})).starts_with("text.intro"));
        assert!(refusal(&json!("Terms")).starts_with("text:"));
        assert!(refusal(&json!({"title": " ", "intro": "", "sections": []})).starts_with("text.title"));
        let empty_paragraph = json!({"title": "T", "intro": "", "sections": [{"heading": "1.", "paragraphs": [" "]}]});
        assert!(refusal(&empty_paragraph).starts_with("text.sections[0]"));
        assert!(refusal(&json!({"title": "T", "intro": 3, "sections": []})).starts_with("text.intro"));
    }

    #[test]
    fn a_day_is_a_real_calendar_day() {
        assert!(is_day("2026-11-30"));
        assert!(!is_day("2026-02-30"));
        assert!(!is_day("30.11.2026"));
    }
}
