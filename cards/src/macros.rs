//! The name macros every card app understands: `{{char}}` and `{{user}}` (any case, as
//! SillyTavern reads them) and the legacy TavernAI forms `<BOT>`, `<CHAR>` and `<USER>`
//! (any case; the V3 spec names `<char>` and `<bot>`). One pass, left to right: a name
//! that itself contains `{{user}}` is not expanded again, so a card cannot smuggle text
//! in through a name. Other `{{...}}` macros are left as written.

const CHAR_FORMS: [&str; 3] = ["{{char}}", "<bot>", "<char>"];
const USER_FORMS: [&str; 2] = ["{{user}}", "<user>"];

/// `text` with the character's and the user's names in place of the macros. Pass
/// [`crate::Card::prompt_name`] as `char_name` (the V3 nickname when there is one).
pub fn replace_macros(text: &str, char_name: &str, user_name: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['{', '<']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let hit = CHAR_FORMS
            .iter()
            .map(|f| (f, char_name))
            .chain(USER_FORMS.iter().map(|f| (f, user_name)))
            .find(|(form, _)| tail.get(..form.len()).is_some_and(|head| head.eq_ignore_ascii_case(form)));
        match hit {
            Some((form, name)) => {
                out.push_str(name);
                rest = &tail[form.len()..];
            }
            None => {
                // Not a macro: keep the bracket and look on from the next character.
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}
