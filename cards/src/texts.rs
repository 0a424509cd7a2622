//! Every string a card carries, named by where it sits, for moderation (issue 27): a card's
//! texts reach prompts (the description, the lorebook, `depth_prompt` in `extensions`) and,
//! on export, other people, so none may skip the check, known field or not.

use serde_json::Value;

use crate::Card;

/// Every string of `card`, recursively (lorebook keys, comments and names, `extensions`,
/// fields no spec names), with its path: `data.description`,
/// `data.character_book.entries[0].keys[1]`, `data.extensions.depth_prompt.prompt`. Object
/// keys are named but not returned (they are names, not text); asset locators (`uri`, `ext`,
/// `type` of `data.assets`) are left out.
pub fn strings(card: &Card) -> Vec<(String, String)> {
    let mut found = Vec::new();
    // A card is data we read from JSON; it always serialises back.
    if let Ok(value) = serde_json::to_value(card) {
        walk(&value, String::new(), &mut found);
    }
    found
}

fn walk(value: &Value, path: String, found: &mut Vec<(String, String)>) {
    match value {
        Value::String(text) => {
            if !is_asset_locator(&path) {
                found.push((path, text.clone()));
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                walk(item, format!("{path}[{index}]"), found);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let path = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                walk(item, path, found);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn is_asset_locator(path: &str) -> bool {
    path.starts_with("data.assets[") && [".uri", ".ext", ".type"].iter().any(|end| path.ends_with(end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_string_is_found_with_its_path() {
        let json = serde_json::json!({ "spec": "chara_card_v3", "spec_version": "3.0", "data": {
            "name": "Mira", "description": "d", "creator": "someone", "tags": ["a", "b"],
            "extensions": { "depth_prompt": { "prompt": "deep", "depth": 4 }, "x": [{ "y": "z" }] },
            "assets": [{ "type": "icon", "uri": "embeded://a.png", "name": "main", "ext": "png" }],
            "character_book": { "name": "book", "entries": [
                { "keys": ["k1", "k2"], "secondary_keys": ["s"], "content": "c", "comment": "note", "name": "n",
                  "enabled": true, "insertion_order": 0, "custom": "kept" } ] } } });
        let card: Card = serde_json::from_value(json).unwrap_or_else(|e| panic!("{e}"));
        let found = strings(&card);
        let has = |path: &str, text: &str| found.iter().any(|(p, t)| p == path && t == text);
        for (path, text) in [
            ("data.name", "Mira"),
            ("data.creator", "someone"),
            ("data.tags[1]", "b"),
            ("data.extensions.depth_prompt.prompt", "deep"),
            ("data.extensions.x[0].y", "z"),
            ("data.assets[0].name", "main"),
            ("data.character_book.name", "book"),
            ("data.character_book.entries[0].keys[1]", "k2"),
            ("data.character_book.entries[0].secondary_keys[0]", "s"),
            ("data.character_book.entries[0].content", "c"),
            ("data.character_book.entries[0].comment", "note"),
            ("data.character_book.entries[0].name", "n"),
            ("data.character_book.entries[0].custom", "kept"),
        ] {
            assert!(has(path, text), "{path} = {text} missing from {found:?}");
        }
        assert!(!found.iter().any(|(p, _)| p.ends_with(".uri")), "{found:?}");
    }
}
