//! What a character looks like, in two forms: indices the embedded illustrator draws from
//! ([`Look`]) and the same look in words for prompt-reading image models
//! ([`Look::describe`]). With [`seed_for`] they keep a character's images alike on every
//! image backend.

use serde::{Deserialize, Serialize};

use crate::character::CharacterId;
use crate::gender::Gender;

/// Visual traits of a character; every field is an index into the illustrator's tables and
/// wraps around when out of range, so a bad record never fails to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Look {
    /// 0 porcelain, 1 light, 2 olive, 3 tan, 4 brown, 5 deep.
    pub skin: u8,
    /// 0 black, 1 dark brown, 2 chestnut, 3 auburn, 4 golden blonde,
    /// 5 platinum, 6 copper, 7 rose (women) / silver (men).
    pub hair: u8,
    /// Women: 0 long straight, 1 long wavy, 2 bob, 3 ponytail, 4 pixie, 5 curls.
    /// Men: 0 quiff, 1 tousled fringe, 2 curly top, 3 man bun, 4 short crop, 5 buzz.
    #[serde(rename = "hairStyle")]
    pub hair_style: u8,
    /// Iris colour: 0 brown, 1 hazel, 2 green, 3 blue, 4 grey.
    pub eyes: u8,
    /// Portrait backdrop: 0 rose, 1 lavender, 2 peach, 3 mint, 4 sky, 5 dusk,
    /// 6 night, 7 gold. The secondary picture's scene is `background % 4`: sunset sea,
    /// city at night, mountains, café.
    pub background: u8,
    /// 0 none, 1 earrings (studs for men), 2 glasses, 3 necklace/chain.
    pub accessory: u8,
}

/// How many values each field has; larger values wrap.
pub const SKINS: u8 = 6;
pub const HAIR_COLOURS: u8 = 8;
pub const HAIR_STYLES: u8 = 6;
pub const EYE_COLOURS: u8 = 5;
pub const BACKGROUNDS: u8 = 8;
pub const ACCESSORIES: u8 = 4;

/// Which picture of a seeded character: the card photo or the second image of its page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shot {
    /// Close head-and-shoulders on a soft backdrop.
    Portrait,
    /// The same person in a scene, wider crop, a different top.
    Secondary,
}

const SKIN_WORDS: [&str; 6] = ["porcelain", "fair", "olive", "tan", "brown", "deep brown"];
const HAIR_WORDS: [&str; 8] =
    ["black", "dark brown", "chestnut", "auburn", "golden blonde", "platinum blonde", "copper red", "rose pink"];
/// `{c}` is the hair colour.
const WOMEN_STYLES: [&str; 6] = [
    "long straight {c} hair",
    "long wavy {c} hair",
    "{c} hair in a chin-length bob",
    "{c} hair in a high ponytail",
    "a {c} pixie cut",
    "voluminous {c} curls",
];
const MEN_STYLES: [&str; 6] = [
    "{c} hair in a swept-back quiff",
    "{c} hair with a tousled fringe",
    "short curly {c} hair",
    "{c} hair in a man bun",
    "short-cropped {c} hair",
    "a {c} buzz cut",
];
const EYE_WORDS: [&str; 5] = ["brown", "hazel", "green", "blue", "grey"];

impl Look {
    /// The values with every field wrapped into its table.
    pub fn wrapped(self) -> Look {
        Look {
            skin: self.skin % SKINS,
            hair: self.hair % HAIR_COLOURS,
            hair_style: self.hair_style % HAIR_STYLES,
            eyes: self.eyes % EYE_COLOURS,
            background: self.background % BACKGROUNDS,
            accessory: self.accessory % ACCESSORIES,
        }
    }

    /// The six fields in order (skin, hair, hair style, eyes, background, accessory).
    pub fn to_array(self) -> [u8; 6] {
        [self.skin, self.hair, self.hair_style, self.eyes, self.background, self.accessory]
    }

    pub fn from_array(v: [u8; 6]) -> Look {
        Look { skin: v[0], hair: v[1], hair_style: v[2], eyes: v[3], background: v[4], accessory: v[5] }
    }

