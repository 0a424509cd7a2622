//! The sample cards of tests/data (written by make_samples.py as SillyTavern and RisuAI
//! write them) import with every field kept, export, and import again identically.

use amora_cards::{Card, CardFormat, Imported, Limits, SpecVersion, export_json, export_png, import};
use base64::Engine as _;
use serde_json::{Value, json};

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

fn imported(name: &str) -> Imported {
    import(&data(name), &Limits::default()).unwrap_or_else(|e| panic!("import {name}: {e}"))
}

/// (type, raw chunk) of every chunk of a PNG, walked independently of the crate.
fn chunks(png: &[u8]) -> Vec<(String, Vec<u8>)> {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let mut out = Vec::new();
    let mut at = 8;
    while at < png.len() {
        let len = u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]) as usize;
        let kind = String::from_utf8_lossy(&png[at + 4..at + 8]).into_owned();
        out.push((kind.clone(), png[at..at + 12 + len].to_vec()));
        at += 12 + len;
        if kind == "IEND" {
            break;
        }
    }
    out
}

/// The JSON in a PNG's tEXt chunk with this keyword.
fn text_json(png: &[u8], keyword: &str) -> Option<Value> {
    chunks(png).into_iter().find_map(|(kind, raw)| {
        let body = &raw[8..raw.len() - 4];
        let nul = body.iter().position(|&b| b == 0)?;
        (kind == "tEXt" && &body[..nul] == keyword.as_bytes()).then(|| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&body[nul + 1..])
                .unwrap_or_else(|e| panic!("base64 of {keyword}: {e}"));
            serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("json of {keyword}: {e}"))
        })
    })
}

fn is_card_chunk(raw: &[u8]) -> bool {
    raw[4..8] == *b"tEXt" && (raw[8..].starts_with(b"chara\0") || raw[8..].starts_with(b"ccv3\0"))
}

/// export(import(x)) imports to the same card, through PNG and through JSON.
fn assert_round_trips(card: &Card, portrait_png: &[u8]) {
    let limits = Limits::default();
    let png = export_png(card, portrait_png, &limits).unwrap_or_else(|e| panic!("export png: {e}"));
    let back = import(&png, &limits).unwrap_or_else(|e| panic!("reimport png: {e}"));
    assert_eq!(&back.card, card, "PNG round trip");
    assert_eq!(back.spec, SpecVersion::V3);
    // Exporting again into the exported PNG replaces the card chunks instead of adding more.
    let again = export_png(&back.card, &png, &limits).unwrap_or_else(|e| panic!("export again: {e}"));
    assert_eq!(again, png, "export is deterministic and replaces its own chunks");

    let json = export_json(card, &limits).unwrap_or_else(|e| panic!("export json: {e}"));
    let back = import(&json, &limits).unwrap_or_else(|e| panic!("reimport json: {e}"));
    assert_eq!(&back.card, card, "JSON round trip");
    assert_eq!(back.spec, SpecVersion::V3);
    assert_eq!(back.format, CardFormat::Json);
}

#[test]
fn v1_json_keeps_its_fields_and_the_apps_own() {
    let got = imported("v1.json");
    assert_eq!((got.spec, got.format, got.portrait.is_none()), (SpecVersion::V1, CardFormat::Json, true));
    let d = &got.card.data;
    assert_eq!(d.name, "Marisol");
    assert!(d.description.starts_with("{{char}} keeps the lighthouse on Gull Rock."));
    assert_eq!(d.personality, "dry humour, patient, curious about strangers");
    assert!(d.scenario.contains("stranded on Gull Rock"));
    assert!(d.first_mes.starts_with("*The door creaks open.*"));
    assert!(d.mes_example.starts_with("<START>\n{{user}}: Do you ever get lonely?"));
    assert!(d.character_book.is_none() && d.alternate_greetings.is_empty());
    let extra = &got.card.extra;
    assert_eq!(extra.get("avatar"), Some(&json!("none")));
    assert_eq!(extra.get("talkativeness"), Some(&json!("0.5")));
    assert_eq!(extra.get("fav"), Some(&json!(false)));
    assert!(extra.contains_key("chat") && extra.contains_key("create_date") && extra.contains_key("creatorcomment"));
    assert!(!extra.contains_key("name"), "V1 fields live in data, not twice");
    assert_round_trips(&got.card, &data("charx_icon.png"));
}

