//! Card JSON in (V1, V2, V3) and out (V2, V3), with the bomb checks done before serde
//! builds anything deep: nesting is measured on the raw bytes, sizes on the parsed tree.

use serde_json::{Map, Value};

use crate::error::CardError;
use crate::limits::Limits;
use crate::model::{Card, CardData};

/// Which version of the spec a card was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecVersion {
    V1,
    V2,
    V3,
}

pub const SPEC_V2: &str = "chara_card_v2";
pub const SPEC_V3: &str = "chara_card_v3";

/// The V1 fields apps mirror at the top level of V2/V3 cards for old readers. They are
/// rewritten from `data` on export, so they are not kept in [`Card::extra`].
const V1_FIELDS: [&str; 6] = ["name", "description", "personality", "scenario", "first_mes", "mes_example"];

/// Reads a card from its JSON text (the content of a `.json` file, a PNG chunk or CHARX's
/// `card.json`).
pub fn parse_card_json(bytes: &[u8], limits: &Limits) -> Result<(Card, SpecVersion), CardError> {
    if bytes.len() > limits.max_card_json_bytes {
        return Err(CardError::JsonTooLarge { size: bytes.len(), limit: limits.max_card_json_bytes });
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    check_depth(bytes, limits.max_json_depth)?;
    let value: Value = serde_json::from_slice(bytes).map_err(|e| CardError::Json { message: e.to_string() })?;
    let Value::Object(mut root) = value else {
        return Err(CardError::NotAnObject);
    };
    check_lorebook_size(&root, limits)?;
    check_sizes(&root, limits)?;

    let spec = match root.get("spec") {
        None | Some(Value::Null) => SpecVersion::V1,
        Some(Value::String(s)) if s == SPEC_V2 => SpecVersion::V2,
        Some(Value::String(s)) if s == SPEC_V3 => SpecVersion::V3,
        Some(other) => {
            let found = other.as_str().map_or_else(|| other.to_string(), str::to_owned);
            return Err(CardError::WrongSpec { found });
        }
    };
    let card = match spec {
        SpecVersion::V1 => {
            // The whole object is the card; what V1 does not name is kept at the top level.
            let mut data = Map::new();
            for field in V1_FIELDS {
                if let Some(v) = root.remove(field) {
                    data.insert(field.to_owned(), v);
                }
            }
            // V2/V3 own these two top-level names; a V1 card's own would be overwritten on export.
            root.remove("spec_version");
            root.remove("data");
            Card { data: typed_data(data, "")?, extra: root }
        }
        SpecVersion::V2 | SpecVersion::V3 => {
            root.remove("spec");
            root.remove("spec_version");
            let data = match root.remove("data") {
                Some(Value::Object(d)) => d,
                Some(_) => {
                    return Err(CardError::InvalidField { path: "data".into(), message: "not an object".into() });
                }
                None => return Err(CardError::InvalidField { path: "data".into(), message: "missing".into() }),
            };
            for field in V1_FIELDS {
                root.remove(field);
            }
            Card { data: typed_data(data, "data.")?, extra: root }
        }
    };
    check_card(&card, limits)?;
    Ok((card, spec))
}

fn typed_data(data: Map<String, Value>, prefix: &str) -> Result<CardData, CardError> {
    serde_path_to_error::deserialize::<_, CardData>(Value::Object(data))
        .map_err(|e| CardError::InvalidField { path: format!("{prefix}{}", e.path()), message: e.inner().to_string() })
}

/// The checks that need the typed card: a name, and a name of sane length. Run on import
/// and again on export, so whatever we write we can read back.
pub(crate) fn check_card(card: &Card, limits: &Limits) -> Result<(), CardError> {
    if card.data.name.trim().is_empty() {
        return Err(CardError::MissingName);
    }
    for (path, text) in [("data.name", Some(&card.data.name)), ("data.nickname", card.data.nickname.as_ref())] {
        if let Some(text) = text
            && text.len() > limits.max_name_bytes
        {
            return Err(CardError::StringTooLong {
                path: path.into(),
                bytes: text.len(),
                limit: limits.max_name_bytes,
            });
        }
    }
    Ok(())
}

/// Nesting depth of `[`/`{` outside strings, on the raw bytes: no recursion, no allocation.
fn check_depth(bytes: &[u8], limit: usize) -> Result<(), CardError> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in bytes {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Err(CardError::JsonTooDeep { limit });
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The lorebook's entry count has its own limit and its own error, checked before the
/// generic array limit would report it less clearly.
fn check_lorebook_size(root: &Map<String, Value>, limits: &Limits) -> Result<(), CardError> {
    let book = root.get("data").and_then(|d| d.get("character_book")).or_else(|| root.get("character_book"));
    if let Some(Value::Array(entries)) = book.and_then(|b| b.get("entries"))
        && entries.len() > limits.max_lorebook_entries
    {
        return Err(CardError::TooManyLorebookEntries { count: entries.len(), limit: limits.max_lorebook_entries });
    }
    Ok(())
}

/// Every string and every array anywhere in the card, walked with an explicit stack.
fn check_sizes(root: &Map<String, Value>, limits: &Limits) -> Result<(), CardError> {
    let mut stack: Vec<(String, &Value)> = root.iter().map(|(k, v)| (k.clone(), v)).collect();
    while let Some((path, value)) = stack.pop() {
        match value {
            Value::String(s) if s.len() > limits.max_string_bytes => {
                return Err(CardError::StringTooLong { path, bytes: s.len(), limit: limits.max_string_bytes });
            }
            Value::Array(items) => {
                if items.len() > limits.max_array_items && !path.ends_with("character_book.entries") {
                    return Err(CardError::TooManyItems { path, count: items.len(), limit: limits.max_array_items });
                }
                stack.extend(items.iter().enumerate().map(|(i, v)| (format!("{path}[{i}]"), v)));
            }
            Value::Object(map) => {
                if map.len() > limits.max_array_items {
                    return Err(CardError::TooManyItems { path, count: map.len(), limit: limits.max_array_items });
                }
                for (k, v) in map {
                    if k.len() > limits.max_string_bytes {
                        return Err(CardError::StringTooLong {
                            path: format!("{path} (a key)"),
                            bytes: k.len(),
                            limit: limits.max_string_bytes,
                        });
                    }
                    stack.push((format!("{path}.{k}"), v));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The card as V3 JSON (`spec: chara_card_v3`), with the V1 fields mirrored at the top level
/// as SillyTavern writes them.
pub fn to_v3_value(card: &Card) -> Result<Value, CardError> {
    let data = serde_json::to_value(&card.data).map_err(|e| CardError::Json { message: e.to_string() })?;
    Ok(wrap(card, SPEC_V3, "3.0", data))
}

/// The card as V2 JSON (`spec: chara_card_v2`) for the PNG `chara` chunk: V3-only fields
/// are left out (V2 readers do not know them; V3 readers take `ccv3`).
pub fn to_v2_value(card: &Card) -> Result<Value, CardError> {
    let mut data = serde_json::to_value(&card.data).map_err(|e| CardError::Json { message: e.to_string() })?;
    if let Value::Object(map) = &mut data {
        for v3_only in [
            "assets",
            "nickname",
            "creator_notes_multilingual",
            "source",
            "group_only_greetings",
            "creation_date",
            "modification_date",
        ] {
            map.remove(v3_only);
        }
    }
    Ok(wrap(card, SPEC_V2, "2.0", data))
}

fn wrap(card: &Card, spec: &str, version: &str, data: Value) -> Value {
    let mut root = card.extra.clone();
    for field in V1_FIELDS {
        if let Some(v) = data.get(field) {
            root.insert(field.to_owned(), v.clone());
        }
    }
    root.insert("spec".into(), Value::String(spec.into()));
    root.insert("spec_version".into(), Value::String(version.into()));
    root.insert("data".into(), data);
    Value::Object(root)
}

/// The card as V3 JSON bytes, checked against the limits so that it imports again.
pub fn export_json(card: &Card, limits: &Limits) -> Result<Vec<u8>, CardError> {
    check_card(card, limits)?;
    let bytes = serde_json::to_vec(&to_v3_value(card)?).map_err(|e| CardError::Json { message: e.to_string() })?;
    // Re-read what we wrote: the same limits apply to our output as to anyone's.
    parse_card_json(&bytes, limits)?;
    Ok(bytes)
}
