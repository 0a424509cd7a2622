//! The outfit presets, as clothes the body drawer understands. Colours come from the
//! character's look plus an accent picked by the image seed, so two pictures of one
//! character in one outfit differ a little in colour and never in cut.

use super::body::{Bottom, Neckline, Sleeves, Wear};
use super::palette::{Rgb, Traits};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outfit {
    Casual,
    SummerDress,
    EveningGown,
    Business,
    Sportswear,
    Swimsuit,
    /// Drawn suggestive (satin and lace) and never revealing.
    Lingerie,
}

impl Outfit {
    pub const ALL: [(&'static str, Outfit); 7] = [
        ("casual", Outfit::Casual),
        ("summer-dress", Outfit::SummerDress),
        ("evening-gown", Outfit::EveningGown),
        ("business", Outfit::Business),
        ("sportswear", Outfit::Sportswear),
        ("swimsuit", Outfit::Swimsuit),
        ("lingerie", Outfit::Lingerie),
    ];

    pub fn from_key(key: &str) -> Option<Outfit> {
        Self::ALL.iter().find(|(k, _)| *k == key).map(|(_, o)| *o)
    }
}

const DENIM: Rgb = Rgb(0x3c, 0x5a, 0x8c);
const BLACK: Rgb = Rgb(0x1d, 0x1c, 0x24);
const WHITE: Rgb = Rgb(0xf6, 0xf3, 0xee);
const SNEAKER: Rgb = Rgb(0xf2, 0xf2, 0xf4);

/// Jewel tones for gowns and satin, sunny prints for dresses, sober cloth for suits.
const GOWNS: [Rgb; 5] =
    [Rgb(0x8e, 0x1c, 0x3a), Rgb(0x1f, 0x2f, 0x6e), Rgb(0x14, 0x5a, 0x4c), Rgb(0x2a, 0x20, 0x2c), Rgb(0x6b, 0x2c, 0x7a)];
const PRINTS: [Rgb; 5] =
    [Rgb(0xf3, 0xc6, 0x4f), Rgb(0x8f, 0xc9, 0xe8), Rgb(0xf2, 0x9c, 0xa8), Rgb(0xa8, 0xd5, 0x9a), Rgb(0xf6, 0xa8, 0x6a)];
const SUITS: [Rgb; 4] = [Rgb(0x2b, 0x2d, 0x3a), Rgb(0x3a, 0x44, 0x5c), Rgb(0x5a, 0x52, 0x4a), Rgb(0x24, 0x30, 0x44)];
const SPORT: [Rgb; 5] =
    [Rgb(0xe8, 0x4a, 0x6a), Rgb(0x2f, 0x9e, 0xd8), Rgb(0x7a, 0xd0, 0x4f), Rgb(0x8a, 0x5c, 0xe0), Rgb(0xff, 0x8c, 0x2a)];
const SATIN: [Rgb; 4] = [Rgb(0x9a, 0x1e, 0x3c), Rgb(0x1c, 0x1a, 0x22), Rgb(0xe9, 0xc8, 0xd2), Rgb(0x5a, 0x2a, 0x6a)];

fn pick(palette: &[Rgb], accent: usize) -> Rgb {
    palette[accent % palette.len()]
}

/// The clothes of an outfit for this character; `accent` varies the colours.
pub(super) fn wear(outfit: Outfit, t: &Traits, accent: usize) -> Wear {
    let base = Wear {
        neckline: Some(Neckline::Crew),
        top: t.outfit,
        hem: 1080.0,
        sleeves: Sleeves::Short,
        bottom: Bottom::Trousers,
        bottom_colour: DENIM,
        shoes: Some(SNEAKER),
        inner: None,
        lace: false,
        dots: false,
        belt: None,
        knit: false,
        bow_tie: false,
    };
    match (outfit, t.male) {
        (Outfit::Casual, male) => {
            // The catalogue's three tops per gender, chosen by the look.
            let (neckline, sleeves, knit) = match (male, t.top) {
                (true, 0) => (Neckline::Crew, Sleeves::Short, false),
                (true, 1) => (Neckline::Collar, Sleeves::Short, false),
                (true, _) => (Neckline::Lapels, Sleeves::Long, false),
                (false, 0) => (Neckline::V, Sleeves::Short, false),
                (false, 1) => (Neckline::Scoop, Sleeves::Short, false),
                (false, _) => (Neckline::Crew, Sleeves::Long, true),
            };
            // A jacket over a tee: dark tee under a light jacket and the other way round.
            let inner = (neckline == Neckline::Lapels).then(|| {
                let light = u32::from(t.outfit.0) + u32::from(t.outfit.1) + u32::from(t.outfit.2) > 450;
                (if light { BLACK } else { WHITE }, None)
            });
            Wear {
                neckline: Some(neckline),
                sleeves,
                knit,
                inner,
                bottom_colour: pick(&[DENIM, BLACK, DENIM.shade(0.7)], accent),
                ..base
            }
        }
        (Outfit::SummerDress, false) => Wear {
            neckline: Some(Neckline::Straps),
            top: pick(&PRINTS, accent),
            hem: 1030.0,
            sleeves: Sleeves::None,
            bottom: Bottom::Skirt(1470.0),
            dots: true,
            shoes: Some(Rgb(0xc9, 0xa2, 0x64)),
            ..base
        },
        (Outfit::SummerDress, true) => Wear {
            neckline: Some(Neckline::Collar),
            top: pick(&PRINTS, accent).shade(1.2),
            bottom: Bottom::Shorts,
            bottom_colour: Rgb(0xe4, 0xd6, 0xb8),
            shoes: Some(Rgb(0x8a, 0x5f, 0x3e)),
            ..base
        },
        (Outfit::EveningGown, false) => Wear {
            neckline: Some(Neckline::OffShoulder),
            top: pick(&GOWNS, accent),
            hem: 1030.0,
            sleeves: Sleeves::None,
            bottom: Bottom::Skirt(1830.0),
            shoes: Some(BLACK),
            ..base
        },
        (Outfit::EveningGown, true) => Wear {
            neckline: Some(Neckline::Lapels),
            top: BLACK,
            sleeves: Sleeves::Long,
            bottom_colour: BLACK,
            shoes: Some(BLACK),
            inner: Some((WHITE, None)),
            bow_tie: true,
            ..base
        },
        (Outfit::Business, male) => Wear {
            neckline: Some(Neckline::Lapels),
            top: pick(&SUITS, accent),
            sleeves: Sleeves::Long,
            bottom: if male { Bottom::Trousers } else { Bottom::Skirt(1440.0) },
            bottom_colour: pick(&SUITS, accent),
            shoes: Some(BLACK),
            inner: Some((WHITE, male.then(|| pick(&GOWNS, accent + 1)))),
            ..base
        },
        (Outfit::Sportswear, male) => Wear {
            neckline: Some(if male { Neckline::Crew } else { Neckline::Scoop }),
            top: pick(&SPORT, accent),
            hem: if male { 1080.0 } else { 960.0 },
            sleeves: Sleeves::None,
            bottom: if male { Bottom::Shorts } else { Bottom::Trousers },
            bottom_colour: BLACK,
            shoes: Some(SNEAKER),
            ..base
        },
        (Outfit::Swimsuit, false) => Wear {
            neckline: Some(Neckline::LowStraps),
            top: pick(&SPORT, accent + 2),
            hem: 1160.0,
            sleeves: Sleeves::None,
            bottom: Bottom::Briefs,
            bottom_colour: pick(&SPORT, accent + 2),
            shoes: None,
            ..base
        },
        (Outfit::Swimsuit, true) => Wear {
            neckline: None,
            hem: 1010.0,
            sleeves: Sleeves::None,
            bottom: Bottom::Shorts,
            bottom_colour: pick(&SPORT, accent + 2),
            shoes: None,
            ..base
        },
        (Outfit::Lingerie, false) => Wear {
            // A satin slip to mid-thigh with lace trim.
            neckline: Some(Neckline::LowStraps),
            top: pick(&SATIN, accent),
            hem: 1030.0,
            sleeves: Sleeves::None,
            bottom: Bottom::Skirt(1330.0),
            lace: true,
            shoes: None,
            ..base
        },
        (Outfit::Lingerie, true) => Wear {
            // A silk robe, loosely belted, over lounge trousers.
            neckline: Some(Neckline::Lapels),
            top: pick(&SATIN, accent),
            hem: 1200.0,
            sleeves: Sleeves::Long,
            bottom_colour: pick(&SATIN, accent).shade(0.7),
            belt: Some(pick(&SATIN, accent).shade(0.8)),
            shoes: None,
            ..base
        },
    }
}