#[test]
fn v2_png_from_sillytavern_keeps_every_field() {
    let file = data("v2.png");
    let got = imported("v2.png");
    assert_eq!((got.spec, got.format), (SpecVersion::V2, CardFormat::Png));
    let d = &got.card.data;
    assert_eq!(d.name, "Marisol");
    assert_eq!(d.creator_notes, "Slow-burn, cosy. Works best with long replies.");
    assert_eq!(d.tags, ["female", "slice of life", "OC"]);
    assert_eq!((d.creator.as_str(), d.character_version.as_str()), ("amora-tests", "1.2"));
    assert_eq!(d.alternate_greetings.len(), 2);
    assert_eq!(d.extensions["world"], json!("Gull Rock"));
    assert_eq!(d.extensions["x_unknown_app"], json!({"kept": [1, 2, {"deep": true}]}));
    assert_eq!(d.extensions["depth_prompt"]["role"], json!("system"));
    assert!(d.nickname.is_none() && d.group_only_greetings.is_empty() && d.assets.is_none());
    let book = d.character_book.as_ref().unwrap_or_else(|| panic!("no lorebook"));
    assert_eq!((book.scan_depth, book.token_budget, book.recursive_scanning), (Some(4), Some(512), Some(false)));
    assert_eq!(book.entries.len(), 3);
    let e = &book.entries[1];
    assert_eq!(e.keys, ["storm"]);
    assert_eq!(e.secondary_keys.as_deref(), Some(&["boat".to_owned(), "ship".to_owned()][..]));
    assert_eq!(
        (e.selective, e.position.as_deref(), e.insertion_order.as_i64()),
        (Some(true), Some("after_char"), Some(50))
    );
    assert_eq!(e.id, Some(json!(1)));
    assert_eq!(book.entries[0].extensions["scan_depth"], Value::Null, "ST's null extension values are kept");
    assert_eq!(book.entries[0].extensions["automation_id"], json!(""));
    assert_eq!(book.entries[2].constant, Some(true));
    let extra = &got.card.extra;
    assert_eq!(extra.get("create_date"), Some(&json!("2024-05-01T12:00:00.000Z")));
    assert_eq!(extra.get("tags"), Some(&json!(["female", "slice of life", "OC"])));
    assert!(!extra.contains_key("spec") && !extra.contains_key("data") && !extra.contains_key("description"));

    // The portrait is the PNG itself without the card: every other chunk byte for byte.
    let portrait = got.portrait.unwrap_or_else(|| panic!("no portrait"));
    assert_eq!(portrait.ext, "png");
    let kept: Vec<_> = chunks(&file).into_iter().filter(|(_, raw)| !is_card_chunk(raw)).collect();
    assert_eq!(chunks(&portrait.bytes), kept);
    assert_round_trips(&got.card, &portrait.bytes);
}

#[test]
fn v3_png_with_both_chunks_is_read_from_ccv3() {
    let got = imported("v3.png");
    assert_eq!((got.spec, got.format), (SpecVersion::V3, CardFormat::Png));
    let d = &got.card.data;
    assert_eq!(d.nickname.as_deref(), Some("Mari"));
    assert_eq!(got.card.prompt_name(), "Mari");
    assert_eq!(d.group_only_greetings.len(), 1);
    assert_eq!(d.creation_date.as_ref().and_then(serde_json::Number::as_i64), Some(1_714_564_800));
    assert_eq!(d.modification_date.as_ref().and_then(serde_json::Number::as_i64), Some(1_717_243_200));
    assert_eq!(d.source.as_deref(), Some(&["https://example.org/cards/marisol".to_owned()][..]));
    let notes = d.creator_notes_multilingual.as_ref().unwrap_or_else(|| panic!("no multilingual notes"));
    assert_eq!(notes.get("fr").map(String::as_str), Some("Lent et douillet."));
    let assets = d.assets.as_ref().unwrap_or_else(|| panic!("no assets"));
    assert_eq!(
        (assets[0].kind.as_str(), assets[0].uri.as_str(), assets[0].name.as_str()),
        ("icon", "ccdefault:", "main")
    );
    let portrait = got.portrait.unwrap_or_else(|| panic!("no portrait"));
    assert_round_trips(&got.card, &portrait.bytes);
}

