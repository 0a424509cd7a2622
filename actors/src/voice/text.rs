//! What of a message is spoken, and in which pieces. Replies are written with roleplay
//! markup: `*smiles softly*` is an action, not speech, so it is left out; `**really**` and
//! `_really_` are emphasis, so the word is kept without its marks. The rest of Markdown's
//! punctuation (headings, code ticks, links' brackets) is not read aloud either.

/// The spoken text of `content`, at most `max_chars` characters (cut at a sentence end, or
/// else a space, when one is near).
pub fn speakable(content: &str, max_chars: usize) -> String {
    let without_actions = drop_actions(content);
    let mut out = String::with_capacity(without_actions.len());
    for c in without_actions.chars() {
        match c {
            '*' | '_' | '`' | '#' | '~' | '[' | ']' | '<' | '>' | '|' => out.push(' '),
            _ => out.push(c),
        }
    }
    let collapsed = out.split_whitespace().collect::<Vec<_>>().join(" ");
    cut(&collapsed, max_chars)
}

/// Removes `*action*` spans (single asterisks around text, not `**bold**`).
fn drop_actions(content: &str) -> String {
    let chars: Vec<char> = content.chars().collect();
    let mut out = String::with_capacity(content.len());
    let mut i = 0;
    while i < chars.len() {
        let single_star = chars[i] == '*' && chars.get(i + 1) != Some(&'*') && (i == 0 || chars[i - 1] != '*');
        if single_star && let Some(end) = (i + 1..chars.len()).find(|&j| chars[j] == '*') {
            // An action ends at the next asterisk; a lone `*` stays (and is blanked later).
            if chars.get(end + 1) != Some(&'*') {
                out.push(' ');
                i = end + 1;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn cut(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let head: String = text.chars().take(max_chars).collect();
    if text.chars().nth(max_chars).is_some_and(char::is_whitespace) {
        // The cut falls between words already.
        return head;
    }
    // A sentence end in the second half keeps whole sentences; else the last space.
    let floor = head.len() / 2;
    let sentence_end = head.rfind(['.', '!', '?', '…']).filter(|&at| at >= floor);
    match sentence_end {
        Some(at) => head[..at + head[at..].chars().next().map_or(1, char::len_utf8)].to_owned(),
        None => match head.rfind(' ').filter(|&at| at >= floor) {
            Some(at) => head[..at].to_owned(),
            None => head,
        },
    }
}

/// Sentences of `text`, each with its closing punctuation.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?' | '…') {
            // Several marks end one sentence ("?!", "...").
            let mut end = at + c.len_utf8();
            while let Some(&(next_at, next)) = chars.peek() {
                if matches!(next, '.' | '!' | '?' | '…' | '"' | '\'' | ')' | '”' | '’') {
                    end = next_at + next.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            if chars.peek().is_none_or(|&(_, next)| next.is_whitespace()) {
                let sentence = text[start..end].trim();
                if !sentence.is_empty() {
                    out.push(sentence);
                }
                start = end;
            }
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// The pieces `text` is spoken in: the first is one sentence (short, so sound starts
/// soon), the next hold whole sentences up to `part_chars` each. A sentence longer than
/// that is a piece of its own.
pub fn parts(text: &str, part_chars: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for (n, sentence) in sentences(text).into_iter().enumerate() {
        let fits = current.chars().count() + 1 + sentence.chars().count() <= part_chars;
        if n == 1 || (!current.is_empty() && !fits) {
            out.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(sentence);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_left_out_and_emphasis_keeps_its_words() {
        assert_eq!(
            speakable("*smiles softly* Hello **you**! I _really_ missed you. *waves*", 500),
            "Hello you ! I really missed you."
        );
        assert_eq!(speakable("# Title\nSee `this` [link] ~gone~", 500), "Title See this link gone");
        assert_eq!(speakable("2 * 3 = 6", 500), "2 3 = 6", "a lone asterisk is not an action");
        assert_eq!(speakable("*only an action*", 500), "");
    }

    #[test]
    fn long_text_is_cut_at_a_sentence_or_a_word() {
        let text = "One two three. Four five six seven eight nine ten.";
        assert_eq!(speakable(text, 40), "One two three. Four five six seven eight");
        assert_eq!(
            speakable("Short one. And then a longer second sentence here.", 48),
            "Short one. And then a longer second sentence"
        );
        assert_eq!(speakable("First sentence here. Second sentence here.", 30), "First sentence here.");
        assert_eq!(speakable("abcdefghij", 4), "abcd");
        assert_eq!(speakable("Ça va très bien…", 100), "Ça va très bien…");
    }

    #[test]
    fn the_first_part_is_one_sentence_and_the_rest_are_grouped() {
        let text = "Hi! How are you? I thought of you today. The river was calm. We should walk there. Soon?";
        assert_eq!(
            parts(text, 45),
            vec!["Hi!", "How are you? I thought of you today.", "The river was calm. We should walk there.", "Soon?"]
        );
        assert_eq!(parts("No end mark", 45), vec!["No end mark"]);
        assert_eq!(parts("Wait... what?! Really.", 100), vec!["Wait...", "what?! Really."]);
        assert_eq!(parts("Version 1.5 is out. Yes.", 100), vec!["Version 1.5 is out.", "Yes."]);
        assert!(parts("", 45).is_empty());
    }
}
