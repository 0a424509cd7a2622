//! Every way a card file is refused, each with its own error: malformed PNGs, oversized
//! chunks and files, card bombs (deep JSON, giant strings, huge lists), bad zips.

use std::io::{Cursor, Write};

use amora_cards::{Card, CardError, Limits, export_json, export_png, import, import_charx, import_json, import_png};
use base64::Engine as _;
use serde_json::{Value, json};
use zip::CompressionMethod;
use zip::write::SimpleFileOptions;

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

fn refused(result: Result<amora_cards::Imported, CardError>) -> CardError {
    match result {
        Ok(got) => panic!("accepted: {:?}", got.card.data.name),
        Err(e) => e,
    }
}

fn chunk(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(kind);
    out.extend_from_slice(body);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(body);
    out.extend_from_slice(&crc.finalize().to_be_bytes());
    out
}

/// The sample portrait (no card) with these chunks before IEND.
fn png_with(extra: &[Vec<u8>]) -> Vec<u8> {
    let base = data("charx_icon.png");
    let iend = base.len() - 12;
    let mut out = base[..iend].to_vec();
    for c in extra {
        out.extend_from_slice(c);
    }
    out.extend_from_slice(&base[iend..]);
    out
}

fn card_chunk(keyword: &str, json: &[u8]) -> Vec<u8> {
    let mut body = keyword.as_bytes().to_vec();
    body.push(0);
    body.extend_from_slice(base64::engine::general_purpose::STANDARD.encode(json).as_bytes());
    chunk(b"tEXt", &body)
}

fn v2(data: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"spec": "chara_card_v2", "spec_version": "2.0", "data": data}))
        .unwrap_or_else(|e| panic!("json: {e}"))
}

fn import_v2(data: Value) -> CardError {
    refused(import(&v2(data), &Limits::default()))
}

// --- PNG ---------------------------------------------------------------------------------

#[test]
fn a_png_with_a_bad_signature_is_refused() {
    let mut file = data("v2.png");
    file[7] = 0;
    assert_eq!(refused(import(&file, &Limits::default())), CardError::PngSignature);
    assert_eq!(refused(import_png(b"\x89PN", &Limits::default())), CardError::PngSignature);
    assert_eq!(refused(import_png(b"GIF89a........", &Limits::default())), CardError::PngSignature);
}

#[test]
fn a_truncated_png_is_refused_wherever_it_is_cut() {
    let file = data("v2.png");
    for cut in [9, 20, 40, file.len() / 2, file.len() - 13, file.len() - 1] {
        let err = refused(import(&file[..cut], &Limits::default()));
        assert!(matches!(err, CardError::PngTruncated { .. }), "cut at {cut}: {err:?}");
        assert_eq!(err.code(), "png_truncated");
    }
}

#[test]
fn a_bad_crc_is_refused_in_any_chunk() {
    let file = data("v2.png");
    // IHDR's data, IDAT's data, the card chunk's text: one flipped bit each.
    for at in [20, 90, file.len() - 100] {
        let mut bad = file.clone();
        bad[at] ^= 0x01;
        let err = refused(import(&bad, &Limits::default()));
        assert!(matches!(err, CardError::PngBadCrc { .. }), "byte {at}: {err:?}");
    }
}

#[test]
fn a_png_not_starting_with_ihdr_or_with_a_bad_chunk_type_is_refused() {
    let mut file = b"\x89PNG\r\n\x1a\n".to_vec();
    file.extend(chunk(b"IDAT", b"x"));
    file.extend(chunk(b"IEND", b""));
    assert_eq!(
        refused(import(&file, &Limits::default())),
        CardError::PngMalformed { reason: "the first chunk is not IHDR" }
    );
    let mut file = data("v2.png");
    file[12] = b'1';
    assert_eq!(refused(import(&file, &Limits::default())).code(), "png_malformed");
}

#[test]
fn a_png_without_a_card_is_refused() {
    assert_eq!(refused(import(&data("charx_icon.png"), &Limits::default())), CardError::NoCardInPng);
    // Other tEXt chunks are not cards.
    let png = png_with(&[chunk(b"tEXt", b"Comment\0chara")]);
    assert_eq!(refused(import(&png, &Limits::default())), CardError::NoCardInPng);
}