#[test]
fn charx_from_risuai_gives_the_main_icon_as_portrait() {
    let got = imported("card.charx");
    assert_eq!((got.spec, got.format), (SpecVersion::V3, CardFormat::Charx));
    assert_eq!(got.card.data.name, "Marisol");
    assert_eq!(got.card.data.extensions["risuai"]["utilityBot"], json!(false));
    assert_eq!(got.card.data.assets.as_ref().map(Vec::len), Some(3));
    let portrait = got.portrait.unwrap_or_else(|| panic!("no portrait"));
    assert_eq!(portrait.bytes, data("charx_icon.png"), "the icon named main, not the emotion or the map");
    assert_eq!(portrait.ext, "png");
    assert_round_trips(&got.card, &portrait.bytes);
}

#[test]
fn export_writes_v2_in_chara_and_v3_in_ccv3_around_untouched_pixels() {
    let got = imported("v3.png");
    let portrait = data("charx_icon.png");
    let png = export_png(&got.card, &portrait, &Limits::default()).unwrap_or_else(|e| panic!("export: {e}"));

    // Every chunk of the portrait, in order and byte for byte, then the two card chunks before IEND.
    let out = chunks(&png);
    let src = chunks(&portrait);
    assert_eq!(out.len(), src.len() + 2);
    assert_eq!(out[..src.len() - 1], src[..src.len() - 1]);
    assert_eq!(out.last(), src.last());
    assert!(is_card_chunk(&out[src.len() - 1].1) && is_card_chunk(&out[src.len()].1));

    let v2 = text_json(&png, "chara").unwrap_or_else(|| panic!("no chara chunk"));
    assert_eq!(v2["spec"], json!("chara_card_v2"));
    assert_eq!(v2["spec_version"], json!("2.0"));
    assert_eq!(v2["name"], json!("Marisol"), "V1 mirror for old readers");
    assert_eq!(v2["data"]["character_book"]["entries"].as_array().map(Vec::len), Some(3));
    assert!(v2["data"].get("nickname").is_none(), "V3-only fields stay out of V2");
    let v3 = text_json(&png, "ccv3").unwrap_or_else(|| panic!("no ccv3 chunk"));
    assert_eq!(v3["spec"], json!("chara_card_v3"));
    assert_eq!(v3["spec_version"], json!("3.0"));
    assert_eq!(v3["data"]["nickname"], json!("Mari"));
    assert_eq!(v3["data"]["extensions"]["x_unknown_app"], json!({"kept": [1, 2, {"deep": true}]}));
}

#[test]
fn unknown_fields_everywhere_survive_the_round_trip() {
    let mut card = imported("v2.png").card;
    card.extra.insert("x_root".into(), json!({"a": [1.5, null, "z"]}));
    card.data.extra.insert("x_future_field".into(), json!(["kept"]));
    card.data.extensions.insert("x_app".into(), json!({"nested": {"deep": [true]}}));
    card.data.creation_date = Some(serde_json::Number::from_f64(1714564800.5).unwrap_or_else(|| panic!("f64")));
    let book = card.data.character_book.as_mut().unwrap_or_else(|| panic!("no book"));
    book.extra.insert("x_book".into(), json!(7));
    book.extensions.insert("x_book_ext".into(), json!("y"));
    book.entries[0].extra.insert("x_entry".into(), json!({"k": "v"}));
    book.entries[0].id = Some(json!("entry-zero"));
    card.data.assets = Some(vec![amora_cards::Asset {
        kind: "x_custom".into(),
        uri: "https://example.org/a.webp".into(),
        name: "bg".into(),
        ext: "webp".into(),
        extra: [("x_asset".to_owned(), json!(1))].into_iter().collect(),
    }]);
    assert_round_trips(&card, &data("charx_icon.png"));
}

