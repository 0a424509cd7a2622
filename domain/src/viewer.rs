//! Who is looking: decides what a list may show (spec §6 "Roles and permissions").

use crate::character::Exposure;

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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restricted_characters_are_for_established_members_only() {
        assert!(!Viewer::SignedOut.may_see(Exposure::Restricted));
        assert!(!Viewer::NewUser.may_see(Exposure::Restricted));
        assert!(Viewer::Member.may_see(Exposure::Restricted));
        assert!(Viewer::SignedOut.may_see(Exposure::Everyone));
    }

    #[test]
    fn adult_content_off_hides_restricted_characters_from_members_too() {
        assert!(!Viewer::Member.without_adult_content().may_see(Exposure::Restricted));
        assert!(Viewer::Member.without_adult_content().may_see(Exposure::Everyone));
        assert_eq!(Viewer::SignedOut.without_adult_content(), Viewer::SignedOut);
    }
}
