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