#[test]
fn a_huge_card_chunk_is_refused_before_decoding() {
    let limits = Limits::default();
    let huge = vec![b'A'; limits.max_card_json_bytes / 3 * 4 + 1024];
    let mut body = b"ccv3\0".to_vec();
    body.extend_from_slice(&huge);
    let err = refused(import(&png_with(&[chunk(b"tEXt", &body)]), &limits));
    assert!(matches!(err, CardError::ChunkTooLarge { ref chunk, .. } if chunk == "ccv3"), "{err:?}");
}

#[test]
fn a_file_over_the_size_limit_is_refused_whatever_it_is() {
    let limits = Limits { max_file_bytes: 1000, ..Limits::default() };
    for file in [data("v3.png"), data("card.charx"), vec![b' '; 1001]] {
        assert_eq!(refused(import(&file, &limits)).code(), "file_too_large");
    }
    assert!(matches!(refused(import_png(&data("v3.png"), &limits)), CardError::FileTooLarge { limit: 1000, .. }));
}

#[test]
fn card_text_that_is_not_base64_json_utf8_is_refused() {
    let mut body = b"chara\0".to_vec();
    body.extend_from_slice(b"%%% not base64 %%%");
    assert_eq!(refused(import(&png_with(&[chunk(b"tEXt", &body)]), &Limits::default())), CardError::Base64);
    let png = png_with(&[card_chunk("chara", b"\xff\xfe{\"name\":1}")]);
    assert_eq!(refused(import(&png, &Limits::default())), CardError::NotUtf8);
    let png = png_with(&[card_chunk("chara", b"{\"name\": ")]);
    assert_eq!(refused(import(&png, &Limits::default())).code(), "json");
}

#[test]
fn base64_wrapped_in_lines_or_without_padding_is_read() {
    let b64 = base64::engine::general_purpose::STANDARD.encode(v2(json!({"name": "Wrapped"})));
    assert!(b64.ends_with('=') && b64.len() > 76, "the sample needs padding and more than one line");
    let wrapped: Vec<u8> = b64.as_bytes().chunks(76).flat_map(|line| [line, b"\n"].concat()).collect();
    let unpadded = b64.trim_end_matches('=').as_bytes().to_vec();
    for text in [wrapped, unpadded] {
        let mut body = b"chara\0".to_vec();
        body.extend_from_slice(&text);
        let got = import(&png_with(&[chunk(b"tEXt", &body)]), &Limits::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.card.data.name, "Wrapped");
    }
}

#[test]
fn a_broken_ccv3_is_not_papered_over_by_the_chara_chunk() {
    let good = v2(json!({"name": "Ok"}));
    let png = png_with(&[card_chunk("chara", &good), card_chunk("ccv3", b"[1,2]")]);
    assert_eq!(refused(import(&png, &Limits::default())), CardError::NotAnObject);
}

// --- JSON bombs and bad cards --------------------------------------------------------------

