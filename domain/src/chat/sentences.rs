//! Where sentences end in a reply (Latin and CJK punctuation, closing quotes, actions), and
//! a reply stopped by the token limit cut back to its last complete sentence.

/// Closing marks that may follow a sentence's end and belong to it: quotes, brackets and
/// the asterisk or underscore that closes an action or emphasis (`*smiles.*`).
const CLOSERS: &[char] = &['"', '\'', '”', '’', '»', '«', ')', ']', '」', '』', '）', '*', '_'];
/// Ends of sentences that need a space (or the end of the text) after them.
const LATIN_ENDS: &[char] = &['.', '!', '?', '…'];
/// Ends of sentences in Chinese, Japanese and Korean full-width punctuation: no space follows.
const CJK_ENDS: &[char] = &['。', '！', '？', '．'];

/// The byte length of `text` up to and including its last complete sentence (with its
/// closing quotes or asterisks), or `None` when it has no sentence end. A sentence ends at
/// `.`, `!`, `?`, `…` followed by a space or the end of the text (so "3.5" does not end
/// one), at `。！？` anywhere, or at the asterisk that closes an action (`*smiles*`).
pub fn last_sentence_end(text: &str) -> Option<usize> {
    sentence_ends(text).last().copied()
}

/// The byte lengths of `text` up to and including each of its complete sentences, in
/// order (as [`last_sentence_end`] finds the last).
pub fn sentence_ends(text: &str) -> Vec<usize> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut ends = Vec::new();
    let mut asterisks = 0;
    for (i, &(_, c)) in chars.iter().enumerate() {
        if c == '*' {
            asterisks += 1;
        }
        let closes_action = c == '*' && asterisks % 2 == 0;
        let may_end = LATIN_ENDS.contains(&c) || CJK_ENDS.contains(&c) || closes_action;
        if !may_end {
            continue;
        }
        // Take the closing marks that follow, then look at what comes after them.
        let mut j = i + 1;
        let mut open_asterisks = asterisks;
        while let Some(&(_, next)) = chars.get(j) {
            if !CLOSERS.contains(&next) {
                break;
            }
            if next == '*' {
                // Only an asterisk that closes an action belongs to the sentence.
                if open_asterisks % 2 == 0 {
                    break;
                }
                open_asterisks += 1;
            }
            j += 1;
        }
        let end = chars.get(j).map_or(text.len(), |&(at, _)| at);
        let followed_by_space = chars.get(j).is_none_or(|&(_, next)| next.is_whitespace());
        if (CJK_ENDS.contains(&c) || followed_by_space) && ends.last() != Some(&end) {
            ends.push(end);
        }
    }
    ends
}

/// Whether `text` ends with a complete sentence (trailing spaces aside).
pub fn ends_at_sentence(text: &str) -> bool {
    let text = text.trim_end();
    !text.is_empty() && last_sentence_end(text) == Some(text.len())
}

/// A reply as it is kept: one that the token limit stopped (`hit_limit`) loses the part
/// after its last complete sentence; with no complete sentence at all it stays as written
/// and is marked cut (`true`), so the user can have it continued.
pub fn end_reply(text: &str, hit_limit: bool) -> (String, bool) {
    let text = text.trim();
    if !hit_limit || ends_at_sentence(text) {
        return (text.to_owned(), false);
    }
    match last_sentence_end(text) {
        Some(end) => (text[..end].trim_end().to_owned(), false),
        None => (text.to_owned(), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentence_ends_are_found_after_punctuation_quotes_and_actions() {
        fn end(text: &str) -> Option<&str> {
            last_sentence_end(text).map(|at| &text[..at])
        }
        assert_eq!(end("Hi there. I was about to"), Some("Hi there."));
        assert_eq!(end("Really?! Wow… and then"), Some("Really?! Wow…"));
        assert_eq!(end("She said \"Stay.\" Then she"), Some("She said \"Stay.\""));
        assert_eq!(end("*smiles* Well, I"), Some("*smiles*"));
        assert_eq!(end("*She laughs.* You"), Some("*She laughs.*"));
        assert_eq!(end("It costs 3.5 euros and"), None, "a decimal point ends nothing");
        assert_eq!(end("Wait... I think"), Some("Wait..."));
        assert_eq!(end("こんにちは。元気ですか？今日は"), Some("こんにちは。元気ですか？"));
        assert_eq!(end("no end at all"), None);
        assert_eq!(end("*leans closer and"), None, "an action still open ends nothing");
        assert_eq!(sentence_ends("Hi. Really?! Wow… and"), vec![3, 12, 19]);
        assert_eq!(sentence_ends("*waves.* Hi!"), vec![8, 12]);
        assert!(ends_at_sentence("Done! "));
        assert!(ends_at_sentence("*waves*"));
        assert!(!ends_at_sentence("Done and"));
        assert!(!ends_at_sentence(""));
    }

    #[test]
    fn a_reply_stopped_by_the_token_limit_ends_at_its_last_sentence_or_is_marked_cut() {
        assert_eq!(end_reply("I love rain. It makes the café feel like", true), ("I love rain.".to_owned(), false));
        assert_eq!(end_reply("  Stay a while! \n", true), ("Stay a while!".to_owned(), false));
        assert_eq!(
            end_reply("I was walking along the harbour when I", true),
            ("I was walking along the harbour when I".to_owned(), true),
            "no sentence end: kept whole and cut"
        );
        assert_eq!(
            end_reply("The model stopped on its own without a full stop", false),
            ("The model stopped on its own without a full stop".to_owned(), false),
            "only the token limit trims"
        );
        assert_eq!(end_reply("*grins* Fine, but only if", true), ("*grins*".to_owned(), false));
    }
}
