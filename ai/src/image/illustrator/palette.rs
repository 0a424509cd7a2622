//! Colours, palettes and the resolved traits every drawing function reads.

use amora_domain::appearance::{Look, beard_of};
use amora_domain::gender::Gender;

// ---------------------------------------------------------------------------
// Colours and palettes
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// f < 1 darkens toward black, f > 1 lightens toward white; keeps hue
    /// so shading stays in the same colour family.
    pub fn shade(self, f: f32) -> Rgb {
        let ch = |c: u8| -> u8 {
            let c = f32::from(c);
            let v = if f <= 1.0 { c * f.max(0.0) } else { c + (255.0 - c) * (f - 1.0).min(1.0) };
            v.round().clamp(0.0, 255.0) as u8
        };
        Rgb(ch(self.0), ch(self.1), ch(self.2))
    }

    /// Linear blend, used for lip colour and scene tints.
    pub fn mix(self, o: Rgb, t: f32) -> Rgb {
        let t = t.clamp(0.0, 1.0);
        let ch = |a: u8, b: u8| -> u8 { (f32::from(a) * (1.0 - t) + f32::from(b) * t).round().clamp(0.0, 255.0) as u8 };
        Rgb(ch(self.0, o.0), ch(self.1, o.1), ch(self.2, o.2))
    }
}

pub(super) const SKIN: [Rgb; 6] = [
    Rgb(0xf8, 0xdd, 0xcc), // porcelain
    Rgb(0xf0, 0xc8, 0xa8), // light
    Rgb(0xde, 0xab, 0x82), // olive / light-medium
    Rgb(0xc4, 0x8c, 0x62), // tan
    Rgb(0x9a, 0x66, 0x45), // brown
    Rgb(0x6c, 0x45, 0x31), // deep
];

pub(super) const HAIR: [Rgb; 8] = [
    Rgb(0x22, 0x1c, 0x20), // black
    Rgb(0x3d, 0x28, 0x20), // dark brown
    Rgb(0x6e, 0x45, 0x2f), // chestnut
    Rgb(0x86, 0x3a, 0x26), // auburn
    Rgb(0xd2, 0xa4, 0x58), // golden blonde
    Rgb(0xe8, 0xd9, 0xb8), // platinum
    Rgb(0xb5, 0x56, 0x2c), // copper
    Rgb(0xc9, 0x8b, 0xa0), // rose (women) — men get silver, see `hair_colour`
];

pub(super) const EYES: [Rgb; 5] = [
    Rgb(0x5b, 0x3a, 0x22), // brown
    Rgb(0x8a, 0x62, 0x2a), // hazel / amber
    Rgb(0x3f, 0x7f, 0x52), // green
    Rgb(0x3a, 0x70, 0xb0), // blue
    Rgb(0x6d, 0x80, 0x90), // grey
];

/// (top, bottom) gradient stops of the portrait backdrop.
pub(super) const BACKDROPS: [(Rgb, Rgb); 8] = [
    (Rgb(0xfb, 0xd9, 0xe2), Rgb(0xe3, 0x93, 0xae)), // rose
    (Rgb(0xe6, 0xdc, 0xfb), Rgb(0xa3, 0x8e, 0xdc)), // lavender
    (Rgb(0xff, 0xe6, 0xcc), Rgb(0xf0, 0xa0, 0x7c)), // peach
    (Rgb(0xd8, 0xf4, 0xea), Rgb(0x7f, 0xc4, 0xae)), // mint
    (Rgb(0xd8, 0xea, 0xfb), Rgb(0x86, 0xae, 0xe0)), // sky
    (Rgb(0xf7, 0xc9, 0xab), Rgb(0xa8, 0x62, 0x96)), // dusk
    (Rgb(0x46, 0x4c, 0x80), Rgb(0x1b, 0x1e, 0x3c)), // night
    (Rgb(0xfc, 0xec, 0xc4), Rgb(0xdc, 0xaa, 0x5e)), // gold
];