    /// A look picked from a seed, for characters that have none of their own (created
    /// characters until they choose one): stable for the seed.
    pub fn from_seed(seed: u64) -> Look {
        let b = seed.to_le_bytes();
        Look { skin: b[0], hair: b[1], hair_style: b[2], eyes: b[3], background: b[4], accessory: b[5] }.wrapped()
    }

    /// The appearance in words, put at the start of every image prompt so that models which
    /// read prompts draw the same person each time: "a young woman with fair skin, long wavy
    /// dark brown hair, green eyes and gold earrings".
    pub fn describe(&self, gender: Gender) -> String {
        let l = self.wrapped();
        let male = gender == Gender::Guys;
        let person = if male { "a young man" } else { "a young woman" };
        let mut hair_colour = HAIR_WORDS[usize::from(l.hair)];
        if male && l.hair == 7 {
            hair_colour = "silver";
        }
        let style = if male { MEN_STYLES } else { WOMEN_STYLES }[usize::from(l.hair_style)];
        let hair = style.replace("{c}", hair_colour);
        let mut parts = vec![
            format!("{} skin", SKIN_WORDS[usize::from(l.skin)]),
            hair,
            format!("{} eyes", EYE_WORDS[usize::from(l.eyes)]),
        ];
        match l.accessory {
            1 if male => parts.push("small gold ear studs".into()),
            1 => parts.push("gold hoop earrings".into()),
            2 => parts.push("glasses".into()),
            3 if male => parts.push("a silver chain".into()),
            3 => parts.push("a fine gold necklace".into()),
            _ => {}
        }
        if male {
            // The illustrator derives the beard from the other fields; say it for the
            // prompt-reading models too, so they agree.
            parts.push(
                match beard_of(&l) {
                    0 => "clean-shaven",
                    1 => "light stubble",
                    _ => "a short beard",
                }
                .into(),
            );
        }
        let last = parts.pop().unwrap_or_default();
        format!("{person} with {} and {last}", parts.join(", "))
    }
}

/// 0 clean-shaven, 1 stubble, 2 short beard: about 2 in 5, 1 in 5, 2 in 5 across looks.
/// Derived (not stored) so that the catalogue needs no column for it.
pub fn beard_of(look: &Look) -> u8 {
    let l = look.wrapped();
    match (l.eyes + l.background + l.hair_style + l.skin) % 5 {
        0 | 1 => 0,
        2 => 1,
        _ => 2,
    }
}

/// The image seed of a character: FNV-1a of its id, stable across builds and machines
/// (std's hasher is not), so the same character gets the same seed on every node.
pub fn seed_for(character: &CharacterId) -> u64 {
    fnv1a(character.as_str().as_bytes())
}

/// FNV-1a (64 bit) of some bytes.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn describes_a_look_in_words() {
        let look = Look { skin: 1, hair: 1, hair_style: 1, eyes: 2, background: 2, accessory: 1 };
        assert_eq!(
            look.describe(Gender::Girls),
            "a young woman with fair skin, long wavy dark brown hair, green eyes and gold hoop earrings"
        );
        let man = Look { skin: 4, hair: 7, hair_style: 5, eyes: 3, background: 0, accessory: 2 };
        let words = man.describe(Gender::Guys);
        assert!(words.starts_with("a young man with brown skin, a silver buzz cut, blue eyes, glasses"), "{words}");
    }

    #[test]
    fn out_of_range_values_wrap() {
        let wild = Look { skin: 255, hair: 200, hair_style: 99, eyes: 77, background: 250, accessory: 13 };
        assert_eq!(wild.describe(Gender::Guys), wild.wrapped().describe(Gender::Guys));
        assert_eq!(Look::from_array(wild.to_array()), wild);
        assert_eq!(Look::from_seed(42), Look::from_seed(42).wrapped());
    }

    #[test]
    fn seeds_are_stable_and_differ_between_characters() {
        let a = CharacterId::parse("gf-001").unwrap();
        let b = CharacterId::parse("gf-002").unwrap();
        // FNV-1a's published value for "gf-001" would change only with the algorithm.
        assert_eq!(seed_for(&a), fnv1a(b"gf-001"));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(seed_for(&a), seed_for(&b));
    }
}