#[test]
fn agnaistic_v2_json_keeps_its_persona_and_lorebook() {
    let got = imported("agnai_v2.json");
    assert_eq!((got.spec, got.format), (SpecVersion::V2, CardFormat::Json));
    let d = &got.card.data;
    assert_eq!(d.name, "Tomas");
    assert!(d.description.starts_with("[character(\"Tomas\") {\nmind(\"wry\" + \"steady\")"));
    assert_eq!(d.creator_notes, "Relieves Marisol on Sundays.");
    assert_eq!(d.extensions["agnai"]["persona"]["attributes"]["job"], json!(["lighthouse keeper"]));
    assert_eq!(d.extensions["agnai"]["voice"]["service"], json!("webspeechsynthesis"));
    let book = d.character_book.as_ref().unwrap_or_else(|| panic!("no lorebook"));
    let e = &book.entries[0];
    assert_eq!(
        (e.name.as_deref(), e.priority.as_ref().and_then(serde_json::Number::as_i64)),
        (Some("Lens"), Some(100))
    );
    assert!(!e.use_regex && e.case_sensitive.is_none() && e.constant.is_none(), "V2 entries lack the V3 flags");
    assert!(got.card.extra.is_empty(), "Agnaistic writes nothing at the top but the V1 mirror: {:?}", got.card.extra);
    assert_eq!(
        amora_cards::replace_macros(&d.mes_example, got.card.prompt_name(), "Sam"),
        "Sam: Nice lamp.\nTomas: It's a lens, Sam. Tomas corrects everyone."
    );
    assert_round_trips(&got.card, &data("charx_icon.png"));
}

#[test]
fn risuai_charx_jpeg_is_read_past_the_picture() {
    // A JPEG's markers (SOI, APP0 JFIF, EOI) then the CHARX archive, as RisuAI appends it.
    let jpeg: Vec<u8> =
        [&b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"[..], b"pixels", b"\xFF\xD9"].concat();
    let charx = data("card.charx");
    let file = [jpeg.as_slice(), charx.as_slice()].concat();
    let got = import(&file, &Limits::default()).unwrap_or_else(|e| panic!("import: {e}"));
    assert_eq!((got.spec, got.format), (SpecVersion::V3, CardFormat::CharxJpeg));
    assert_eq!(got.card, imported("card.charx").card);
    let portrait = got.portrait.unwrap_or_else(|| panic!("no portrait"));
    assert_eq!(portrait.bytes, data("charx_icon.png"), "the archive's main icon first");

    // Without an embedded icon, the JPEG itself is the picture.
    let exported = export_json(&got.card, &Limits::default()).unwrap_or_else(|e| panic!("export: {e}"));
    let mut card: Value = serde_json::from_slice(&exported).unwrap_or_else(|e| panic!("json: {e}"));
    card["data"]["assets"] = json!([{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "jpeg"}]);
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file(
        "card.json",
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::io::Write::write_all(&mut zip, card.to_string().as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let zip = zip.finish().unwrap_or_else(|e| panic!("{e}")).into_inner();
    let got = import(&[jpeg.as_slice(), zip.as_slice()].concat(), &Limits::default()).unwrap_or_else(|e| panic!("{e}"));
    let portrait = got.portrait.unwrap_or_else(|| panic!("no portrait"));
    assert_eq!((portrait.bytes, portrait.ext.as_str()), (jpeg.clone(), "jpeg"));

    // A plain JPEG is not a card.
    assert_eq!(import(&jpeg, &Limits::default()).err(), Some(amora_cards::CardError::NoCardInJpeg));
}
