//! Who is looking: decides what a list may show (spec §6 "Roles and permissions").

use crate::account::UserId;
use crate::character::{Character, Exposure};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer {
    /// No session: restricted-exposure characters are hidden.
    SignedOut,
    /// Signed in, but the account is new: still hidden (community guidelines).
    NewUser,
    /// Signed in and established.
    Member,
}

impl Viewer {
    /// A signed-in account `age_secs` old: a member once it is `established_after_secs` old.
    pub fn of_account(age_secs: i64, established_after_secs: i64) -> Viewer {
        if age_secs >= established_after_secs { Viewer::Member } else { Viewer::NewUser }
    }

    /// The catalogue for someone whose browser has adult content (NSFW) turned off: explicit,
    /// restricted-exposure characters stay hidden, as they are from new accounts.
    pub fn without_adult_content(self) -> Viewer {
        match self {
            Viewer::Member => Viewer::NewUser,
            other => other,
        }
    }

    pub fn may_see(self, exposure: Exposure) -> bool {
        match exposure {
            Exposure::Everyone => true,
            Exposure::Restricted => self == Viewer::Member,
        }
    }

    /// Whether this viewer, signed in as `user` (`None`: signed out), may open `character`
    /// (its page, a chat, its images, its voice, its card): its creator always; anyone else
    /// only once it is public (approved or seeded), and then as its exposure allows
    /// (docs/api.md "Created characters").
    pub fn may_open(self, character: &Character, user: Option<&UserId>) -> bool {
        let creator = character.creator_id.as_deref();
        if creator.is_some() && user.map(UserId::as_str) == creator {
            return true;
        }
        character.status.is_listed() && self.may_see(character.exposure)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::character::CharacterStatus;

    #[test]
    fn restricted_characters_are_for_established_members_only() {
        assert!(!Viewer::SignedOut.may_see(Exposure::Restricted));
        assert!(!Viewer::NewUser.may_see(Exposure::Restricted));
        assert!(Viewer::Member.may_see(Exposure::Restricted));
        assert!(Viewer::SignedOut.may_see(Exposure::Everyone));
    }

    fn created(status: CharacterStatus, exposure: Exposure) -> Character {
        let id = crate::character::CharacterId::parse("my-1").unwrap_or_else(|e| panic!("{e}"));
        Character {
            card: crate::character::CharacterCard {
                character_id: id,
                character_name: "Ann".into(),
                character_age: crate::character::CharacterAge::parse(25).unwrap_or_else(|e| panic!("{e}")),
                introduction: String::new(),
                character_photo: String::new(),
                character_image_list: Vec::new(),
                used_type: crate::character::UsedType::Free,
                gender: crate::gender::Gender::Girls,
            },
            personality: String::new(),
            scenario: String::new(),
            greeting: String::new(),
            tags: Vec::new(),
            creator_id: Some("creator1".into()),
            exposure,
            status,
            extras: Default::default(),
        }
    }

    #[test]
    fn a_created_character_is_its_creator_s_until_it_is_public() {
        let creator = UserId::parse("creator1").unwrap_or_else(|e| panic!("{e}"));
        let other = UserId::parse("other1").unwrap_or_else(|e| panic!("{e}"));
        for status in [CharacterStatus::Private, CharacterStatus::Review, CharacterStatus::Rejected] {
            let character = created(status, Exposure::Everyone);
            assert!(Viewer::NewUser.may_open(&character, Some(&creator)), "{status:?}");
            assert!(!Viewer::Member.may_open(&character, Some(&other)), "{status:?}");
            assert!(!Viewer::SignedOut.may_open(&character, None), "{status:?}");
        }
        let public = created(CharacterStatus::Public, Exposure::Restricted);
        assert!(Viewer::Member.may_open(&public, Some(&other)));
        assert!(!Viewer::NewUser.may_open(&public, Some(&other)), "exposure still applies to others");
        assert!(Viewer::NewUser.may_open(&public, Some(&creator)), "never to the creator");
        let mut seeded = created(CharacterStatus::Public, Exposure::Everyone);
        seeded.creator_id = None;
        assert!(Viewer::SignedOut.may_open(&seeded, None));
    }

    #[test]
    fn adult_content_off_hides_restricted_characters_from_members_too() {
        assert!(!Viewer::Member.without_adult_content().may_see(Exposure::Restricted));
        assert!(Viewer::Member.without_adult_content().may_see(Exposure::Everyone));
        assert_eq!(Viewer::SignedOut.without_adult_content(), Viewer::SignedOut);
    }
}
