//! Random bytes and random damage to valid cards never panic: every input gets a card or a
//! clean error. Some mutations keep the PNG's CRCs right (or re-encode the card text), so
//! they reach the base64, JSON and card checks behind the chunk walk.

use amora_cards::{Limits, export_png, import, import_charx, import_json, import_png};
use base64::Engine as _;
use proptest::prelude::*;

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

/// Byte range of the `ccv3` chunk's text in v3.png.
fn ccv3_text_range(png: &[u8]) -> (usize, usize, usize) {
    let mut at = 8;
    loop {
        let len = u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]) as usize;
        if &png[at + 4..at + 8] == b"tEXt" && png[at + 8..].starts_with(b"ccv3\0") {
            return (at, at + 8 + 5, at + 8 + len);
        }
        at += 12 + len;
    }
}

/// v3.png with the ccv3 chunk's JSON replaced (re-encoded, CRC fixed).
fn with_ccv3_json(png: &[u8], json: &[u8]) -> Vec<u8> {
    let (start, _, end) = ccv3_text_range(png);
    let mut body = b"tEXtccv3\0".to_vec();
    body.extend_from_slice(base64::engine::general_purpose::STANDARD.encode(json).as_bytes());
    let mut out = png[..start].to_vec();
    out.extend_from_slice(&((body.len() - 4) as u32).to_be_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
    out.extend_from_slice(&png[end + 4..]);
    out
}

fn ccv3_json(png: &[u8]) -> Vec<u8> {
    let (_, text, end) = ccv3_text_range(png);
    base64::engine::general_purpose::STANDARD.decode(&png[text..end]).unwrap_or_else(|e| panic!("base64: {e}"))
}

/// Runs every entry point; the test fails only by panicking.
fn try_all(bytes: &[u8]) {
    let limits = Limits::default();
    let _ = import(bytes, &limits);
    let _ = import_png(bytes, &limits);
    let _ = import_json(bytes, &limits);
    let _ = import_charx(bytes, &limits);
    if let Ok(card) = import(&data("v3.png"), &limits) {
        let _ = export_png(&card.card, bytes, &limits);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        try_all(&bytes);
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend_from_slice(&bytes);
        try_all(&png);
        let mut zip = b"PK\x03\x04".to_vec();
        zip.extend_from_slice(&bytes);
        try_all(&zip);
        let mut jpeg = b"\xFF\xD8\xFF".to_vec();
        jpeg.extend_from_slice(&bytes);
        jpeg.extend_from_slice(&data("card.charx"));
        try_all(&jpeg);
    }

    #[test]
    fn damaged_pngs_never_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        insert in proptest::collection::vec(any::<u8>(), 0..64),
        at in any::<prop::sample::Index>(),
    ) {
        let original = data("v3.png");
        let mut png = original.clone();
        for (i, b) in &flips {
            let i = i.index(png.len());
            png[i] = *b;
        }
        try_all(&png);
        try_all(&original[..cut.index(original.len())]);
        let mut grown = original.clone();
        let at = at.index(grown.len());
        grown.splice(at..at, insert);
        try_all(&grown);
    }

    #[test]
    fn damaged_card_json_behind_good_crcs_never_panics(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let original = data("v3.png");
        let mut json = ccv3_json(&original);
        for (i, b) in &flips {
            let i = i.index(json.len());
            json[i] = *b;
        }
        try_all(&with_ccv3_json(&original, &json));
        let whole = ccv3_json(&original);
        try_all(&with_ccv3_json(&original, &whole[..cut.index(whole.len())]));
    }

    #[test]
    fn damaged_charx_never_panics(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let original = data("card.charx");
        let mut zip = original.clone();
        for (i, b) in &flips {
            let i = i.index(zip.len());
            zip[i] = *b;
        }
        try_all(&zip);
        try_all(&original[..cut.index(original.len())]);
    }
}

#[test]
fn the_json_mutation_helper_reaches_the_card_parser() {
    // Guard for the property above: an untouched re-encode imports, a damaged one is
    // refused by the JSON layer rather than by the chunk walk.
    let original = data("v3.png");
    let limits = Limits::default();
    let same = with_ccv3_json(&original, &ccv3_json(&original));
    assert!(import(&same, &limits).is_ok());
    let err = import(&with_ccv3_json(&original, b"{\"spec\":"), &limits).err().map(|e| e.code());
    assert_eq!(err, Some("json"));
}

/// Any JSON value, a few levels deep, floats included.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z_]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Unknown keys: prefixed so they never collide with a field the specs name.
fn unknown_map() -> impl Strategy<Value = serde_json::Map<String, serde_json::Value>> {
    proptest::collection::btree_map("x_[a-z]{1,6}", json_value(), 0..3).prop_map(|m| m.into_iter().collect())
}

