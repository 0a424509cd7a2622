//! The placeholders of character texts (spec §3): `{{user}}`, `{{char}}`, their
//! single-brace forms and the legacy forms of character cards, filled in one pass.

/// Replaces the user and character placeholders of a character text: `{{user}}`,
/// `{{char}}`, the single-brace forms `{user}`, `{char}` (spec §3) and the legacy forms of
/// character cards `<USER>`, `<BOT>`, `<CHAR>`, in any letter case. One pass, left to
/// right: a name that itself holds a placeholder is not expanded again.
pub fn fill_placeholders(template: &str, user_name: &str, character_name: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find(['{', '<']) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        match placeholder_at(tail) {
            Some((Placeholder::User, len)) => {
                out.push_str(user_name);
                rest = &tail[len..];
            }
            Some((Placeholder::Char, len)) => {
                out.push_str(character_name);
                rest = &tail[len..];
            }
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

enum Placeholder {
    User,
    Char,
}

/// The placeholder that `text` (starting with `{` or `<`) opens, and its length in bytes.
fn placeholder_at(text: &str) -> Option<(Placeholder, usize)> {
    if text.starts_with('<') {
        // The TavernAI forms character cards still carry (amora_cards::replace_macros reads the same).
        return [("<user>", Placeholder::User), ("<bot>", Placeholder::Char), ("<char>", Placeholder::Char)]
            .into_iter()
            .find(|(form, _)| text.get(..form.len()).is_some_and(|head| head.eq_ignore_ascii_case(form)))
            .map(|(form, which)| (which, form.len()));
    }
    let (braces, inner) = match text.strip_prefix("{{") {
        Some(inner) => (2, inner),
        None => (1, &text[1..]),
    };
    for (name, which) in [("user", Placeholder::User), ("char", Placeholder::Char)] {
        let Some(candidate) = inner.get(..name.len()) else { continue };
        if !candidate.eq_ignore_ascii_case(name) {
            continue;
        }
        let closing = "}".repeat(braces);
        if inner[name.len()..].starts_with(&closing) {
            return Some((which, braces + name.len() + braces));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_in_single_or_double_braces_are_replaced_in_any_case() {
        let text = "Hi {{user}}, I'm {{char}}. {user} meets {Char}; {{USER}}! {notme} {{user}";
        assert_eq!(fill_placeholders(text, "Ann", "Mia"), "Hi Ann, I'm Mia. Ann meets Mia; Ann! {notme} {Ann");
        assert_eq!(fill_placeholders("{", "Ann", "Mia"), "{");
        assert_eq!(fill_placeholders("日本{{user}}語", "Ann", "Mia"), "日本Ann語");
        // The legacy forms of character cards.
        assert_eq!(
            fill_placeholders("<USER> and <bot>, <Char>; <start> <", "Ann", "Mia"),
            "Ann and Mia, Mia; <start> <"
        );
        // One pass: a name holding a placeholder stays as written.
        assert_eq!(fill_placeholders("{{user}} <bot>", "<bot>", "{{user}}"), "<bot> {{user}}");
    }
}
