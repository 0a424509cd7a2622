//! CHARX (the V3 spec's archive, written by RisuAI): a zip with `card.json` at its root and
//! assets referenced from the card as `embeded://path/in/zip`. We read only `card.json` and
//! the main icon, each through a size cap, after checking every entry's name and ratio.
//! RisuAI's "CHARX-JPEG" is the same zip appended to a JPEG; the zip reader finds it past
//! the picture, and the picture stands in for an icon the archive lacks.

use std::io::{Cursor, Read};

use crate::error::CardError;
use crate::limits::Limits;
use crate::model::Card;

/// What a CHARX holds for us: the card and the main icon's bytes, when there is one.
pub(crate) struct Charx {
    pub card: Card,
    pub spec: crate::json::SpecVersion,
    pub icon: Option<(Vec<u8>, String)>,
    /// The archive came appended to a JPEG.
    pub in_jpeg: bool,
}

const JPEG_SOI: [u8; 3] = [0xFF, 0xD8, 0xFF];

const EMBEDDED: &str = "embeded://";

pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<Charx, CardError> {
    let zip_err = |e: zip::result::ZipError| CardError::Zip { message: e.to_string() };
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(zip_err)?;
    if archive.len() > limits.max_zip_entries {
        return Err(CardError::ZipTooManyEntries { count: archive.len(), limit: limits.max_zip_entries });
    }
    for i in 0..archive.len() {
        let entry = archive.by_index_raw(i).map_err(zip_err)?;
        let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        if !safe_name(&name) || entry.enclosed_name().is_none() {
            return Err(CardError::ZipUnsafePath { name });
        }
        // A ratio is only a bomb when it also makes something big: a few kilobytes of
        // blank JSON legitimately compress very well.
        let (size, packed) = (entry.size(), entry.compressed_size());
        if size > 1024 * 1024 && size > packed.saturating_mul(limits.max_zip_ratio) {
            return Err(CardError::ZipBomb { name });
        }
    }

    let json = read_entry(&mut archive, "card.json", limits.max_card_json_bytes)?.ok_or(CardError::ZipMissingCard)?;
    let json = json.map_err(|size| CardError::JsonTooLarge { size, limit: limits.max_card_json_bytes })?;
    let (card, spec) = crate::json::parse_card_json(&json, limits)?;

    let icon = match main_icon(&card) {
        Some((path, ext)) => match read_entry(&mut archive, &path, limits.max_zip_entry_bytes)? {
            Some(Ok(bytes)) => Some((bytes, ext)),
            Some(Err(_)) => return Err(CardError::ZipBomb { name: path }),
            // The card names an icon the archive lacks: the card is still whole, it has no portrait.
            None => None,
        },
        None => None,
    };
    let prefix = usize::try_from(archive.offset()).ok().and_then(|end| bytes.get(..end)).unwrap_or_default();
    let in_jpeg = prefix.starts_with(&JPEG_SOI);
    let icon = icon.or_else(|| in_jpeg.then(|| (prefix.to_vec(), "jpeg".to_owned())));
    Ok(Charx { card, spec, icon, in_jpeg })
}

/// The archive path and extension of the card's main icon: the `icon` asset named `main`,
/// else the first `icon` (the V3 spec's rule), when it is embedded in the archive.
fn main_icon(card: &Card) -> Option<(String, String)> {
    let assets = card.data.assets.as_ref()?;
    let icons = || assets.iter().filter(|a| a.kind == "icon");
    let icon = icons().find(|a| a.name == "main").or_else(|| icons().next())?;
    let path = icon.uri.strip_prefix(EMBEDDED)?;
    Some((path.to_owned(), icon.ext.clone()))
}

/// An entry's bytes, `Err(size)` when it expands past `cap`, `None` when absent.
fn read_entry(
    archive: &mut zip::ZipArchive<Cursor<&[u8]>>,
    name: &str,
    cap: usize,
) -> Result<Option<Result<Vec<u8>, usize>>, CardError> {
    let mut entry = match archive.by_name(name) {
        Ok(entry) => entry,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(CardError::Zip { message: e.to_string() }),
    };
    let mut out = Vec::new();
    (&mut entry)
        .take(cap as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| CardError::Zip { message: format!("{name}: {e}") })?;
    if out.len() > cap {
        return Ok(Some(Err(out.len())));
    }
    Ok(Some(Ok(out)))
}

/// A relative path with `/` separators, no `..`, no root, no drive, no backslash, no NUL.
fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('/')
        && !name.contains('\\')
        && !name.contains('\0')
        && !name.contains(':')
        && name.split('/').all(|part| part != "..")
}
