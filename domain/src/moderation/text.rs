//! What moderation reads a text as: several normalised views of it, so that the usual
//! tricks of writing a refused word fold back into the word (issue 27).
//!
//! Every view is lower case after Unicode compatibility folding (NFKC: full-width
//! "ｌｏｌｉ", mathematical "𝐥𝐨𝐥𝐢", circled and superscript letters), without invisible
//! characters (zero-width spaces and joiners, soft hyphens, word joiners, variation
//! selectors) and without diacritics on Latin letters ("chïld", "niña" → "nina"); anything
//! that is not a letter or a digit separates words, and every view starts and ends with a
//! space so that a term matches whole words only (" kid " is not in " kidding ").
//!
//! - `native`: just that. Terms of every language are matched here.
//! - `latin`: look-alike letters of other scripts folded to the Latin letter they imitate
//!   (Unicode's confusables skeleton, UTS #39), in words that mix scripts or are made only
//!   of look-alikes ("lоli" with a Cyrillic о); words of a real other-script language keep
//!   their letters ("ей 14 лет" stays Russian).
//! - `leet`: digits and symbols inside words read as letters, twice (1 as i, and as l):
//!   "l0l1", "und3rag3", "ch1ld", "$ex".
//! - `joined`: letters split by separators joined again: "l o l i", "lo-li",
//!   "u.n.d.e.r.a.g.e", "l*o*l*i".
//! - `squeezed`: letters written three or more times in a row cut to two ("looooli" →
//!   "looli", "teeeen" → "teen"); `single`: every run cut to one letter, matched only
//!   against terms long enough not to collide with other words once cut the same way.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// The views of one text.
pub(crate) struct Views {
    pub native: String,
    /// The other views, each different from `native` and from each other.
    pub variants: Vec<String>,
    /// Every run of a letter cut to one: matched against single-cut terms only.
    pub single: String,
}

impl Views {
    pub fn of(text: &str) -> Views {
        let folded = fold(text);
        let native = words(&folded);
        let latin = to_latin(&native);
        let mut variants: Vec<String> = Vec::new();
        let push = |view: String, variants: &mut Vec<String>| {
            if view != native && !variants.contains(&view) {
                variants.push(view);
            }
        };
        push(latin.clone(), &mut variants);
        // Leet and joins are read on the text before punctuation became spaces ("$ex",
        // "lo-li"), with look-alikes folded.
        let folded_latin = to_latin(&folded);
        for one in ['i', 'l'] {
            let leet = unleet(&folded_latin, one);
            push(words(&leet), &mut variants);
            push(words(&join_letters(&leet)), &mut variants);
        }
        push(words(&join_letters(&folded_latin)), &mut variants);
        push(words(&join_letters(&folded)), &mut variants);
        let mut squeezed = Vec::new();
        for view in std::iter::once(&native).chain(variants.iter()) {
            let cut = squeeze(view, 2);
            if cut != *view {
                squeezed.push(cut);
            }
        }
        for view in squeezed {
            push(view, &mut variants);
        }
        // Only a text with a doubled letter has a view of its own cut to single letters.
        let cut = squeeze(&latin, 1);
        let single = if cut == latin { String::new() } else { cut };
        Views { native, variants, single }
    }

    /// Every view but `single`.
    pub fn all(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.native.as_str()).chain(self.variants.iter().map(String::as_str))
    }
}

/// Characters that write nothing: zero-width space, non-joiner and joiner, word joiner and
/// the invisible operators, the byte-order mark, soft hyphen, combining grapheme joiner,
/// Mongolian vowel separator, Hangul fillers, variation selectors and tag characters.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
        | '\u{E0000}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}')
}

