//! The interested-gender setting: which catalogue a person browses (spec §3, "Gender options").

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::Invalid;

/// 0 = Girls (girlfriend characters), 1 = Guys (boyfriend characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(try_from = "i64", into = "u8")]
#[ts(rename = "GenderValue")]
pub enum Gender {
    Girls,
    Guys,
}

impl Gender {
    pub fn code(self) -> u8 {
        match self {
            Gender::Girls => 0,
            Gender::Guys => 1,
        }
    }
}

impl TryFrom<i64> for Gender {
    type Error = Invalid;

    fn try_from(value: i64) -> Result<Self, Self::Error> {
        match value {
            0 => Ok(Gender::Girls),
            1 => Ok(Gender::Guys),
            other => Err(Invalid::new("gender", format!("must be 0 or 1, got {other}"))),
        }
    }
}

impl From<Gender> for u8 {
    fn from(gender: Gender) -> u8 {
        gender.code()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_and_one_are_the_only_genders() {
        assert_eq!(Gender::try_from(0), Ok(Gender::Girls));
        assert_eq!(Gender::try_from(1), Ok(Gender::Guys));
        assert!(Gender::try_from(2).is_err());
        assert!(Gender::try_from(-1).is_err());
    }

    #[test]
    fn a_gender_travels_as_its_number() {
        assert_eq!(serde_json::to_string(&Gender::Guys).ok().as_deref(), Some("1"));
        assert_eq!(serde_json::from_str::<Gender>("0").ok(), Some(Gender::Girls));
        assert!(serde_json::from_str::<Gender>("\"0\"").is_err());
    }
}