pub(super) const OUTFITS: [Rgb; 10] = [
    Rgb(0xf4, 0xf1, 0xec), // cream
    Rgb(0x2b, 0x2d, 0x3a), // charcoal
    Rgb(0x8e, 0x2c, 0x48), // wine
    Rgb(0x3c, 0x5a, 0x8c), // denim blue
    Rgb(0x4f, 0x7a, 0x5e), // sage
    Rgb(0xd9, 0x8c, 0x6a), // terracotta
    Rgb(0x6b, 0x4c, 0x9a), // plum
    Rgb(0xe7, 0xb7, 0xc3), // blush pink
    Rgb(0x1f, 0x4e, 0x5a), // teal
    Rgb(0xc9, 0xa2, 0x64), // camel
];

pub(super) const LINE: Rgb = Rgb(0x2a, 0x1b, 0x1e);

/// Everything the drawing functions need, resolved once with wrap-around.
pub(super) struct Traits {
    pub male: bool,
    pub skin: Rgb,
    pub hair: Rgb,
    pub eyes: Rgb,
    pub style: u8,
    pub bg: u8,
    pub accessory: u8,
    /// 0 clean-shaven, 1 stubble, 2 short beard (men only).
    pub beard: u8,
    /// Neckline/cut variant of the casual top, 0..3.
    pub top: u8,
    /// The main colour of what the character wears.
    pub outfit: Rgb,
    /// Small deterministic seed for decorative scatter (bokeh, windows).
    pub seed: u32,
    /// Anime style: ink outlines and larger eyes.
    pub ink: bool,
}

impl Traits {
    /// `accent` shifts the outfit colour (0 for the catalogue portrait, 4 for its second
    /// picture, the image seed for generated pictures); `seed` drives the scatter.
    pub fn from_look(look: &Look, gender: Gender, accent: usize, seed: u32) -> Traits {
        let male = gender == Gender::Guys;
        let l = look.wrapped();
        let (skin, hair, style, eyes, bg, accessory) =
            (l.skin, l.hair, l.hair_style, l.eyes, l.background, l.accessory);
        let beard = if male { beard_of(&l) } else { 0 };
        let top = (hair + eyes + accessory) % 3;
        let outfit_ix = (usize::from(bg) * 3 + usize::from(hair) + usize::from(skin) + accent) % OUTFITS.len();
        Traits {
            male,
            skin: SKIN[usize::from(skin)],
            hair: hair_colour(hair, male),
            eyes: EYES[usize::from(eyes)],
            style,
            bg,
            accessory,
            beard,
            top,
            outfit: OUTFITS[outfit_ix],
            seed,
            ink: false,
        }
    }

    /// The scatter seed the catalogue's portraits always used: a mix of the look fields.
    pub fn look_seed(look: &Look, gender: Gender) -> u32 {
        let l = look.wrapped();
        u32::from(l.skin)
            .wrapping_mul(31)
            .wrapping_add(u32::from(l.hair) * 17)
            .wrapping_add(u32::from(l.hair_style) * 13)
            .wrapping_add(u32::from(l.eyes) * 7)
            .wrapping_add(u32::from(l.background) * 5)
            .wrapping_add(u32::from(l.accessory) * 3)
            .wrapping_add(u32::from(gender == Gender::Guys))
    }
}

/// Rose hair reads as costume on the men's side; give them silver-ash instead.
fn hair_colour(ix: u8, male: bool) -> Rgb {
    if male && ix == 7 { Rgb(0xa9, 0xaa, 0xb0) } else { HAIR[usize::from(ix % 8)] }
}

/// Tiny LCG so decorations vary per character yet stay reproducible.
pub(super) fn rng(seed: &mut u32) -> u32 {
    *seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    *seed >> 8
}

pub(super) fn frac(seed: &mut u32) -> f32 {
    (rng(seed) % 10_000) as f32 / 10_000.0
}