/// NFKC, lower case, invisible characters out, Latin letters without their diacritics, and
/// a few Latin letters that have no decomposition read as their base ("ł", dotless "ı",
/// "ß", "ø").
pub(crate) fn fold(text: &str) -> String {
    let compatible: String = text.chars().filter(|&c| !invisible(c)).nfkc().collect();
    let mut out = String::with_capacity(compatible.len());
    for c in compatible.chars().flat_map(char::to_lowercase) {
        if invisible(c) {
            continue;
        }
        match c {
            'ł' => out.push('l'),
            'ı' => out.push('i'),
            'ß' => out.push_str("ss"),
            'ø' => out.push('o'),
            'đ' => out.push('d'),
            // Digits of other scripts (Thai, Arabic-Indic, Persian, Devanagari, Bengali)
            // read as digits: "อายุ ๑๓ ปี" states 13.
            '\u{0E50}'..='\u{0E59}' => out.push(char::from(b'0' + (c as u32 - 0x0E50) as u8)),
            '\u{0660}'..='\u{0669}' => out.push(char::from(b'0' + (c as u32 - 0x0660) as u8)),
            '\u{06F0}'..='\u{06F9}' => out.push(char::from(b'0' + (c as u32 - 0x06F0) as u8)),
            '\u{0966}'..='\u{096F}' => out.push(char::from(b'0' + (c as u32 - 0x0966) as u8)),
            '\u{09E6}'..='\u{09EF}' => out.push(char::from(b'0' + (c as u32 - 0x09E6) as u8)),
            c if c.is_ascii() => out.push(c),
            c => {
                let mut parts = std::iter::once(c).nfd();
                match parts.next() {
                    // A Latin letter with marks: the letter alone.
                    Some(base) if base.is_ascii_alphabetic() && parts.clone().all(is_combining_mark) => out.push(base),
                    // Marks over anything else are the script's own (Japanese dakuten,
                    // Cyrillic й): kept as written.
                    _ => out.push(c),
                }
            }
        }
    }
    // A combining mark left alone (typed after a letter) is dropped with its effect.
    out.chars().filter(|&c| !is_combining_mark(c)).collect()
}

/// Everything that is not a letter or a digit becomes one space; a space at both ends.
/// Between a digit and a CJK character a space is put too, so "14歳" reads as "14 歳".
pub(crate) fn words(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push(' ');
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if let Some(p) = previous
                && p.is_alphanumeric()
                && (p.is_ascii_digit() != c.is_ascii_digit())
                && (is_cjk(p) || is_cjk(c))
            {
                out.push(' ');
            }
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
        previous = Some(c);
    }
    if !out.ends_with(' ') {
        out.push(' ');
    }
    out
}

/// Han, kana and Hangul: written without spaces between words, so their terms match
/// anywhere rather than as whole words.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}'
        | '\u{AC00}'..='\u{D7AF}' | '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}'
        | '\u{F900}'..='\u{FAFF}' | '\u{31F0}'..='\u{31FF}')
}

/// The Latin letter a character imitates, when its confusables skeleton is one ASCII
/// letter (Cyrillic "о" → "o", Greek "ι" → "i").
fn latin_look_alike(c: char) -> Option<char> {
    if c.is_ascii() || !c.is_alphabetic() {
        return None;
    }
    let mut buffer = [0u8; 4];
    let mut skeleton = unicode_security::confusable_detection::skeleton(c.encode_utf8(&mut buffer));
    let first = skeleton.next()?;
    if skeleton.next().is_some() {
        return None;
    }
    let lower = first.to_ascii_lowercase();
    // The skeleton's prototypes are ASCII letters or digits that look alike; digits are
    // read as the letters they stand for ("0" for "o").
    match lower {
        'a'..='z' => Some(lower),
        '0' => Some('o'),
        '1' => Some('l'),
        _ => None,
    }
}

