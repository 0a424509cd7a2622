//! Accounts: who a person is to Amora, and the values they type to become that person.

use serde::{Deserialize, Serialize};

use crate::Invalid;
use crate::gender::Gender;

/// Longest ID (`userNo`) and password a person can type (spec §5, §9).
pub const MAX_USER_NO_LEN: usize = 10;
pub const MAX_PASSWORD_LEN: usize = 20;
pub const MIN_PASSWORD_LEN: usize = 6;
const MAX_EMAIL_LEN: usize = 254;
pub const MAX_USER_NAME_CHARS: usize = 30;

/// An opaque user id, assigned by the server.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct UserId(String);

impl TryFrom<String> for UserId {
    type Error = Invalid;

    fn try_from(raw: String) -> Result<Self, Invalid> {
        UserId::parse(&raw)
    }
}

impl From<UserId> for String {
    fn from(id: UserId) -> String {
        id.0
    }
}

impl UserId {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        if raw.is_empty() || raw.len() > 40 || !raw.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(Invalid::new("userId", "must be 1 to 40 letters or digits"));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for UserId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A normalised email address: trimmed, lower-cased, one `@`, a dotted domain.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct EmailAddress(String);

impl EmailAddress {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let email = raw.trim().to_lowercase();
        let invalid = || Invalid::new("emailAddress", "is not a valid email address");
        if email.is_empty() || email.len() > MAX_EMAIL_LEN {
            return Err(invalid());
        }
        let (local, domain) = email.split_once('@').ok_or_else(invalid)?;
        let local_ok = !local.is_empty()
            && local.len() <= 64
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && local.chars().all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+/=?^_`{|}~.-".contains(c));
        let labels: Vec<&str> = domain.split('.').collect();
        let domain_ok = labels.len() >= 2
            && labels.iter().all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && !label.starts_with('-')
                    && !label.ends_with('-')
                    && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            })
            && labels.last().is_some_and(|tld| tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic()));
        if !local_ok || !domain_ok {
            return Err(invalid());
        }
        Ok(Self(email))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The short ID a person signs in with (at most 10 characters, letters and digits).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct UserNo(String);

impl UserNo {
    pub fn parse(raw: &str) -> Result<Self, Invalid> {
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.chars().count() > MAX_USER_NO_LEN {
            return Err(Invalid::new("userNo", format!("must be 1 to {MAX_USER_NO_LEN} characters")));
        }
        if !trimmed.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(Invalid::new("userNo", "must be letters and digits"));
        }
        Ok(Self(trimmed.to_owned()))
    }

    /// Builds the ID of a new account from random digits; the first is never 0 so the ID
    /// reads the same as a number.
    pub fn from_random(random: u32) -> Self {
        Self(format!("{}", 10_000_000 + random % 90_000_000))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A password as typed: 6 to 20 characters. Never stored; only its Argon2id hash is.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(..)")
    }
}

impl Password {
    /// For a new password: the length rules apply.
    pub fn parse_new(raw: &str, field: &'static str) -> Result<Self, Invalid> {
        let length = raw.chars().count();
        if !(MIN_PASSWORD_LEN..=MAX_PASSWORD_LEN).contains(&length) {
            return Err(Invalid::new(field, format!("must be {MIN_PASSWORD_LEN} to {MAX_PASSWORD_LEN} characters")));
        }
        if raw.chars().any(char::is_control) {
            return Err(Invalid::new(field, "must not contain control characters"));
        }
        Ok(Self(raw.to_owned()))
    }

    /// For a sign-in attempt: anything up to the maximum may be tried.
    pub fn parse_attempt(raw: &str) -> Result<Self, Invalid> {
        let length = raw.chars().count();
        if length == 0 || length > MAX_PASSWORD_LEN {
            return Err(Invalid::new("password", format!("must be 1 to {MAX_PASSWORD_LEN} characters")));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// The display name a person chooses.
pub fn parse_user_name(raw: &str) -> Result<String, Invalid> {
    let name = raw.trim();
    let count = name.chars().count();
    if count == 0 || count > MAX_USER_NAME_CHARS {
        return Err(Invalid::new("userName", format!("must be 1 to {MAX_USER_NAME_CHARS} characters")));
    }
    if name.chars().any(char::is_control) {
        return Err(Invalid::new("userName", "must not contain control characters"));
    }
    Ok(name.to_owned())
}

/// One of the ten interface languages (spec §1).
pub const LANGUAGES: [&str; 10] = ["en", "de", "es", "fr", "id", "it", "ja", "ko", "pl", "pt"];

pub fn parse_language(raw: &str) -> Result<String, Invalid> {
    if LANGUAGES.contains(&raw) {
        Ok(raw.to_owned())
    } else {
        Err(Invalid::new("language", format!("must be one of {}", LANGUAGES.join(" "))))
    }
}

/// How a person proved who they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SignInMethod {
    EmailLink,
    Password,
    Google,
    Discord,
}

/// A person's account as the rest of the system sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub user_id: UserId,
    pub user_no: UserNo,
    pub user_name: String,
    pub email: Option<EmailAddress>,
    pub discord_email: Option<EmailAddress>,
    pub apple_email: Option<EmailAddress>,
    pub google_subject: Option<String>,
    pub discord_id: Option<String>,
    /// 0 free, above 0 paid.
    pub user_vip_type: i64,
    pub coin: crate::money::Coins,
    pub user_avatar: String,
    pub utm_source: String,
    pub interested_gender: Gender,
    pub nsfw: bool,
    pub language: String,
    pub password_hash: Option<String>,
    /// Seconds since the Unix epoch.
    pub created_at: i64,
}

impl User {
    /// Every address this account is known by; each is blocked for 7 days after deletion.
    pub fn emails(&self) -> Vec<EmailAddress> {
        [&self.email, &self.discord_email, &self.apple_email].into_iter().flatten().cloned().collect()
    }

    /// Whether the display name is the e-mail prefix that accounts created before
    /// [`GENERATED_NAMES_SINCE`] were given by default ("uxaudit8281908"): characters then
    /// called the person by it and memories were written about it (issue 30). Accounts
    /// created since never get one by default, so a prefix name there was chosen and stays.
    pub fn has_email_prefix_name(&self) -> bool {
        if self.created_at >= GENERATED_NAMES_SINCE {
            return false;
        }
        let name = self.user_name.trim();
        self.emails().iter().any(|email| {
            let local = email.as_str().split('@').next().unwrap_or_default();
            let old_default = crate::text::truncate_chars(local, MAX_USER_NAME_CHARS);
            !old_default.is_empty() && name.eq_ignore_ascii_case(old_default)
        })
    }
}

/// When new accounts began to get a generated display name instead of their e-mail
/// prefix (2026-11-29T00:00:00Z, seconds since the epoch).
pub const GENERATED_NAMES_SINCE: i64 = 1_795_910_400;

const NAME_ADJECTIVES: [&str; 24] = [
    "Sunny", "Quiet", "Gentle", "Brave", "Lucky", "Clever", "Merry", "Calm", "Bright", "Kind", "Swift", "Cosy",
    "Witty", "Jolly", "Noble", "Breezy", "Mellow", "Bold", "Curious", "Dreamy", "Golden", "Silver", "Cheerful",
    "Starry",
];
const NAME_NOUNS: [&str; 24] = [
    "Otter", "Fox", "Robin", "Panda", "Falcon", "Koala", "Dolphin", "Lynx", "Sparrow", "Badger", "Heron", "Rabbit",
    "Wolf", "Owl", "Deer", "Finch", "Tiger", "Seal", "Swan", "Bear", "Hawk", "Lark", "Puffin", "Cedar",
];

/// A friendly, neutral display name ("Sunny Otter") for an account that has not chosen
/// one: never derived from an address, and the same for the same id, so that nodes fixing
/// an old account at once agree on the name.
pub fn generated_user_name(user_id: &UserId) -> String {
    // FNV-1a (stable across builds and platforms, unlike the standard library's hasher),
    // then SplitMix64's finaliser: ids differing in one character get unrelated names.
    let mut hash = user_id
        .as_str()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3));
    hash = (hash ^ (hash >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    hash = (hash ^ (hash >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    hash ^= hash >> 31;
    let adjective = NAME_ADJECTIVES[(hash % NAME_ADJECTIVES.len() as u64) as usize];
    let noun = NAME_NOUNS[((hash >> 32) % NAME_NOUNS.len() as u64) as usize];
    format!("{adjective} {noun}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_addresses_are_normalised_and_checked() {
        assert_eq!(
            EmailAddress::parse("  Ann.Lee+x@Example.COM ").map(|e| e.to_string()),
            Ok("ann.lee+x@example.com".into())
        );
        for bad in [
            "",
            "ann",
            "ann@",
            "@example.com",
            "ann@example",
            "ann@@example.com",
            "a..b@example.com",
            "ann@-x.com",
            "ann@example.c0m",
        ] {
            assert!(EmailAddress::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_id_is_at_most_ten_letters_or_digits() {
        assert!(UserNo::parse("1234567890").is_ok());
        assert!(UserNo::parse("12345678901").is_err());
        assert!(UserNo::parse("12 34").is_err());
        assert_eq!(UserNo::from_random(0).as_str(), "10000000");
        assert_eq!(UserNo::from_random(u32::MAX).as_str().len(), 8);
    }

    #[test]
    fn a_new_password_is_six_to_twenty_characters() {
        assert!(Password::parse_new("12345", "newPassword").is_err());
        assert!(Password::parse_new("123456", "newPassword").is_ok());
        assert!(Password::parse_new(&"x".repeat(21), "newPassword").is_err());
        assert!(Password::parse_attempt(&"x".repeat(21)).is_err());
        assert_eq!(format!("{:?}", Password::parse_attempt("secret").ok()), "Some(Password(..))");
    }

    fn account(user_name: &str, email: &str, created_at: i64) -> User {
        User {
            user_id: UserId::parse("u12345").unwrap_or_else(|e| panic!("{e}")),
            user_no: UserNo::from_random(1),
            user_name: user_name.into(),
            email: Some(EmailAddress::parse(email).unwrap_or_else(|e| panic!("{e}"))),
            discord_email: None,
            apple_email: None,
            google_subject: None,
            discord_id: None,
            user_vip_type: 0,
            coin: crate::money::Coins::ZERO,
            user_avatar: String::new(),
            utm_source: String::new(),
            interested_gender: Gender::Girls,
            nsfw: false,
            language: "en".into(),
            password_hash: None,
            created_at,
        }
    }

    #[test]
    fn an_old_default_name_is_the_email_prefix_of_an_account_made_before_generated_names() {
        let old = GENERATED_NAMES_SINCE - 86_400;
        assert!(account("uxaudit8281908", "uxaudit8281908@example.com", old).has_email_prefix_name());
        assert!(account("Uxaudit8281908", "uxaudit8281908@example.com", old).has_email_prefix_name());
        assert!(!account("Tomas", "uxaudit8281908@example.com", old).has_email_prefix_name());
        let long = "a".repeat(40);
        assert!(account(&"a".repeat(30), &format!("{long}@example.com"), old).has_email_prefix_name());
        // Chosen after generated names began: kept.
        assert!(!account("ann", "ann@example.com", GENERATED_NAMES_SINCE).has_email_prefix_name());
    }

    #[test]
    fn generated_names_are_friendly_stable_and_varied() {
        let id = |raw: &str| UserId::parse(raw).unwrap_or_else(|e| panic!("{e}"));
        let name = generated_user_name(&id("abc123"));
        assert_eq!(name, generated_user_name(&id("abc123")));
        assert_eq!(name.split(' ').count(), 2, "{name}");
        assert!(parse_user_name(&name).is_ok());
        let names: std::collections::HashSet<String> =
            (0..200).map(|n| generated_user_name(&id(&format!("user{n}")))).collect();
        assert!(names.len() > 100, "{} distinct of 200", names.len());
    }

    #[test]
    fn user_names_are_trimmed_and_bounded() {
        assert_eq!(parse_user_name("  Mia "), Ok("Mia".into()));
        assert!(parse_user_name("   ").is_err());
        assert!(parse_user_name(&"n".repeat(31)).is_err());
    }
}
