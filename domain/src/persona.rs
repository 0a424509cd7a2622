//! The user's persona (issue 18): the name and short description a person gives
//! themselves for characters to know them by. One for every character, and optionally one
//! per character that replaces it there. The name fills `{{user}}` in character texts and
//! the description goes into the prompt ("About Ann: …").

use serde::Serialize;

use crate::Invalid;
use crate::account::MAX_USER_NAME_CHARS;

/// Longest persona description, in characters: a few sentences, enough for a name's
/// job, looks and what the characters should know, short enough for a small model's prompt.
pub const MAX_PERSONA_DESCRIPTION_CHARS: usize = 500;

/// Who the user is to the characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserPersona {
    /// 1–30 characters, one line (the same rule as a user name).
    pub name: String,
    /// 0–500 characters; line breaks and tabs allowed, no other control characters.
    pub description: String,
}

impl UserPersona {
    /// Checks and tidies what a person wrote: both trimmed, `\r\n` made `\n`.
    pub fn parse(name: &str, description: &str) -> Result<Self, Invalid> {
        let name = name.trim();
        let count = name.chars().count();
        if count == 0 || count > MAX_USER_NAME_CHARS {
            return Err(Invalid::new("name", format!("must be 1 to {MAX_USER_NAME_CHARS} characters")));
        }
        if name.chars().any(char::is_control) {
            return Err(Invalid::new("name", "must be on one line, without control characters"));
        }
        let description = description.trim().replace("\r\n", "\n");
        if description.chars().count() > MAX_PERSONA_DESCRIPTION_CHARS {
            return Err(Invalid::new(
                "description",
                format!("must be at most {MAX_PERSONA_DESCRIPTION_CHARS} characters"),
            ));
        }
        if description.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
            return Err(Invalid::new("description", "must not hold control characters"));
        }
        Ok(Self { name: name.to_owned(), description })
    }
}

/// Which persona applies with `character`: its own override, else the one for every
/// character, else none (the account's name is used then). `personas` pairs each persona
/// with the character it is for (`None`: every character).
pub fn persona_for<'a, C: PartialEq>(
    personas: &'a [(Option<C>, UserPersona)],
    character: &C,
) -> Option<&'a UserPersona> {
    personas
        .iter()
        .find(|(for_character, _)| for_character.as_ref() == Some(character))
        .or_else(|| personas.iter().find(|(for_character, _)| for_character.is_none()))
        .map(|(_, persona)| persona)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_persona_is_trimmed_and_bounded() {
        let persona =
            UserPersona::parse("  Ann  ", " A night nurse.\r\nHas a dog, Biscuit. ").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            persona,
            UserPersona { name: "Ann".into(), description: "A night nurse.\nHas a dog, Biscuit.".into() }
        );
        assert!(UserPersona::parse("Ann", "").is_ok(), "a description is optional");
        assert_eq!(UserPersona::parse("   ", "x").map_err(|e| e.field), Err("name"));
        assert_eq!(UserPersona::parse(&"a".repeat(31), "").map_err(|e| e.field), Err("name"));
        assert_eq!(UserPersona::parse("An\nn", "").map_err(|e| e.field), Err("name"));
        assert!(UserPersona::parse("Ann", &"é".repeat(MAX_PERSONA_DESCRIPTION_CHARS)).is_ok());
        assert_eq!(
            UserPersona::parse("Ann", &"é".repeat(MAX_PERSONA_DESCRIPTION_CHARS + 1)).map_err(|e| e.field),
            Err("description")
        );
        assert_eq!(UserPersona::parse("Ann", "bell\u{7}").map_err(|e| e.field), Err("description"));
    }

    #[test]
    fn a_characters_own_persona_wins_over_the_one_for_every_character() {
        let ann = UserPersona { name: "Ann".into(), description: String::new() };
        let captain = UserPersona { name: "Captain Ann".into(), description: "Sails the Kittiwake.".into() };
        let personas = vec![(Some("bf-002"), captain.clone()), (None, ann.clone())];
        assert_eq!(persona_for(&personas, &"bf-002"), Some(&captain));
        assert_eq!(persona_for(&personas, &"gf-001"), Some(&ann));
        assert_eq!(persona_for(&personas[..1], &"gf-001"), None);
        assert_eq!(persona_for::<&str>(&[], &"gf-001"), None);
    }
}
