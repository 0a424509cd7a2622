//! PNG chunks, walked by hand: the card lives in `tEXt` chunks and export must copy every
//! other chunk (IDAT above all) byte for byte, which a decoding library would not do.
//! Layout (PNG spec, section 5): 8-byte signature, then chunks of
//! length (u32 BE) | type (4 ASCII letters) | data | CRC-32 of type and data.

use crate::error::CardError;
use crate::limits::Limits;

pub const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

/// tEXt keywords of the card chunks (matched without case on import, as SillyTavern does).
pub const CHARA: &str = "chara";
pub const CCV3: &str = "ccv3";

/// One chunk, borrowing the file: `raw` is the whole chunk (length to CRC) for copying.
#[derive(Debug, Clone, Copy)]
pub struct Chunk<'a> {
    pub kind: [u8; 4],
    pub data: &'a [u8],
    pub raw: &'a [u8],
}

impl<'a> Chunk<'a> {
    pub fn kind_str(&self) -> String {
        String::from_utf8_lossy(&self.kind).into_owned()
    }

    /// For a tEXt chunk: keyword and text (Latin-1 in the spec; card text is base64, ASCII).
    pub fn text(&self) -> Option<(&'a [u8], &'a [u8])> {
        if &self.kind != b"tEXt" {
            return None;
        }
        let data: &'a [u8] = self.data;
        let nul = data.iter().position(|&b| b == 0)?;
        Some((&data[..nul], &data[nul + 1..]))
    }

    fn is_card_text(&self) -> bool {
        self.text()
            .is_some_and(|(k, _)| k.eq_ignore_ascii_case(CHARA.as_bytes()) || k.eq_ignore_ascii_case(CCV3.as_bytes()))
    }
}

/// Every chunk from the signature to IEND, each CRC checked. Bytes after IEND are ignored
/// (some editors leave them; no reader looks there).
pub fn chunks<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Vec<Chunk<'a>>, CardError> {
    if bytes.len() > limits.max_file_bytes {
        return Err(CardError::FileTooLarge { size: bytes.len(), limit: limits.max_file_bytes });
    }
    if bytes.len() < SIGNATURE.len() || bytes[..8] != SIGNATURE {
        return Err(CardError::PngSignature);
    }
    let mut out = Vec::new();
    let mut at = SIGNATURE.len();
    loop {
        let head = bytes.get(at..at + 8).ok_or(CardError::PngTruncated { offset: at })?;
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        if len > 0x7FFF_FFFF {
            return Err(CardError::PngMalformed { reason: "chunk length over 2^31-1" });
        }
        let kind = [head[4], head[5], head[6], head[7]];
        if !kind.iter().all(u8::is_ascii_alphabetic) {
            return Err(CardError::PngMalformed { reason: "chunk type is not four letters" });
        }
        let end = at.checked_add(12 + len).ok_or(CardError::PngTruncated { offset: at })?;
        let raw = bytes.get(at..end).ok_or(CardError::PngTruncated { offset: at })?;
        let data = &raw[8..8 + len];
        let crc = u32::from_be_bytes([raw[8 + len], raw[9 + len], raw[10 + len], raw[11 + len]]);
        if crc32fast::hash(&raw[4..8 + len]) != crc {
            return Err(CardError::PngBadCrc { chunk: String::from_utf8_lossy(&kind).into_owned(), offset: at });
        }
        if out.is_empty() && &kind != b"IHDR" {
            return Err(CardError::PngMalformed { reason: "the first chunk is not IHDR" });
        }
        out.push(Chunk { kind, data, raw });
        at = end;
        if &kind == b"IEND" {
            return Ok(out);
        }
    }
}

/// The text of the first tEXt chunk with this keyword.
pub fn find_text<'a>(chunks: &[Chunk<'a>], keyword: &str) -> Option<&'a [u8]> {
    chunks.iter().find_map(|c| {
        let (k, text) = c.text()?;
        k.eq_ignore_ascii_case(keyword.as_bytes()).then_some(text)
    })
}

/// A tEXt chunk, CRC included.
pub fn text_chunk(keyword: &str, text: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(4 + keyword.len() + 1 + text.len());
    body.extend_from_slice(b"tEXt");
    body.extend_from_slice(keyword.as_bytes());
    body.push(0);
    body.extend_from_slice(text);
    let len = (body.len() - 4) as u32;
    let mut out = Vec::with_capacity(body.len() + 8);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
    out
}

/// The PNG again with every card chunk removed and `insert` placed just before IEND
/// (where SillyTavern puts them); all other chunks are copied unchanged.
pub fn rebuild(chunks: &[Chunk<'_>], insert: &[Vec<u8>]) -> Vec<u8> {
    let size = 8 + chunks.iter().map(|c| c.raw.len()).sum::<usize>() + insert.iter().map(Vec::len).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&SIGNATURE);
    for chunk in chunks {
        if chunk.is_card_text() {
            continue;
        }
        if &chunk.kind == b"IEND" {
            for extra in insert {
                out.extend_from_slice(extra);
            }
        }
        out.extend_from_slice(chunk.raw);
    }
    out
}