fn entry() -> impl Strategy<Value = amora_cards::LorebookEntry> {
    (
        (proptest::collection::vec(".{0,10}", 0..3), ".{0,40}", unknown_map(), any::<bool>(), any::<i64>()),
        (any::<Option<bool>>(), any::<bool>(), any::<Option<bool>>(), proptest::option::of(".{0,8}")),
        (
            proptest::option::of(any::<i32>()),
            proptest::option::of(prop_oneof![
                any::<u32>().prop_map(serde_json::Value::from),
                "[a-z0-9-]{1,8}".prop_map(serde_json::Value::from),
            ]),
        ),
        (any::<Option<bool>>(), proptest::option::of(proptest::collection::vec(".{0,6}", 0..3))),
        (
            proptest::option::of(prop_oneof![Just("before_char".to_owned()), Just("after_char".to_owned())]),
            unknown_map(),
        ),
    )
        .prop_map(
            |(
                (keys, content, extensions, enabled, order),
                (cs, re, constant, name),
                (priority, id),
                (sel, sec),
                (pos, extra),
            )| {
                amora_cards::LorebookEntry {
                    keys,
                    content,
                    extensions,
                    enabled,
                    insertion_order: order.into(),
                    case_sensitive: cs,
                    use_regex: re,
                    constant,
                    name,
                    priority: priority.map(Into::into),
                    id,
                    comment: None,
                    selective: sel,
                    secondary_keys: sec,
                    position: pos,
                    extra,
                }
            },
        )
}

fn card() -> impl Strategy<Value = amora_cards::Card> {
    let texts = proptest::collection::vec(".{0,60}", 9);
    let lists = proptest::collection::vec(proptest::collection::vec(".{0,20}", 0..4), 3);
    let book = proptest::option::of(
        (
            proptest::collection::vec(entry(), 0..4),
            proptest::option::of(0u32..20),
            proptest::option::of(0u32..5000),
            unknown_map(),
        )
            .prop_map(|(entries, scan_depth, token_budget, extensions)| amora_cards::Lorebook {
                entries,
                scan_depth,
                token_budget,
                extensions,
                ..amora_cards::Lorebook::default()
            }),
    );
    let v3 = (
        proptest::option::of("[A-Za-z][A-Za-z é]{0,10}"),
        proptest::option::of(proptest::collection::btree_map("[a-z]{2}", ".{0,10}", 0..3)),
        proptest::option::of(proptest::collection::vec(".{0,20}", 0..2)),
        proptest::option::of(any::<u32>()),
        proptest::option::of(proptest::collection::vec(
            (".{0,8}", ".{0,20}", ".{0,8}", "[a-z]{0,4}", unknown_map())
                .prop_map(|(kind, uri, name, ext, extra)| amora_cards::Asset { kind, uri, name, ext, extra }),
            0..3,
        )),
    );
    ("[A-Za-z][A-Za-z0-9 ]{0,20}", texts, lists, book, unknown_map(), unknown_map(), unknown_map(), v3).prop_map(
        |(
            name,
            t,
            l,
            character_book,
            extensions,
            data_extra,
            root_extra,
            (nickname, notes, source, created, assets),
        )| amora_cards::Card {
            data: amora_cards::CardData {
                name,
                description: t[0].clone(),
                personality: t[1].clone(),
                scenario: t[2].clone(),
                first_mes: t[3].clone(),
                mes_example: t[4].clone(),
                creator_notes: t[5].clone(),
                system_prompt: t[6].clone(),
                post_history_instructions: t[7].clone(),
                creator: t[8].clone(),
                character_version: String::new(),
                alternate_greetings: l[0].clone(),
                tags: l[1].clone(),
                group_only_greetings: l[2].clone(),
                character_book,
                extensions,
                assets,
                nickname,
                creator_notes_multilingual: notes,
                source,
                creation_date: created.map(Into::into),
                modification_date: None,
                extra: data_extra,
            },
            extra: root_extra,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// import(export(card)) == card for any card, through PNG and through JSON.
    #[test]
    fn any_card_round_trips(card in card()) {
        let limits = Limits::default();
        let png = export_png(&card, &data("charx_icon.png"), &limits).unwrap_or_else(|e| panic!("export png: {e}"));
        let back = import(&png, &limits).unwrap_or_else(|e| panic!("import png: {e}"));
        prop_assert_eq!(&back.card, &card);
        let json = amora_cards::export_json(&card, &limits).unwrap_or_else(|e| panic!("export json: {e}"));
        let back = import(&json, &limits).unwrap_or_else(|e| panic!("import json: {e}"));
        prop_assert_eq!(&back.card, &card);
    }
}