/// Words that mix in look-alike letters, or are made of them only, written in Latin.
fn to_latin(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let has_ascii_letter = word.chars().any(|c| c.is_ascii_alphabetic());
        let all_alike = word.chars().all(|c| c.is_ascii() || latin_look_alike(c).is_some());
        if has_ascii_letter || all_alike {
            out.extend(word.chars().map(|c| latin_look_alike(c).unwrap_or(c)));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || matches!(c, '@' | '$' | '!' | '|' | '€' | '+') {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Digits and symbols inside a word that also has letters, read as letters. `one` is
/// what "1" stands for.
fn unleet(text: &str, one: char) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_inclusive(|c: char| c.is_whitespace()) {
        let letters = word.chars().filter(|c| c.is_alphabetic()).count();
        let swaps = word.chars().filter(|&c| leet(c, one).is_some()).count();
        // "14yo", "18th" and "5pm" stay as written: a number with a unit is no word.
        let trimmed = word.trim();
        let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
        let number_with_unit = digits > 0 && UNIT_SUFFIXES.contains(&&trimmed[digits..]);
        if letters > 0 && swaps > 0 && !number_with_unit {
            out.extend(word.chars().map(|c| leet(c, one).unwrap_or(c)));
        } else {
            out.push_str(word);
        }
    }
    out
}

/// What may follow a number in one word without being a disguised letter.
const UNIT_SUFFIXES: &[&str] = &[
    "yo", "yrs", "yr", "y", "th", "st", "nd", "rd", "am", "pm", "s", "k", "m", "km", "cm", "mm", "kg", "g", "lb",
    "lbs", "h", "min", "x", "d", "p", "mb", "gb", "ft", "in", "er", "ers", "yo!", "k+", "s!",
];

fn leet(c: char, one: char) -> Option<char> {
    Some(match c {
        '0' => 'o',
        '1' => one,
        '3' => 'e',
        '4' => 'a',
        '5' => 's',
        '7' => 't',
        '8' => 'b',
        '9' => 'g',
        '@' => 'a',
        '$' => 's',
        '!' => 'i',
        '|' => 'l',
        '€' => 'e',
        '+' => 't',
        _ => return None,
    })
}

/// Letters split by separators written together again: a separator between two letters
/// goes ("lo-li", "u.n.d.e.r"), and a run of three or more one-letter words becomes one
/// word ("l o l i").
fn join_letters(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut glued = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let separator = matches!(
            c,
            '-' | '.'
                | '_'
                | '*'
                | '·'
                | '•'
                | '/'
                | '\\'
                | '\''
                | '"'
                | '`'
                | '^'
                | '~'
                | ','
                | ':'
                | '='
                | '#'
                | '%'
                | '&'
        );
        if separator {
            let before = i.checked_sub(1).and_then(|j| chars.get(j)).is_some_and(|c| c.is_alphabetic());
            // A run of separators ("l--o") counts as one.
            let after = chars[i + 1..].iter().find(|c| !c.is_ascii_punctuation()).is_some_and(|c| c.is_alphabetic());
            let previous_is_glue =
                i.checked_sub(1).and_then(|j| chars.get(j)).is_some_and(|c| c.is_ascii_punctuation());
            if (before || previous_is_glue) && after {
                continue;
            }
        }
        glued.push(c);
    }
    // Two spaces or more part runs of letters ("n u d e   k i d s" is two words).
    let mut out = String::with_capacity(glued.len());
    for segment in glued.split("  ").filter(|segment| !segment.trim().is_empty()) {
        join_single_letters(segment, &mut out);
    }
    out
}

/// A run of one-letter words written as one word.
fn join_single_letters(segment: &str, out: &mut String) {
    let words: Vec<&str> = segment.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let single = |w: &str| w.chars().count() == 1 && w.chars().all(char::is_alphabetic);
        let run = words[i..].iter().take_while(|w| single(w)).count();
        // Kana and Han letters are whole syllables: two of them spaced apart ("ロ リ") are
        // already a word; Latin letters need three ("a b" is no word).
        let syllables = words[i].chars().all(is_cjk);
        if run >= 3 || (run == 2 && syllables) {
            out.push_str(&words[i..i + run].concat());
            i += run;
        } else {
            out.push_str(words[i]);
            i += 1;
        }
        out.push(' ');
    }
}

/// Every run of one letter longer than `keep` cut to `keep`.
pub(crate) fn squeeze(text: &str, keep: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous = None;
    let mut run = 0;
    for c in text.chars() {
        if Some(c) == previous && c.is_alphabetic() {
            run += 1;
        } else {
            run = 1;
        }
        previous = Some(c);
        if run <= keep {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(text: &str, word: &str) -> bool {
        let views = Views::of(text);
        let needle = format!(" {word} ");
        views.all().chain([views.single.as_str()]).any(|view| view.contains(&needle))
    }

    #[test]
    fn the_usual_tricks_fold_back_into_the_word() {
        for trick in [
            "loli",
            "LOLI",
            "ｌｏｌｉ",
            "𝐥𝐨𝐥𝐢",
            "𝓵𝓸𝓵𝓲",
            "l\u{200B}oli",
            "lo\u{00AD}li",
            "l\u{2060}o\u{200D}li",
            "lоli", // Cyrillic о
            "lοli", // Greek ο
            "l0l1",
            "1oli",
            "l o l i",
            "lo-li",
            "l.o.l.i",
            "l*o*l*i",
            "looooli",
            "lólí",
        ] {
            assert!(reads(trick, "loli"), "{trick:?}: {:?}", Views::of(trick).variants);
        }
        assert!(reads("u.n.d.e.r.a.g.e", "underage"));
        assert!(reads("und3rag3", "underage"));
        assert!(reads("ch1ld", "child"));
        assert!(reads("teeeen", "teen"));
        assert!(reads("niña", "nina"));
        assert!(reads("１４歳", "歳"));
        assert!(reads("１４歳", "14"));
    }

    #[test]
    fn ordinary_words_keep_their_meaning() {
        assert!(!reads("kidding", "kid"));
        assert!(reads("ей 14 лет", "лет"));
        assert!(reads("14yo", "14yo"));
        assert!(!reads("the 18th", "ith"));
        assert!(reads("I'm 25", "25"));
        assert!(!reads("a lot of info", "lotofinfo"));
    }
}