#[test]
fn deep_json_is_refused_without_recursion() {
    let limits = Limits::default();
    let nest = |depth: usize| {
        format!(
            r#"{{"spec":"chara_card_v2","data":{{"name":"D","extensions":{{"x":{}1{}}}}}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    // 3 levels of object around the array: 61 arrays reach 64, 62 go over.
    assert!(import(nest(61).as_bytes(), &limits).is_ok());
    assert_eq!(refused(import(nest(62).as_bytes(), &limits)), CardError::JsonTooDeep { limit: 64 });
    // Far past serde's own recursion limit, and no stack overflow.
    assert_eq!(refused(import(nest(1_000_000).as_bytes(), &limits)), CardError::JsonTooDeep { limit: 64 });
    // Brackets inside strings do not count.
    let in_string = format!(r#"{{"name":"D","description":"{}"}}"#, "[{".repeat(500));
    assert!(import(in_string.as_bytes(), &limits).is_ok());
}

#[test]
fn giant_strings_anywhere_are_refused_naming_the_field() {
    let big = "x".repeat(64 * 1024 + 1);
    let err = import_v2(json!({"name": "G", "description": big}));
    assert_eq!(
        err,
        CardError::StringTooLong { path: "data.description".into(), bytes: 64 * 1024 + 1, limit: 64 * 1024 }
    );
    let err = import_v2(json!({"name": "G", "alternate_greetings": ["hi", big]}));
    assert!(
        matches!(err, CardError::StringTooLong { ref path, .. } if path == "data.alternate_greetings[1]"),
        "{err:?}"
    );
    let err = import_v2(json!({"name": "G", "extensions": {"app": {"blob": big}}}));
    assert!(matches!(err, CardError::StringTooLong { ref path, .. } if path == "data.extensions.app.blob"), "{err:?}");
    let err = import_v2(json!({"name": "n".repeat(257)}));
    assert_eq!(err, CardError::StringTooLong { path: "data.name".into(), bytes: 257, limit: 256 });
    // Exactly at the limit is fine.
    assert!(import(&v2(json!({"name": "G", "description": "x".repeat(64 * 1024)})), &Limits::default()).is_ok());
}

#[test]
fn too_many_lorebook_entries_or_list_items_are_refused() {
    let entries: Vec<Value> = (0..1001).map(|i| json!({"keys": [format!("k{i}")], "content": "c"})).collect();
    let err = import_v2(json!({"name": "L", "character_book": {"entries": entries}}));
    assert_eq!(err, CardError::TooManyLorebookEntries { count: 1001, limit: 1000 });
    let ok: Vec<Value> = entries[..1000].to_vec();
    assert!(import(&v2(json!({"name": "L", "character_book": {"entries": ok}})), &Limits::default()).is_ok());
    let tags: Vec<String> = (0..1001).map(|i| format!("t{i}")).collect();
    let err = import_v2(json!({"name": "T", "tags": tags}));
    assert_eq!(err, CardError::TooManyItems { path: "data.tags".into(), count: 1001, limit: 1000 });
}

#[test]
fn a_card_without_a_name_is_refused() {
    assert_eq!(import_v2(json!({"description": "nobody"})), CardError::MissingName);
    assert_eq!(import_v2(json!({"name": "   "})), CardError::MissingName);
    assert_eq!(import_v2(json!({"name": null})), CardError::MissingName);
    assert_eq!(refused(import(br#"{"description": "v1 without name"}"#, &Limits::default())), CardError::MissingName);
}

#[test]
fn a_wrong_spec_is_refused() {
    let err = refused(import(br#"{"spec":"chara_card_v9","data":{"name":"W"}}"#, &Limits::default()));
    assert_eq!(err, CardError::WrongSpec { found: "chara_card_v9".into() });
    let err = refused(import(br#"{"spec":3,"data":{"name":"W"}}"#, &Limits::default()));
    assert_eq!(err, CardError::WrongSpec { found: "3".into() });
    let err = refused(import(br#"{"spec":"chara_card_v3","spec_version":"3.0"}"#, &Limits::default()));
    assert_eq!(err, CardError::InvalidField { path: "data".into(), message: "missing".into() });
}

#[test]
fn fields_of_the_wrong_type_are_refused_naming_the_field() {
    let err = import_v2(json!({"name": "F", "tags": "one,two"}));
    assert!(matches!(err, CardError::InvalidField { ref path, .. } if path == "data.tags"), "{err:?}");
    let err = import_v2(json!({"name": "F", "character_book": {"entries": [{"keys": "k", "content": "c"}]}}));
    assert!(
        matches!(err, CardError::InvalidField { ref path, .. } if path == "data.character_book.entries[0].keys"),
        "{err:?}"
    );
}

#[test]
fn json_that_is_not_a_card_object_is_refused() {
    let limits = Limits::default();
    assert_eq!(refused(import_json(b"[1]", &limits)), CardError::NotAnObject);
    assert_eq!(refused(import(b"{\"name\": \"x\",}", &limits)).code(), "json");
    assert_eq!(refused(import(b"hello", &limits)), CardError::UnknownFormat);
    assert_eq!(refused(import(b"", &limits)), CardError::UnknownFormat);
    let big = format!(r#"{{"name":"B","description":"{}"}}"#, "y".repeat(2 * 1024 * 1024));
    assert!(matches!(refused(import(big.as_bytes(), &limits)), CardError::JsonTooLarge { .. }));
}

// --- CHARX ---------------------------------------------------------------------------------

fn zip_of(entries: &[(&str, &[u8])], method: CompressionMethod) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        zip.start_file(*name, SimpleFileOptions::default().compression_method(method))
            .unwrap_or_else(|e| panic!("start {name}: {e}"));
        zip.write_all(bytes).unwrap_or_else(|e| panic!("write {name}: {e}"));
    }
    zip.finish().unwrap_or_else(|e| panic!("finish: {e}")).into_inner()
}

fn card_json() -> Vec<u8> {
    serde_json::to_vec(&json!({"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "Z", "assets": [{"type": "icon", "uri": "embeded://assets/icon/main.png", "name": "main", "ext": "png"}]
    }}))
    .unwrap_or_else(|e| panic!("json: {e}"))
}

/// Renames an entry in place (local header and central directory), for names a zip writer
/// would not write.
fn rename(mut zip: Vec<u8>, from: &str, to: &str) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut at = 0;
    while let Some(pos) = zip[at..].windows(from.len()).position(|w| w == from.as_bytes()) {
        zip[at + pos..at + pos + from.len()].copy_from_slice(to.as_bytes());
        at += pos + from.len();
    }
    zip
}

#[test]
fn a_charx_with_a_traversal_or_absolute_name_is_refused() {
    let icon = data("charx_icon.png");
    let good = zip_of(&[("card.json", &card_json()), ("xx/evil.png", &icon)], CompressionMethod::Deflated);
    assert!(import(&good, &Limits::default()).is_ok());
    for name in ["../evil.png", "/x/evil.png", "x\\evil.png", "C:/evil.png"] {
        let bad = rename(good.clone(), "xx/evil.png", &format!("{name:x<11}")[..11]);
        let err = refused(import(&bad, &Limits::default()));
        assert!(matches!(err, CardError::ZipUnsafePath { .. }), "{name}: {err:?}");
    }
}

#[test]
fn a_charx_with_too_many_entries_is_refused() {
    let names: Vec<String> = (0..257).map(|i| format!("x_meta/{i}.json")).collect();
    let card = card_json();
    let mut entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"{}"[..])).collect();
    entries.push(("card.json", &card));
    let err = refused(import(&zip_of(&entries, CompressionMethod::Stored), &Limits::default()));
    assert_eq!(err, CardError::ZipTooManyEntries { count: 258, limit: 256 });
}

#[test]
fn a_charx_compression_bomb_is_refused() {
    let zeros = vec![0u8; 20 * 1024 * 1024];
    let bomb = zip_of(&[("card.json", &card_json()), ("assets/other/zeros.bin", &zeros)], CompressionMethod::Deflated);
    assert!(bomb.len() < 100 * 1024, "the bomb is small: {}", bomb.len());
    assert_eq!(
        refused(import(&bomb, &Limits::default())),
        CardError::ZipBomb { name: "assets/other/zeros.bin".into() }
    );
}

#[test]
fn a_charx_icon_bigger_than_allowed_is_refused() {
    let limits = Limits { max_zip_entry_bytes: 1000, ..Limits::default() };
    let zip = zip_of(
        &[("card.json", &card_json()), ("assets/icon/main.png", &data("charx_icon.png"))],
        CompressionMethod::Stored,
    );
    assert_eq!(refused(import_charx(&zip, &limits)), CardError::ZipBomb { name: "assets/icon/main.png".into() });
}

#[test]
fn a_charx_without_a_card_or_not_a_zip_is_refused() {
    let zip = zip_of(&[("assets/icon/main.png", &data("charx_icon.png"))], CompressionMethod::Stored);
    assert_eq!(refused(import(&zip, &Limits::default())), CardError::ZipMissingCard);
    assert_eq!(refused(import(b"PK\x03\x04 not really a zip", &Limits::default())).code(), "zip");
    let big = format!(r#"{{"name":"B","description":"{}"}}"#, "y".repeat(2 * 1024 * 1024));
    let zip = zip_of(&[("card.json", big.as_bytes())], CompressionMethod::Stored);
    assert!(matches!(refused(import(&zip, &Limits::default())), CardError::JsonTooLarge { .. }));
}

#[test]
fn a_charx_whose_icon_is_missing_imports_without_a_portrait() {
    let zip = zip_of(&[("card.json", &card_json())], CompressionMethod::Deflated);
    let got = import(&zip, &Limits::default()).unwrap_or_else(|e| panic!("import: {e}"));
    assert!(got.portrait.is_none());
}

// --- Export --------------------------------------------------------------------------------

#[test]
fn export_refuses_what_it_could_not_import_again() {
    let limits = Limits::default();
    let card = import(&data("v3.png"), &limits).unwrap_or_else(|e| panic!("import: {e}")).card;
    assert_eq!(export_png(&card, b"not a png", &limits), Err(CardError::PngSignature));
    let mut broken = data("charx_icon.png");
    broken[30] ^= 0x10;
    assert!(matches!(export_png(&card, &broken, &limits), Err(CardError::PngBadCrc { .. })));
    let nameless = Card::default();
    assert_eq!(export_png(&nameless, &data("charx_icon.png"), &limits), Err(CardError::MissingName));
    assert_eq!(export_json(&nameless, &limits), Err(CardError::MissingName));
    let mut huge = card.clone();
    huge.data.description = "x".repeat(70 * 1024);
    assert!(matches!(export_json(&huge, &limits), Err(CardError::StringTooLong { .. })));
    assert!(matches!(export_png(&huge, &data("charx_icon.png"), &limits), Err(CardError::StringTooLong { .. })));
}

/// Regex keys cost a compilation each and a pass over the chat at every scan: a card holds
/// at most `max_regex_keys` of them (and `max_lorebook_keys` keys in all), each at most
/// `max_regex_key_bytes` long and compiling within the regex size limit.
#[test]
fn a_lorebook_with_too_many_or_too_big_regex_keys_is_refused() {
    let limits = Limits::default();
    let regex_entry = |keys: Vec<String>| json!({"keys": keys, "content": "c", "use_regex": true});
    // 22,500 regex keys (the card that stalled the chat engine): 900 entries of 25.
    let entries: Vec<Value> =
        (0..900).map(|e| regex_entry((0..25).map(|k| format!("/k{e}x{k}\\w*/i")).collect())).collect();
    let err = import_v2(json!({"name": "R", "character_book": {"entries": entries}}));
    assert_eq!(err, CardError::TooManyRegexKeys { count: 22_500, limit: limits.max_regex_keys });
    // As many plain keys are over the limit of keys in all.
    let entries: Vec<Value> = (0..900)
        .map(|e| json!({"keys": (0..25).map(|k| format!("k{e}x{k}")).collect::<Vec<_>>(), "content": "c"}))
        .collect();
    let err = import_v2(json!({"name": "P", "character_book": {"entries": entries}}));
    assert_eq!(err, CardError::TooManyLorebookKeys { count: 22_500, limit: limits.max_lorebook_keys });
    // Exactly at the regex limit is fine.
    let entries: Vec<Value> =
        (0..limits.max_regex_keys).map(|e| regex_entry(vec![format!(r"/\bk{e}\w*\b/i")])).collect();
    assert!(import(&v2(json!({"name": "R", "character_book": {"entries": entries}})), &limits).is_ok());

    // A pathological pattern: tiny to write, far too big to compile.
    let err = import_v2(json!({"name": "B", "character_book": {"entries": [
        regex_entry(vec!["fine".into()]), regex_entry(vec!["/ok/".into(), "(a{1000}){1000}".into()])]}}));
    assert!(
        matches!(err, CardError::RegexTooLarge { ref path, .. } if path == "character_book.entries[1].keys[1]"),
        "{err:?}"
    );
    assert_eq!(err.code(), "regex_too_large");
    // A long pattern is refused before it is compiled.
    let long = format!("/{}/", "(ab|cd)".repeat(limits.max_regex_key_bytes / 7 + 1));
    let err = import_v2(json!({"name": "L", "character_book": {"entries": [regex_entry(vec![long])]}}));
    assert!(matches!(err, CardError::RegexTooLarge { .. }), "{err:?}");
    // A pattern the regex crate cannot read (JavaScript's look-behind) still imports, as
    // SillyTavern's books often hold them: it matches nothing, as before.
    let js = regex_entry(vec!["/(?<=Mr\\. )Smith/".into()]);
    assert!(import(&v2(json!({"name": "J", "character_book": {"entries": [js]}})), &limits).is_ok());
    // Plain keys in a non-regex entry are not patterns, whatever they look like.
    let plain = json!({"keys": ["(a{1000}){1000}"], "content": "c"});
    assert!(import(&v2(json!({"name": "P", "character_book": {"entries": [plain]}})), &limits).is_ok());
}
