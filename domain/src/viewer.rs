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
}
