//! Offline procedural SVG portraits for the seeded character catalogue.
//!
//! Every seeded character carries a small `Look` (indices into palettes and
//! style tables). From it we draw a stylised, flat-illustration head-and-
//! shoulders figure as a standalone 600x800 SVG. Rendering is pure and
//! deterministic: the same look, gender and shot always give the same bytes,
//! so images can be generated at seed time or on request without storage.
//!
//! Out-of-range indices wrap around (modulo) so a bad record never panics.
//! Beard (men) and neckline are derived from the other look fields, so the
//! catalogue needs no extra columns for them.

use serde::Deserialize;

/// Visual traits of a character; every field is an index into a table below
/// and wraps around when out of range.
#[derive(Debug, Clone, Copy, Deserialize)]
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
    /// 6 night, 7 gold. The secondary scene is `background % 4`: sunset sea,
    /// city at night, mountains, café.
    pub background: u8,
    /// 0 none, 1 earrings (studs for men), 2 glasses, 3 necklace/chain.
    pub accessory: u8,
}

/// Which picture of the character to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shot {
    /// The card photo: close head-and-shoulders on a soft gradient.
    Portrait,
    /// A second photo: same person, an outdoor/indoor scene, wider crop,
    /// slight head tilt and a different outfit colour.
    Secondary,
}

pub const WIDTH: u32 = 600;
pub const HEIGHT: u32 = 800;

/// Renders a 600x800 SVG portrait (head and shoulders) for a character. Deterministic.
///
/// `gender` follows the product convention: 0 = girlfriend, anything else = boyfriend.
pub fn render_portrait(look: &Look, gender: u8, shot: Shot) -> String {
    let t = Traits::from_look(look, gender, shot);
    let mut s = String::with_capacity(24_000);
    s.push_str(&format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}">"#
    ));
    defs(&mut s, &t);
    match shot {
        Shot::Portrait => backdrop(&mut s, &t),
        Shot::Secondary => scene(&mut s, &t),
    }
    // The secondary shot is a wider crop: shrink the figure and move it off-centre
    // so the scene behind reads.
    let figure_transform = match shot {
        Shot::Portrait => "translate(0 0)",
        Shot::Secondary => "translate(70 120) scale(0.88)",
    };
    s.push_str(&format!(r#"<g transform="{figure_transform}">"#));
    // Head group is tilted a little in the secondary shot; the pivot is the neck
    // base so the joint with the shoulders stays hidden under the chin shadow.
    let tilt = match shot {
        Shot::Portrait => "rotate(0 300 520)",
        Shot::Secondary => "rotate(-4 300 520)",
    };
    s.push_str(&format!(r#"<g transform="{tilt}">"#));
    back_hair(&mut s, &t);
    s.push_str("</g>");
    body(&mut s, &t);
    s.push_str(&format!(r#"<g transform="{tilt}">"#));
    ears(&mut s, &t);
    face(&mut s, &t);
    blush(&mut s);
    beard(&mut s, &t);
    nose(&mut s, &t);
    eyes(&mut s, &t);
    brows(&mut s, &t);
    mouth(&mut s, &t);
    front_hair(&mut s, &t);
    accessory(&mut s, &t);
    s.push_str("</g>");
    s.push_str("</g>");
    vignette(&mut s);
    s.push_str("</svg>");
    s
}

// ---------------------------------------------------------------------------
// Colours and palettes
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rgb(u8, u8, u8);

impl Rgb {
    fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// f < 1 darkens toward black, f > 1 lightens toward white; keeps hue
    /// so shading stays in the same colour family.
    fn shade(self, f: f32) -> Rgb {
        let ch = |c: u8| -> u8 {
            let c = f32::from(c);
            let v = if f <= 1.0 { c * f.max(0.0) } else { c + (255.0 - c) * (f - 1.0).min(1.0) };
            v.round().clamp(0.0, 255.0) as u8
        };
        Rgb(ch(self.0), ch(self.1), ch(self.2))
    }

    /// Linear blend, used for lip colour and scene tints.
    fn mix(self, o: Rgb, t: f32) -> Rgb {
        let t = t.clamp(0.0, 1.0);
        let ch = |a: u8, b: u8| -> u8 { (f32::from(a) * (1.0 - t) + f32::from(b) * t).round().clamp(0.0, 255.0) as u8 };
        Rgb(ch(self.0, o.0), ch(self.1, o.1), ch(self.2, o.2))
    }
}

const SKIN: [Rgb; 6] = [
    Rgb(0xf8, 0xdd, 0xcc), // porcelain
    Rgb(0xf0, 0xc8, 0xa8), // light
    Rgb(0xde, 0xab, 0x82), // olive / light-medium
    Rgb(0xc4, 0x8c, 0x62), // tan
    Rgb(0x9a, 0x66, 0x45), // brown
    Rgb(0x6c, 0x45, 0x31), // deep
];

const HAIR: [Rgb; 8] = [
    Rgb(0x22, 0x1c, 0x20), // black
    Rgb(0x3d, 0x28, 0x20), // dark brown
    Rgb(0x6e, 0x45, 0x2f), // chestnut
    Rgb(0x86, 0x3a, 0x26), // auburn
    Rgb(0xd2, 0xa4, 0x58), // golden blonde
    Rgb(0xe8, 0xd9, 0xb8), // platinum
    Rgb(0xb5, 0x56, 0x2c), // copper
    Rgb(0xc9, 0x8b, 0xa0), // rose (women) — men get silver, see `hair_colour`
];

const EYES: [Rgb; 5] = [
    Rgb(0x5b, 0x3a, 0x22), // brown
    Rgb(0x8a, 0x62, 0x2a), // hazel / amber
    Rgb(0x3f, 0x7f, 0x52), // green
    Rgb(0x3a, 0x70, 0xb0), // blue
    Rgb(0x6d, 0x80, 0x90), // grey
];

/// (top, bottom) gradient stops of the portrait backdrop.
const BACKDROPS: [(Rgb, Rgb); 8] = [
    (Rgb(0xfb, 0xd9, 0xe2), Rgb(0xe3, 0x93, 0xae)), // rose
    (Rgb(0xe6, 0xdc, 0xfb), Rgb(0xa3, 0x8e, 0xdc)), // lavender
    (Rgb(0xff, 0xe6, 0xcc), Rgb(0xf0, 0xa0, 0x7c)), // peach
    (Rgb(0xd8, 0xf4, 0xea), Rgb(0x7f, 0xc4, 0xae)), // mint
    (Rgb(0xd8, 0xea, 0xfb), Rgb(0x86, 0xae, 0xe0)), // sky
    (Rgb(0xf7, 0xc9, 0xab), Rgb(0xa8, 0x62, 0x96)), // dusk
    (Rgb(0x46, 0x4c, 0x80), Rgb(0x1b, 0x1e, 0x3c)), // night
    (Rgb(0xfc, 0xec, 0xc4), Rgb(0xdc, 0xaa, 0x5e)), // gold
];

const OUTFITS: [Rgb; 10] = [
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

const LINE: Rgb = Rgb(0x2a, 0x1b, 0x1e);

/// Everything the drawing functions need, resolved once with wrap-around.
struct Traits {
    male: bool,
    skin: Rgb,
    hair: Rgb,
    eyes: Rgb,
    style: u8,
    bg: u8,
    accessory: u8,
    /// 0 clean-shaven, 1 stubble, 2 short beard (men only).
    beard: u8,
    /// Neckline/cut variant of the top, 0..3.
    top: u8,
    outfit: Rgb,
    /// Small deterministic seed for decorative scatter (bokeh, windows).
    seed: u32,
}

impl Traits {
    fn from_look(look: &Look, gender: u8, shot: Shot) -> Traits {
        let male = gender % 2 == 1;
        let skin = look.skin % 6;
        let hair = look.hair % 8;
        let style = look.hair_style % 6;
        let eyes = look.eyes % 5;
        let bg = look.background % 8;
        let accessory = look.accessory % 4;
        // Derived choices mix several look fields so neighbouring characters
        // don't all share the same beard/outfit.
        // About 2 in 5 clean-shaven, 1 in 5 stubble, 2 in 5 short beard.
        let beard = if male {
            match (eyes + bg + style + skin) % 5 {
                0 | 1 => 0,
                2 => 1,
                _ => 2,
            }
        } else {
            0
        };
        let top = (hair + eyes + accessory) % 3;
        let outfit_ix = match shot {
            Shot::Portrait => (usize::from(bg) * 3 + usize::from(hair) + usize::from(skin)) % OUTFITS.len(),
            Shot::Secondary => (usize::from(bg) * 3 + usize::from(hair) + usize::from(skin) + 4) % OUTFITS.len(),
        };
        let seed = u32::from(skin)
            .wrapping_mul(31)
            .wrapping_add(u32::from(hair) * 17)
            .wrapping_add(u32::from(style) * 13)
            .wrapping_add(u32::from(eyes) * 7)
            .wrapping_add(u32::from(bg) * 5)
            .wrapping_add(u32::from(accessory) * 3)
            .wrapping_add(u32::from(male));
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
        }
    }
}

/// Rose hair reads as costume on the men's side; give them silver-ash instead.
fn hair_colour(ix: u8, male: bool) -> Rgb {
    if male && ix == 7 { Rgb(0xa9, 0xaa, 0xb0) } else { HAIR[usize::from(ix % 8)] }
}

/// Tiny LCG so decorations vary per character yet stay reproducible.
fn rng(seed: &mut u32) -> u32 {
    *seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    *seed >> 8
}

fn frac(seed: &mut u32) -> f32 {
    (rng(seed) % 10_000) as f32 / 10_000.0
}

// ---------------------------------------------------------------------------
// Shared geometry
// ---------------------------------------------------------------------------

/// Face outline. Women: softer, narrower jaw and pointed chin; men: squarer jaw.
fn face_path(male: bool) -> &'static str {
    if male {
        "M300 186 C358 186 400 226 400 306 C400 366 396 410 382 440 C366 474 334 492 300 492 \
         C266 492 234 474 218 440 C204 410 200 366 200 306 C200 226 242 186 300 186 Z"
    } else {
        "M300 188 C356 188 397 228 397 308 C397 368 388 408 366 440 C346 468 322 486 300 486 \
         C278 486 254 468 234 440 C212 408 203 368 203 308 C203 228 244 188 300 188 Z"
    }
}

/// Neck column; its top sits under the jaw so the head tilt in the
/// secondary shot never opens a gap.
fn neck_path(male: bool) -> &'static str {
    if male { "M252 420 L252 560 Q300 590 348 560 L348 420 Z" } else { "M264 420 L262 560 Q300 585 338 560 L336 420 Z" }
}

// ---------------------------------------------------------------------------
// Definitions (gradients, clip paths)
// ---------------------------------------------------------------------------

fn defs(s: &mut String, t: &Traits) {
    let (top, bottom) = BACKDROPS[usize::from(t.bg)];
    let skin = t.skin;
    let hair = t.hair;
    let cloth = t.outfit;
    s.push_str("<defs>");
    s.push_str(&format!(
        r#"<linearGradient id="bg" x1="0" y1="0" x2="0.3" y2="1"><stop offset="0" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
        top.hex(),
        bottom.hex()
    ));
    // Soft light behind the head lifts the figure off the backdrop.
    s.push_str(
        r##"<radialGradient id="glow" cx="0.5" cy="0.4" r="0.5"><stop offset="0" stop-color="#ffffff" stop-opacity="0.55"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient>"##,
    );
    s.push_str(&format!(
        r#"<radialGradient id="skinG" cx="0.42" cy="0.38" r="0.75"><stop offset="0" stop-color="{}"/><stop offset="0.6" stop-color="{}"/><stop offset="1" stop-color="{}"/></radialGradient>"#,
        skin.shade(1.08).hex(),
        skin.hex(),
        skin.shade(0.86).hex()
    ));
    s.push_str(&format!(
        r#"<linearGradient id="neckG" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="{}"/><stop offset="0.45" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
        skin.shade(0.72).hex(),
        skin.shade(0.9).hex(),
        skin.shade(0.97).hex()
    ));
    s.push_str(&format!(
        r#"<linearGradient id="chestG" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="{}"/><stop offset="0.5" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
        skin.shade(0.85).hex(),
        skin.shade(1.02).hex(),
        skin.shade(0.88).hex()
    ));
    s.push_str(&format!(
        r#"<linearGradient id="hairG" x1="0" y1="0" x2="0.2" y2="1"><stop offset="0" stop-color="{}"/><stop offset="0.55" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
        hair.shade(1.18).hex(),
        hair.hex(),
        hair.shade(0.78).hex()
    ));
    s.push_str(&format!(
        r#"<linearGradient id="hairBackG" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
        hair.shade(0.8).hex(),
        hair.shade(0.62).hex()
    ));
    s.push_str(&format!(
        r#"<radialGradient id="irisG" cx="0.5" cy="0.55" r="0.5"><stop offset="0" stop-color="{}"/><stop offset="0.55" stop-color="{}"/><stop offset="1" stop-color="{}"/></radialGradient>"#,
        t.eyes.shade(1.45).hex(),
        t.eyes.hex(),
        t.eyes.shade(0.5).hex()
    ));
    let blush_alpha = if t.male { 0.16 } else { 0.42 };
    s.push_str(&format!(
        r##"<radialGradient id="blushG"><stop offset="0" stop-color="#f07a8a" stop-opacity="{blush_alpha}"/><stop offset="1" stop-color="#f07a8a" stop-opacity="0"/></radialGradient>"##
    ));
    s.push_str(&format!(
        r#"<linearGradient id="clothG" x1="0" y1="0" x2="1" y2="0.35"><stop offset="0" stop-color="{}"/><stop offset="0.5" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
        cloth.shade(0.82).hex(),
        cloth.shade(1.06).hex(),
        cloth.shade(0.8).hex()
    ));
    let lip = lip_colour(t);
    s.push_str(&format!(
        r#"<linearGradient id="lipG" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
        lip.shade(0.9).hex(),
        lip.shade(1.08).hex()
    ));
    s.push_str(
        r##"<radialGradient id="vig" cx="0.5" cy="0.45" r="0.75"><stop offset="0.6" stop-color="#000000" stop-opacity="0"/><stop offset="1" stop-color="#000000" stop-opacity="0.22"/></radialGradient>"##,
    );
    s.push_str(&format!(r#"<clipPath id="faceClip"><path d="{}"/></clipPath>"#, face_path(t.male)));
    s.push_str(&format!(r#"<clipPath id="neckClip"><path d="{}"/></clipPath>"#, neck_path(t.male)));
    // Soft edge for stubble so it reads as shadow, not paint.
    s.push_str(
        r#"<filter id="soft" x="-10%" y="-10%" width="120%" height="120%"><feGaussianBlur stdDeviation="4"/></filter>"#,
    );
    s.push_str(r#"<filter id="softer" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="12"/></filter>"#);
    s.push_str("</defs>");
}

fn lip_colour(t: &Traits) -> Rgb {
    if t.male { t.skin.mix(Rgb(0xb0, 0x5a, 0x5a), 0.3).shade(0.9) } else { t.skin.mix(Rgb(0xc2, 0x4a, 0x62), 0.55) }
}

// ---------------------------------------------------------------------------
// Backgrounds
// ---------------------------------------------------------------------------

/// Portrait backdrop: gradient, a halo behind the head and a few bokeh dots.
fn backdrop(s: &mut String, t: &Traits) {
    s.push_str(r#"<rect width="600" height="800" fill="url(#bg)"/>"#);
    s.push_str(r#"<ellipse cx="300" cy="330" rx="330" ry="360" fill="url(#glow)"/>"#);
    let mut seed = t.seed.wrapping_add(7);
    for _ in 0..7 {
        let x = 20.0 + frac(&mut seed) * 560.0;
        let y = 30.0 + frac(&mut seed) * 520.0;
        let r = 14.0 + frac(&mut seed) * 46.0;
        let a = 0.08 + frac(&mut seed) * 0.14;
        s.push_str(&format!(r##"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="#ffffff" fill-opacity="{a:.2}"/>"##));
    }
}

/// Secondary backdrop: one of four simple scenes, tinted by the look's backdrop.
fn scene(s: &mut String, t: &Traits) {
    match t.bg % 4 {
        0 => scene_sunset_sea(s, t),
        1 => scene_city_night(s, t),
        2 => scene_mountains(s, t),
        _ => scene_cafe(s, t),
    }
}

fn scene_sunset_sea(s: &mut String, t: &Traits) {
    let (top, bottom) = BACKDROPS[usize::from(t.bg)];
    let sky_top = top.mix(Rgb(0xff, 0xb3, 0x8a), 0.5);
    let sky_low = bottom.mix(Rgb(0xff, 0x8a, 0x6a), 0.5);
    s.push_str(&format!(
        r#"<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
        sky_top.hex(),
        sky_low.hex()
    ));
    s.push_str(r#"<rect width="600" height="800" fill="url(#sky)"/>"#);
    s.push_str(r##"<circle cx="150" cy="470" r="90" fill="#fff3c4" fill-opacity="0.9"/>"##);
    s.push_str(r##"<circle cx="150" cy="470" r="140" fill="#fff3c4" fill-opacity="0.18"/>"##);
    // Sea band with a few reflections.
    s.push_str(r##"<rect y="500" width="600" height="300" fill="#5a6fa8"/>"##);
    s.push_str(r##"<rect y="500" width="600" height="300" fill="#f3a07f" fill-opacity="0.25"/>"##);
    for (i, w) in [120.0_f32, 90.0, 60.0, 40.0].iter().enumerate() {
        let y = 520.0 + i as f32 * 22.0;
        s.push_str(&format!(
            r##"<rect x="{:.1}" y="{y:.1}" width="{w:.1}" height="5" rx="2.5" fill="#fff3c4" fill-opacity="0.55"/>"##,
            150.0 - w / 2.0
        ));
    }
    // Distant headland silhouette.
    s.push_str(r##"<path d="M380 500 C420 470 470 455 520 462 C560 468 590 480 600 486 L600 500 Z" fill="#4a4f7e" fill-opacity="0.8"/>"##);
    // A pair of birds.
    s.push_str(r##"<path d="M60 200 q10 -9 20 0 q10 -9 20 0 M110 170 q7 -6 14 0 q7 -6 14 0" fill="none" stroke="#5b3b57" stroke-width="3" stroke-linecap="round" stroke-opacity="0.6"/>"##);
}

fn scene_city_night(s: &mut String, t: &Traits) {
    let (top, _) = BACKDROPS[usize::from(t.bg)];
    let sky_top = Rgb(0x1c, 0x1f, 0x44).mix(top, 0.15);
    s.push_str(&format!(
        r##"<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="{}"/><stop offset="1" stop-color="#6a4a86"/></linearGradient>"##,
        sky_top.hex()
    ));
    s.push_str(r#"<rect width="600" height="800" fill="url(#sky)"/>"#);
    s.push_str(r##"<circle cx="110" cy="130" r="38" fill="#fdf4d8"/><circle cx="124" cy="120" r="34" fill="#1f2248" fill-opacity="0.85"/>"##);
    let mut seed = t.seed.wrapping_add(101);
    // Stars.
    for _ in 0..18 {
        let x = frac(&mut seed) * 600.0;
        let y = frac(&mut seed) * 300.0;
        let r = 1.0 + frac(&mut seed) * 1.8;
        s.push_str(&format!(r##"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="#ffffff" fill-opacity="0.8"/>"##));
    }
    // Skyline: two depth layers of blocks with lit windows on the front one.
    let mut x = 0.0_f32;
    while x < 600.0 {
        let w = 50.0 + frac(&mut seed) * 50.0;
        let h = 180.0 + frac(&mut seed) * 200.0;
        s.push_str(&format!(
            r##"<rect x="{x:.1}" y="{:.1}" width="{w:.1}" height="{h:.1}" fill="#2c2a55"/>"##,
            800.0 - h - 120.0
        ));
        x += w - 6.0;
    }
    let mut x = -10.0_f32;
    while x < 600.0 {
        let w = 60.0 + frac(&mut seed) * 60.0;
        let h = 140.0 + frac(&mut seed) * 180.0;
        let y = 800.0 - h;
        s.push_str(&format!(r##"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="#1a1838"/>"##));
        let mut wy = y + 16.0;
        while wy < 790.0 {
            let mut wx = x + 10.0;
            while wx + 10.0 < x + w - 6.0 {
                if rng(&mut seed).is_multiple_of(3) {
                    s.push_str(&format!(
                        r##"<rect x="{wx:.1}" y="{wy:.1}" width="9" height="12" fill="#ffd98a" fill-opacity="0.85"/>"##
                    ));
                }
                wx += 18.0;
            }
            wy += 24.0;
        }
        x += w + 4.0;
    }
}

fn scene_mountains(s: &mut String, t: &Traits) {
    let (top, bottom) = BACKDROPS[usize::from(t.bg)];
    // Mostly a clear blue sky, only lightly tinted by the backdrop colours.
    let sky_top = Rgb(0x9c, 0xc8, 0xec).mix(top, 0.2);
    let sky_low = Rgb(0xfd, 0xe6, 0xd2).mix(bottom, 0.2);
    s.push_str(&format!(
        r#"<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
        sky_top.hex(),
        sky_low.hex()
    ));
    s.push_str(r#"<rect width="600" height="800" fill="url(#sky)"/>"#);
    s.push_str(r##"<circle cx="470" cy="150" r="46" fill="#fff7dc" fill-opacity="0.9"/>"##);
    s.push_str(r##"<path d="M0 470 L110 330 L190 420 L300 280 L420 430 L500 360 L600 450 L600 800 L0 800 Z" fill="#8a9cc4"/>"##);
    s.push_str(
        r##"<path d="M300 280 L335 325 L318 320 L300 335 L285 318 L268 322 Z" fill="#ffffff" fill-opacity="0.85"/>"##,
    );
    s.push_str(r##"<path d="M0 560 L140 450 L250 530 L380 440 L600 560 L600 800 L0 800 Z" fill="#5f7fa0"/>"##);
    // Pine trees along the foreground ridge.
    let mut seed = t.seed.wrapping_add(55);
    let mut x = 10.0_f32;
    while x < 600.0 {
        let h = 70.0 + frac(&mut seed) * 70.0;
        let base = 640.0 + frac(&mut seed) * 30.0;
        s.push_str(&format!(
            r##"<path d="M{x:.1} {:.1} L{:.1} {base:.1} L{:.1} {base:.1} Z" fill="#2f4f4a"/>"##,
            base - h,
            x - h * 0.28,
            x + h * 0.28
        ));
        x += 36.0 + frac(&mut seed) * 30.0;
    }
    s.push_str(r##"<rect y="660" width="600" height="140" fill="#2f4f4a"/>"##);
}

fn scene_cafe(s: &mut String, t: &Traits) {
    let (top, bottom) = BACKDROPS[usize::from(t.bg)];
    let wall = top.mix(Rgb(0xf3, 0xe1, 0xc8), 0.6);
    let wall_low = bottom.mix(Rgb(0xc9, 0x9a, 0x72), 0.6);
    s.push_str(&format!(
        r#"<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
        wall.hex(),
        wall_low.hex()
    ));
    s.push_str(r#"<rect width="600" height="800" fill="url(#sky)"/>"#);
    // Window with a glimpse of sky and muntins.
    s.push_str(r##"<rect x="40" y="90" width="230" height="330" rx="8" fill="#bfe0f2"/>"##);
    s.push_str(r##"<path d="M40 330 C100 300 180 310 270 290 L270 420 L40 420 Z" fill="#9fc79a"/>"##);
    s.push_str(
        r##"<rect x="40" y="90" width="230" height="330" rx="8" fill="none" stroke="#8a5f3e" stroke-width="12"/>"##,
    );
    s.push_str(r##"<path d="M155 90 V420 M40 255 H270" stroke="#8a5f3e" stroke-width="8"/>"##);
    // Hanging lamp.
    s.push_str(r##"<path d="M470 0 V120" stroke="#3b2a24" stroke-width="3"/><path d="M430 160 Q470 100 510 160 Z" fill="#3b2a24"/><ellipse cx="470" cy="166" rx="16" ry="8" fill="#ffe6a0"/><circle cx="470" cy="180" r="70" fill="#ffe6a0" fill-opacity="0.18"/>"##);
    // Shelf with plant and cups.
    s.push_str(r##"<rect x="380" y="300" width="200" height="10" fill="#8a5f3e"/><rect x="400" y="262" width="34" height="38" rx="4" fill="#d9826b"/><path d="M417 262 C400 230 392 220 404 212 C412 226 416 240 417 262 C420 236 430 220 444 214 C446 232 432 248 417 262" fill="#4f7a5e"/><rect x="470" y="276" width="26" height="24" rx="3" fill="#f4f1ec"/><rect x="510" y="276" width="26" height="24" rx="3" fill="#3c5a8c"/>"##);
}

/// Darkens corners slightly for a photographic finish.
fn vignette(s: &mut String) {
    s.push_str(r#"<rect width="600" height="800" fill="url(#vig)"/>"#);
}

// ---------------------------------------------------------------------------
// Body
// ---------------------------------------------------------------------------

/// Neck, shoulders and top. Drawn after the back hair and before the head.
fn body(s: &mut String, t: &Traits) {
    let neck = neck_path(t.male);
    s.push_str(&format!(r#"<path d="{neck}" fill="url(#neckG)"/>"#));
    neck_shadow(s, t);
    // The torso sits a little higher than the neck column's end so the neck
    // does not look stretched; the paths run past the canvas bottom (830).
    s.push_str(r#"<g transform="translate(0 -16)">"#);
    // Shoulders and upper chest in skin; the top covers most of it.
    let shoulders = if t.male {
        "M252 540 C250 575 228 592 180 602 C104 618 52 646 38 720 L28 830 L572 830 L562 720 C548 646 496 618 420 602 C372 592 350 575 348 540 Z"
    } else {
        "M262 540 C262 572 242 590 204 600 C134 616 92 642 78 710 L66 830 L534 830 L522 710 C508 642 466 616 396 600 C358 590 338 572 338 540 Z"
    };
    s.push_str(&format!(r#"<path d="{shoulders}" fill="url(#chestG)"/>"#));
    // Collarbones: two faint strokes give the chest structure.
    s.push_str(&format!(
        r#"<path d="M238 612 Q270 622 292 616 M308 616 Q330 622 362 612" fill="none" stroke="{}" stroke-width="3" stroke-linecap="round" stroke-opacity="0.35"/>"#,
        t.skin.shade(0.7).hex()
    ));
    clothing(s, t);
    necklace(s, t);
    s.push_str("</g>");
}

fn clothing(s: &mut String, t: &Traits) {
    let fold = t.outfit.shade(0.72).hex();
    let edge = t.outfit.shade(0.6).hex();
    if t.male {
        match t.top {
            // Crew-neck tee.
            0 => {
                s.push_str(r#"<path d="M30 830 L40 722 C54 650 104 622 180 606 C212 598 240 590 252 576 C270 598 330 598 348 576 C360 590 388 598 420 606 C496 622 546 650 560 722 L570 830 Z" fill="url(#clothG)"/>"#);
                s.push_str(&format!(r#"<path d="M252 576 C270 600 330 600 348 576" fill="none" stroke="{edge}" stroke-width="8" stroke-linecap="round"/>"#));
                s.push_str(&format!(r#"<path d="M110 830 C120 740 130 700 150 660 M490 830 C480 740 470 700 450 660" fill="none" stroke="{fold}" stroke-width="4" stroke-opacity="0.5" stroke-linecap="round"/>"#));
            }
            // Open-collar shirt: V opening with collar wings.
            1 => {
                s.push_str(r#"<path d="M30 830 L40 722 C54 650 104 622 180 606 C214 598 240 590 250 572 L300 690 L350 572 C360 590 386 598 420 606 C496 622 546 650 560 722 L570 830 Z" fill="url(#clothG)"/>"#);
                s.push_str(&format!(r#"<path d="M250 566 L230 622 L300 690 Z M350 566 L370 622 L300 690 Z" fill="{}" stroke="{edge}" stroke-width="2"/>"#, t.outfit.shade(1.12).hex()));
                s.push_str(&format!(r#"<path d="M300 690 V830" stroke="{edge}" stroke-width="3"/><circle cx="300" cy="725" r="4" fill="{edge}"/><circle cx="300" cy="770" r="4" fill="{edge}"/>"#));
            }
            // Jacket over a tee: darker lapels framing a light inner shirt.
            _ => {
                let inner = if t.outfit.0 as u32 + t.outfit.1 as u32 + t.outfit.2 as u32 > 450 {
                    Rgb(0x2b, 0x2d, 0x3a)
                } else {
                    Rgb(0xf2, 0xef, 0xea)
                };
                s.push_str(&format!(
                    r#"<path d="M200 830 L215 620 C250 600 350 600 385 620 L400 830 Z" fill="{}"/>"#,
                    inner.hex()
                ));
                s.push_str(&format!(
                    r#"<path d="M252 580 C270 600 330 600 348 580" fill="none" stroke="{}" stroke-width="6"/>"#,
                    inner.shade(0.8).hex()
                ));
                s.push_str(r#"<path d="M30 830 L40 722 C54 650 104 622 180 606 C210 598 232 592 240 588 L262 830 Z M570 830 L560 722 C546 650 496 622 420 606 C390 598 368 592 360 588 L338 830 Z" fill="url(#clothG)"/>"#);
                s.push_str(&format!(r#"<path d="M240 588 L222 640 L252 660 L262 830 M360 588 L378 640 L348 660 L338 830" fill="none" stroke="{edge}" stroke-width="4" stroke-linejoin="round"/>"#));
            }
        }
    } else {
        match t.top {
            // V-neck top.
            0 => {
                s.push_str(r#"<path d="M68 830 L80 714 C94 646 136 622 204 606 C222 602 232 598 238 594 L300 700 L362 594 C368 598 378 602 396 606 C464 622 506 646 520 714 L532 830 Z" fill="url(#clothG)"/>"#);
                s.push_str(&format!(r#"<path d="M238 594 L300 700 L362 594" fill="none" stroke="{edge}" stroke-width="5" stroke-linejoin="round"/>"#));
                s.push_str(&format!(r#"<path d="M150 830 C160 740 168 700 180 670 M450 830 C440 740 432 700 420 670" fill="none" stroke="{fold}" stroke-width="3" stroke-opacity="0.45" stroke-linecap="round"/>"#));
            }
            // Scoop-neck tee: a wide, rounded neckline.
            1 => {
                s.push_str(r#"<path d="M68 830 L80 714 C94 646 136 622 196 604 C208 600 216 598 222 596 C238 660 362 660 378 596 C384 598 392 600 404 604 C464 622 506 646 520 714 L532 830 Z" fill="url(#clothG)"/>"#);
                s.push_str(&format!(
                    r#"<path d="M222 596 C238 660 362 660 378 596" fill="none" stroke="{edge}" stroke-width="5"/>"#
                ));
                s.push_str(&format!(r#"<path d="M150 830 C160 750 170 710 184 680 M450 830 C440 750 430 710 416 680" fill="none" stroke="{fold}" stroke-width="3" stroke-opacity="0.45" stroke-linecap="round"/>"#));
            }
            // Soft knit with a rounded high neckline and rib texture.
            _ => {
                s.push_str(r#"<path d="M68 830 L80 714 C94 646 136 622 204 606 C232 598 252 590 258 572 C276 600 324 600 342 572 C348 590 368 598 396 606 C464 622 506 646 520 714 L532 830 Z" fill="url(#clothG)"/>"#);
                s.push_str(&format!(r#"<path d="M256 568 C272 604 328 604 344 568" fill="none" stroke="{edge}" stroke-width="10" stroke-linecap="round"/>"#));
                let mut d = String::new();
                for i in 0..7 {
                    let x = 160.0 + f32::from(i as u8) * 46.0;
                    d.push_str(&format!(
                        "M{x:.1} 830 C{:.1} 740 {:.1} 700 {:.1} 650 ",
                        x + 4.0,
                        x + 2.0,
                        (x - 300.0) * 0.8 + 300.0
                    ));
                }
                s.push_str(&format!(
                    r#"<path d="{d}" fill="none" stroke="{fold}" stroke-width="2" stroke-opacity="0.35"/>"#
                ));
            }
        }
    }
}

/// Shadow the jaw casts on the neck; sells the depth between head and body.
/// Clipped to the neck so it never shows as a grey blob beside it.
fn neck_shadow(s: &mut String, t: &Traits) {
    let w = if t.male { 86.0 } else { 74.0 };
    s.push_str(&format!(
        r#"<g clip-path="url(#neckClip)"><ellipse cx="300" cy="470" rx="{w:.1}" ry="44" fill="{}" fill-opacity="0.5" filter="url(#soft)"/></g>"#,
        t.skin.shade(0.6).hex()
    ));
}

// ---------------------------------------------------------------------------
// Head
// ---------------------------------------------------------------------------

fn ears(s: &mut String, t: &Traits) {
    let (l, r) = if t.male { (200.0, 400.0) } else { (204.0, 396.0) };
    let fill = t.skin.shade(0.93).hex();
    let inner = t.skin.shade(0.74).hex();
    for (x, dir) in [(l, -1.0_f32), (r, 1.0)] {
        s.push_str(&format!(r#"<ellipse cx="{:.1}" cy="350" rx="15" ry="27" fill="{fill}"/>"#, x + dir * 4.0));
        s.push_str(&format!(
            r#"<path d="M{:.1} 334 Q{:.1} 350 {:.1} 366" fill="none" stroke="{inner}" stroke-width="3" stroke-linecap="round"/>"#,
            x + dir * 8.0,
            x + dir * 14.0,
            x + dir * 6.0
        ));
    }
}

fn face(s: &mut String, t: &Traits) {
    s.push_str(&format!(r#"<path d="{}" fill="url(#skinG)"/>"#, face_path(t.male)));
    // Cheek contour on the shadow side and a soft highlight on the light side;
    // this is what makes the flat shape read as a rounded face.
    s.push_str(&format!(
        r##"<g clip-path="url(#faceClip)"><path d="M400 240 C392 350 380 420 300 492 L420 492 L420 240 Z" fill="{}" fill-opacity="0.22" filter="url(#softer)"/><ellipse cx="262" cy="272" rx="44" ry="20" fill="#ffffff" fill-opacity="0.08" filter="url(#softer)"/></g>"##,
        t.skin.shade(0.7).hex()
    ));
}

/// Cheek blush; its strength (stronger for women) lives in the `blushG` gradient.
fn blush(s: &mut String) {
    s.push_str(r#"<ellipse cx="246" cy="392" rx="30" ry="17" fill="url(#blushG)"/>"#);
    s.push_str(r#"<ellipse cx="354" cy="392" rx="30" ry="17" fill="url(#blushG)"/>"#);
}

fn nose(s: &mut String, t: &Traits) {
    let shadow = t.skin.shade(0.72).hex();
    // Bridge shadow on one side only, like a light from the upper left.
    s.push_str(&format!(
        r#"<path d="M308 346 C312 366 316 382 316 394 C312 392 309 380 306 362 Z" fill="{shadow}" fill-opacity="0.35"/>"#
    ));
    // Tip and nostril: one curved stroke plus a tiny highlight.
    let w = if t.male { 17.0 } else { 14.0 };
    s.push_str(&format!(
        r#"<path d="M{:.1} 396 Q{:.1} 405 300 404 Q{:.1} 405 {:.1} 396" fill="none" stroke="{shadow}" stroke-width="3" stroke-linecap="round" stroke-opacity="0.8"/>"#,
        300.0 - w,
        300.0 - w * 0.6,
        300.0 + w * 0.6,
        300.0 + w
    ));
    s.push_str(r##"<ellipse cx="300" cy="388" rx="4" ry="3" fill="#ffffff" fill-opacity="0.18"/>"##);
}

fn eyes(s: &mut String, t: &Traits) {
    let (y, w, h) = if t.male { (340.0, 25.0, 12.0) } else { (338.0, 25.0, 14.0) };
    for (cx, dir) in [(257.0_f32, -1.0_f32), (343.0, 1.0)] {
        eye(s, t, cx, y, w, h, dir);
    }
}

/// One almond-shaped eye. `dir` is -1 for the viewer's left eye (outer corner
/// on the left) and +1 for the right, so shapes mirror cleanly.
fn eye(s: &mut String, t: &Traits, cx: f32, cy: f32, w: f32, h: f32, dir: f32) {
    let outer = cx + dir * w;
    let inner = cx - dir * w;
    let lift = 4.0; // outer corner sits a little higher: a friendlier, livelier eye
    let shape = format!(
        "M{inner:.1} {cy:.1} C{:.1} {:.1} {:.1} {:.1} {outer:.1} {:.1} C{:.1} {:.1} {:.1} {:.1} {inner:.1} {cy:.1} Z",
        inner + dir * w * 0.45,
        cy - h * 1.15,
        outer - dir * w * 0.45,
        cy - h * 1.25,
        cy - lift,
        outer - dir * w * 0.5,
        cy + h * 0.85,
        inner + dir * w * 0.5,
        cy + h * 0.8,
    );
    let id = if dir < 0.0 { "eyeL" } else { "eyeR" };
    s.push_str(&format!(r#"<clipPath id="{id}"><path d="{shape}"/></clipPath>"#));
    s.push_str(&format!(r##"<path d="{shape}" fill="#fbf7f4"/>"##));
    // Iris, pupil and catch-lights, clipped by the lids.
    let ir = h * 0.98;
    let icy = cy - 1.0;
    s.push_str(&format!(
        r##"<g clip-path="url(#{id})"><circle cx="{cx:.1}" cy="{icy:.1}" r="{ir:.1}" fill="url(#irisG)"/><circle cx="{cx:.1}" cy="{icy:.1}" r="{ir:.1}" fill="none" stroke="{}" stroke-width="1.5"/><circle cx="{cx:.1}" cy="{icy:.1}" r="{:.1}" fill="#140c0c"/><path d="M{:.1} {:.1} H{:.1}" stroke="{}" stroke-width="{:.1}" stroke-opacity="0.35"/></g>"##,
        t.eyes.shade(0.4).hex(),
        ir * 0.42,
        cx - w * 1.2,
        cy - h * 0.95,
        cx + w * 1.2,
        t.skin.shade(0.5).hex(),
        h * 0.6,
    ));
    s.push_str(&format!(
        r##"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="#ffffff"/><circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="#ffffff" fill-opacity="0.7"/>"##,
        cx + ir * 0.35,
        icy - ir * 0.4,
        ir * 0.28,
        cx - ir * 0.35,
        icy + ir * 0.35,
        ir * 0.13,
    ));
    // Upper lash line, thicker toward the outer corner, with a small flick for women.
    let lash_w = if t.male { 2.6 } else { 3.6 };
    s.push_str(&format!(
        r#"<path d="M{inner:.1} {cy:.1} C{:.1} {:.1} {:.1} {:.1} {outer:.1} {:.1}" fill="none" stroke="{}" stroke-width="{lash_w:.1}" stroke-linecap="round"/>"#,
        inner + dir * w * 0.45,
        cy - h * 1.15,
        outer - dir * w * 0.45,
        cy - h * 1.25,
        cy - lift,
        LINE.hex()
    ));
    if !t.male {
        s.push_str(&format!(
            r#"<path d="M{:.1} {:.1} Q{:.1} {:.1} {:.1} {:.1}" fill="none" stroke="{}" stroke-width="3" stroke-linecap="round"/>"#,
            outer - dir * 6.0,
            cy - lift - 1.5,
            outer + dir * 3.0,
            cy - lift - 2.5,
            outer + dir * 8.0,
            cy - lift - 7.0,
            LINE.hex()
        ));
    }
    // Lower lid and crease: faint, they only hint at volume.
    s.push_str(&format!(
        r#"<path d="M{:.1} {:.1} C{:.1} {:.1} {:.1} {:.1} {outer:.1} {:.1}" fill="none" stroke="{}" stroke-width="1.6" stroke-opacity="0.45"/>"#,
        inner + dir * 4.0,
        cy + 2.0,
        inner + dir * w * 0.6,
        cy + h * 0.9,
        outer - dir * w * 0.4,
        cy + h * 0.8,
        cy - lift + 2.0,
        t.skin.shade(0.55).hex()
    ));
    s.push_str(&format!(
        r#"<path d="M{:.1} {:.1} C{:.1} {:.1} {:.1} {:.1} {:.1} {:.1}" fill="none" stroke="{}" stroke-width="2" stroke-opacity="0.4" stroke-linecap="round"/>"#,
        inner + dir * 3.0,
        cy - h - 2.0,
        inner + dir * w * 0.6,
        cy - h * 1.75,
        outer - dir * w * 0.4,
        cy - h * 1.8,
        outer - dir * 2.0,
        cy - lift - 6.0,
        t.skin.shade(0.62).hex()
    ));
}

fn brows(s: &mut String, t: &Traits) {
    // Brows follow the hair colour but stay dark enough to frame the eyes
    // even for platinum hair.
    let colour = t.hair.shade(0.7).mix(LINE, 0.25).hex();
    let (y, thick) = if t.male { (306.0_f32, 9.0_f32) } else { (304.0, 6.0) };
    for dir in [-1.0_f32, 1.0] {
        let inner = 300.0 + dir * 20.0;
        let outer = 300.0 + dir * 70.0;
        let peak = 300.0 + dir * 52.0;
        let arch = if t.male { 6.0 } else { 11.0 };
        let d = format!(
            "M{inner:.1} {:.1} C{:.1} {:.1} {:.1} {:.1} {peak:.1} {:.1} C{:.1} {:.1} {:.1} {:.1} {outer:.1} {:.1} C{:.1} {:.1} {:.1} {:.1} {peak:.1} {:.1} C{:.1} {:.1} {:.1} {:.1} {inner:.1} {:.1} Z",
            y + thick * 0.5,
            inner + dir * 8.0,
            y - arch * 0.6,
            peak - dir * 12.0,
            y - arch,
            y - arch,
            peak + dir * 8.0,
            y - arch,
            outer - dir * 4.0,
            y - arch * 0.3,
            y + 4.0 - arch * 0.1,
            outer - dir * 8.0,
            y - arch * 0.4 + 1.0,
            peak + dir * 6.0,
            y - arch + thick,
            y - arch + thick,
            peak - dir * 14.0,
            y - arch + thick,
            inner + dir * 6.0,
            y + thick * 0.4,
            y + thick * 1.1,
        );
        s.push_str(&format!(r#"<path d="{d}" fill="{colour}"/>"#));
    }
}

fn mouth(s: &mut String, t: &Traits) {
    let line = lip_colour(t).shade(0.55).hex();
    if t.male {
        s.push_str(r#"<path d="M276 434 C286 428 294 426 300 429 C306 426 314 428 324 434 C312 436 288 436 276 434 Z" fill="url(#lipG)"/>"#);
        s.push_str(r#"<path d="M278 435 C288 448 312 448 322 435 C310 438 290 438 278 435 Z" fill="url(#lipG)"/>"#);
        s.push_str(&format!(r#"<path d="M274 433 C290 438 310 438 326 433" fill="none" stroke="{line}" stroke-width="2.4" stroke-linecap="round"/>"#));
    } else {
        s.push_str(r#"<path d="M272 430 C282 421 292 417 300 423 C308 417 318 421 328 430 C314 434 286 434 272 430 Z" fill="url(#lipG)"/>"#);
        s.push_str(r#"<path d="M274 431 C284 452 316 452 326 431 C312 436 288 436 274 431 Z" fill="url(#lipG)"/>"#);
        s.push_str(&format!(r#"<path d="M270 429 C286 436 314 436 330 429" fill="none" stroke="{line}" stroke-width="2.2" stroke-linecap="round"/>"#));
        // Gloss highlight on the lower lip.
        s.push_str(r##"<ellipse cx="306" cy="440" rx="7" ry="2.5" fill="#ffffff" fill-opacity="0.22"/>"##);
    }
    // Tiny upturned corners: a relaxed half-smile (subtler for men).
    if t.male {
        return;
    }
    s.push_str(&format!(
        r#"<path d="M266 427 Q270 431 274 430 M334 427 Q330 431 326 430" fill="none" stroke="{line}" stroke-width="1.6" stroke-linecap="round" stroke-opacity="0.6"/>"#
    ));
}

fn beard(s: &mut String, t: &Traits) {
    if !t.male || t.beard == 0 {
        return;
    }
    // Area from sideburn to sideburn, leaving the cheeks and mouth clear.
    let area = "M204 320 C204 420 236 488 300 500 C364 488 396 420 396 320 C392 376 374 402 344 412 C328 408 272 408 256 412 C226 402 208 376 204 320 Z";
    let tache = "M268 428 C280 412 320 412 332 428 C318 420 282 420 268 428 Z";
    if t.beard == 1 {
        // Stubble: a blurred shadow between skin and hair colour.
        let colour = t.skin.shade(0.55).mix(t.hair.shade(0.5), 0.5).hex();
        s.push_str(&format!(
            r#"<g clip-path="url(#faceClip)" filter="url(#soft)" fill="{colour}" fill-opacity="0.32"><path d="{area}"/><path d="{tache}"/></g>"#
        ));
        return;
    }
    let colour = t.hair.shade(0.82);
    s.push_str(&format!(r#"<path d="{area}" fill="{}"/>"#, colour.hex()));
    s.push_str(&format!(r#"<path d="{tache}" fill="{}"/>"#, colour.hex()));
    // Textured edge and a lighter chin so the beard is not a flat sticker.
    s.push_str(&format!(
        r##"<path d="M222 420 q6 10 2 20 M242 454 q6 8 4 18 M358 454 q-6 8 -4 18 M378 420 q-6 10 -2 20 M286 470 q4 10 0 20 M314 470 q-4 10 0 20" fill="none" stroke="{}" stroke-width="3" stroke-linecap="round" stroke-opacity="0.6"/><ellipse cx="300" cy="472" rx="30" ry="14" fill="#ffffff" fill-opacity="0.08"/>"##,
        colour.shade(0.65).hex()
    ));
}

// ---------------------------------------------------------------------------
// Hair
// ---------------------------------------------------------------------------

/// Hair shapes are split: the back layer is drawn behind the neck and body,
/// the front layer after the face so fringes and side locks overlap it.
struct HairShape {
    back: Option<String>,
    front: String,
    /// Strand strokes drawn on the front layer for texture.
    strands: &'static str,
    /// Crown highlight arc.
    shine: &'static str,
}

fn hair_shape(t: &Traits) -> HairShape {
    if t.male { male_hair(t.style) } else { female_hair(t.style) }
}

fn female_hair(style: u8) -> HairShape {
    match style {
        // Long straight, side part.
        0 => HairShape {
            back: Some("M300 142 C402 142 442 212 446 300 C450 420 454 520 470 660 L130 660 C146 520 150 420 154 300 C158 212 198 142 300 142 Z".into()),
            front: "M300 146 C374 146 420 196 422 272 C424 340 416 420 422 500 C426 560 432 600 438 632 C412 626 392 618 374 606 C362 560 370 500 370 456 C374 400 392 350 388 296 C384 252 360 216 326 202 C302 238 262 262 220 284 C214 332 216 390 228 450 C236 500 226 560 230 606 C210 618 190 626 164 634 C176 600 180 560 182 500 C186 420 176 340 180 272 C184 196 228 146 300 146 Z".into(),
            strands: "M326 206 C360 230 378 280 380 340 M310 212 C280 250 250 266 232 276 M196 320 C192 420 196 520 186 610 M404 320 C408 420 404 520 420 620",
            shine: "M236 196 C262 172 300 166 330 170",
        },
        // Long wavy, centre-ish part with volume.
        1 => HairShape {
            back: Some("M300 138 C410 138 458 208 460 300 C462 360 476 400 468 450 C460 500 482 540 476 590 C472 630 490 650 480 680 L120 680 C110 650 128 630 124 590 C118 540 140 500 132 450 C124 400 138 360 140 300 C142 208 190 138 300 138 Z".into()),
            front: "M300 142 C380 142 428 194 430 268 C432 316 446 352 436 396 C428 436 448 470 440 512 C434 550 452 580 444 620 C430 640 404 640 384 628 C396 600 376 576 384 548 C392 516 370 492 378 460 C384 420 396 380 390 320 C386 262 352 214 312 202 C288 232 256 258 218 290 C212 330 218 380 226 420 C232 460 214 490 222 530 C230 570 208 600 218 632 C196 640 170 636 156 620 C150 580 168 552 160 512 C152 470 172 436 164 396 C154 352 168 316 170 268 C172 194 220 142 300 142 Z".into(),
            strands: "M312 206 C350 236 372 280 380 330 M176 320 C168 380 182 420 174 470 C166 520 184 560 176 600 M424 320 C432 380 418 420 426 470 C434 520 416 560 426 600",
            shine: "M232 192 C260 168 300 162 332 166",
        },
        // Chin-length bob with a soft side fringe.
        2 => HairShape {
            back: Some("M300 144 C396 144 430 214 432 300 C434 380 436 440 424 488 L176 488 C164 440 166 380 168 300 C170 214 204 144 300 144 Z".into()),
            front: "M300 146 C378 146 422 200 424 282 C426 360 424 420 434 476 C414 494 388 498 366 490 C376 456 384 410 388 356 C390 310 384 270 366 240 C330 256 280 262 224 290 C214 330 212 400 224 462 C232 480 236 490 236 494 C212 496 186 490 166 476 C176 420 176 360 176 282 C178 200 222 146 300 146 Z".into(),
            strands: "M366 244 C330 262 280 268 228 292 M196 320 C190 380 192 430 200 480 M404 320 C410 380 408 430 400 480",
            shine: "M238 194 C264 172 300 166 332 170",
        },
        // High ponytail: hair pulled back with the tail visible behind.
        3 => HairShape {
            back: Some("M360 176 C420 150 468 176 470 240 C472 310 450 380 462 460 C470 520 456 570 430 610 C418 560 424 500 412 440 C400 380 404 300 392 240 Z".into()),
            front: "M300 150 C368 150 414 196 412 270 C412 300 408 320 404 336 C398 300 392 272 380 252 C350 232 320 228 300 230 C270 230 240 238 222 256 C210 276 204 300 198 336 C192 318 188 298 188 270 C188 196 232 150 300 150 Z".into(),
            strands: "M300 152 C290 180 284 206 284 230 M250 164 C238 190 226 220 220 254 M352 164 C372 190 380 220 384 252 M406 250 C420 300 418 360 412 420",
            shine: "M240 186 C264 166 300 160 334 164",
        },
        // Pixie cut with a swept fringe.
        4 => HairShape {
            back: Some("M300 148 C388 148 422 210 420 290 C420 340 414 370 404 386 L196 386 C186 370 180 340 180 290 C178 210 212 148 300 148 Z".into()),
            front: "M300 148 C378 148 418 198 416 272 C416 308 410 336 402 352 C398 320 394 296 386 274 C378 258 368 248 356 244 C334 262 290 282 246 300 C230 304 218 306 210 300 C206 320 202 338 198 352 C188 330 184 300 184 272 C184 198 222 148 300 148 Z".into(),
            strands: "M356 248 C330 268 290 286 250 300 M380 210 C360 230 340 240 320 250 M226 200 C236 230 244 260 250 290",
            shine: "M244 184 C268 166 304 162 336 168",
        },
        // Voluminous natural curls: a scalloped cloud around the head.
        _ => HairShape {
            back: Some(cloud(300.0, 330.0, 168.0, 196.0, 0.0, 360.0, 22)),
            front: curly_cap(),
            strands: "M236 196 q10 -12 22 -2 M270 176 q10 -12 22 -2 M316 174 q10 -12 22 -2 M352 196 q10 -12 22 -2 M196 260 q-4 -14 8 -20 M404 260 q4 -14 -8 -20",
            shine: "M252 176 C278 160 320 158 350 168",
        },
    }
}

fn male_hair(style: u8) -> HairShape {
    match style {
        // Swept-back quiff with volume on top.
        0 => HairShape {
            back: None,
            front: "M198 326 C186 268 188 212 214 180 C240 148 284 130 334 132 C380 136 410 162 414 206 C416 240 410 290 402 326 C398 296 394 276 386 262 C368 246 344 240 320 242 C310 236 300 234 290 238 C266 240 240 246 220 260 C210 278 204 300 198 326 Z".into(),
            strands: "M226 210 C262 176 310 160 366 166 M226 240 C268 210 330 200 390 214 M250 166 C286 146 330 140 372 150",
            shine: "M258 160 C288 142 330 138 364 148",
        },
        // Tousled fringe swept to one side.
        1 => HairShape {
            back: None,
            front: "M196 330 C184 268 190 200 226 168 C262 138 338 134 378 162 C410 188 418 250 404 330 C400 300 396 282 388 266 C382 256 374 252 366 252 C370 262 368 270 362 276 C354 262 342 254 328 252 C332 262 330 270 324 276 C312 262 294 254 276 254 C280 262 276 270 268 274 C258 262 246 258 232 260 C220 268 212 280 208 292 C202 304 198 318 196 330 Z".into(),
            strands: "M362 274 C358 236 340 206 310 186 M324 274 C318 240 296 212 266 196 M268 272 C262 246 248 226 230 214",
            shine: "M248 168 C276 152 318 148 352 158",
        },
        // Curly top: clustered curls over tight sides.
        2 => HairShape {
            back: None,
            front: "M198 330 C190 290 190 250 200 222 C196 190 214 166 238 160 C246 140 272 130 294 138 C312 124 342 128 354 146 C378 142 402 160 402 184 C418 204 418 240 408 262 C410 290 406 312 402 330 C398 304 392 284 384 270 C376 262 366 258 356 262 C346 250 330 250 320 258 C308 248 290 248 280 258 C268 250 252 252 244 262 C232 260 222 264 216 272 C208 288 202 308 198 330 Z".into(),
            strands: "M236 200 q14 -14 28 0 M270 176 q14 -14 28 0 M306 170 q14 -14 28 0 M340 190 q14 -14 28 0 M250 236 q14 -14 28 0 M292 218 q14 -14 28 0 M330 230 q14 -14 28 0 M364 224 q10 -12 22 0 M216 240 q10 -12 22 0",
            shine: "M262 156 C284 146 316 146 338 152",
        },
        // Hair pulled back into a bun on the crown.
        3 => HairShape {
            back: Some("M300 98 C324 98 340 114 340 136 C340 158 324 172 300 172 C276 172 260 158 260 136 C260 114 276 98 300 98 Z".into()),
            front: "M200 324 C190 266 196 204 228 176 C254 154 280 150 300 150 C320 150 346 154 372 176 C404 204 410 266 400 324 C396 296 392 276 384 262 C368 244 340 236 300 236 C260 236 232 244 216 262 C208 276 204 296 200 324 Z".into(),
            strands: "M300 238 C296 210 298 180 300 156 M256 242 C258 210 270 182 290 160 M344 242 C342 210 330 182 310 160 M224 262 C228 230 244 200 270 170 M376 262 C372 230 356 200 330 170",
            shine: "M256 176 C280 162 320 162 344 176",
        },
        // Classic short crop with a side part.
        4 => HairShape {
            back: None,
            front: "M200 330 C188 270 194 206 226 176 C256 150 300 144 340 150 C384 158 410 196 410 252 C410 284 406 308 400 330 C396 302 392 282 386 266 C378 250 360 240 340 238 L332 226 C300 232 262 236 232 248 C216 266 206 296 200 330 Z".into(),
            strands: "M332 226 C330 200 318 180 300 166 M236 240 C256 216 290 200 326 198 M344 236 C366 220 382 210 396 212",
            shine: "M254 164 C282 152 318 150 350 160",
        },
        // Buzz cut: a thin shadow of hair following the skull.
        _ => HairShape {
            back: None,
            front: "M202 320 C194 262 202 206 232 184 C258 166 284 162 300 162 C316 162 342 166 368 184 C398 206 406 262 398 320 C394 296 390 280 384 268 C370 252 344 240 300 240 C256 240 230 252 216 268 C210 280 206 296 202 320 Z".into(),
            strands: "",
            shine: "M262 178 C286 170 314 170 338 178",
        },
    }
}

/// Closed or open chain of outward bumps along an ellipse: curls seen in
/// silhouette. Angles in degrees, screen orientation (270 = top).
fn cloud(cx: f32, cy: f32, rx: f32, ry: f32, from: f32, to: f32, bumps: u32) -> String {
    let pts = ellipse_points(cx, cy, rx, ry, from, to, bumps);
    let mut d = String::new();
    if let Some((x, y)) = pts.first() {
        d.push_str(&format!("M{x:.1} {y:.1} "));
    }
    push_scallops(&mut d, &pts);
    d.push('Z');
    d
}

fn ellipse_points(cx: f32, cy: f32, rx: f32, ry: f32, from: f32, to: f32, n: u32) -> Vec<(f32, f32)> {
    let n = n.max(1);
    (0..=n)
        .map(|i| {
            let a = (from + (to - from) * i as f32 / n as f32).to_radians();
            (cx + rx * a.cos(), cy + ry * a.sin())
        })
        .collect()
}

/// Arcs between consecutive points; sweep=1 bulges to the left of travel,
/// which is outward when walking clockwise on screen.
fn push_scallops(d: &mut String, pts: &[(f32, f32)]) {
    for w in pts.windows(2) {
        let (x0, y0) = w[0];
        let (x1, y1) = w[1];
        let r = ((x1 - x0).hypot(y1 - y0) * 0.56).max(1.0);
        d.push_str(&format!("A{r:.1} {r:.1} 0 0 1 {x1:.1} {y1:.1} "));
    }
}

/// Front layer of the curly style: scalloped crown on the outside and a
/// curly hairline across the forehead on the inside.
fn curly_cap() -> String {
    let outer = ellipse_points(300.0, 320.0, 122.0, 168.0, 160.0, 380.0, 13);
    let inner = ellipse_points(300.0, 320.0, 100.0, 92.0, 380.0, 160.0, 9);
    let mut d = String::new();
    if let Some((x, y)) = outer.first() {
        d.push_str(&format!("M{x:.1} {y:.1} "));
    }
    push_scallops(&mut d, &outer);
    // Walk the hairline back right-to-left; sweep=1 now bulges down onto the forehead.
    if let Some((x, y)) = inner.first() {
        d.push_str(&format!("L{x:.1} {y:.1} "));
    }
    push_scallops(&mut d, &inner);
    d.push('Z');
    d
}

fn back_hair(s: &mut String, t: &Traits) {
    if let Some(d) = hair_shape(t).back {
        s.push_str(&format!(r#"<path d="{d}" fill="url(#hairBackG)"/>"#));
    }
    // Man bun: a tie band where the knot meets the head.
    if t.male && t.style == 3 {
        s.push_str(&format!(
            r#"<rect x="280" y="160" width="40" height="9" rx="4" fill="{}"/>"#,
            t.hair.shade(0.45).hex()
        ));
    }
}

fn front_hair(s: &mut String, t: &Traits) {
    let shape = hair_shape(t);
    // Cast shadow of the fringe on the forehead: the same outline nudged down,
    // clipped to the face so it never spills onto the background.
    s.push_str(&format!(
        r#"<g clip-path="url(#faceClip)"><path d="{}" transform="translate(0 7)" fill="{}" fill-opacity="0.28"/></g>"#,
        &shape.front,
        t.skin.shade(0.55).hex()
    ));
    let buzz = t.male && t.style == 5;
    let opacity = if buzz { 0.78 } else { 1.0 };
    s.push_str(&format!(r#"<path d="{}" fill="url(#hairG)" fill-opacity="{opacity:.2}"/>"#, &shape.front));
    if !shape.strands.is_empty() {
        s.push_str(&format!(
            r#"<path d="{}" fill="none" stroke="{}" stroke-width="2.5" stroke-linecap="round" stroke-opacity="0.45"/>"#,
            shape.strands,
            t.hair.shade(0.6).hex()
        ));
    }
    s.push_str(&format!(
        r##"<path d="{}" fill="none" stroke="#ffffff" stroke-width="9" stroke-linecap="round" stroke-opacity="0.22"/>"##,
        shape.shine
    ));
    // Ponytail tie.
    if !t.male && t.style == 3 {
        s.push_str(&format!(
            r#"<ellipse cx="392" cy="214" rx="9" ry="13" transform="rotate(-30 392 214)" fill="{}"/>"#,
            t.outfit.shade(0.8).hex()
        ));
    }
}

// ---------------------------------------------------------------------------
// Accessories
// ---------------------------------------------------------------------------

/// 0 none, 1 earrings, 2 glasses, 3 necklace (drawn with the body, see `necklace`).
fn accessory(s: &mut String, t: &Traits) {
    match t.accessory {
        1 => earrings(s, t),
        2 => glasses(s, t),
        _ => {}
    }
}

fn earrings(s: &mut String, t: &Traits) {
    let gold = "#e2b857";
    if t.male {
        for x in [196.0_f32, 404.0] {
            s.push_str(&format!(
                r##"<circle cx="{x:.1}" cy="372" r="4.5" fill="{gold}" stroke="#9c7a2e" stroke-width="1"/>"##
            ));
        }
    } else {
        for x in [200.0_f32, 400.0] {
            s.push_str(&format!(
                r##"<circle cx="{x:.1}" cy="392" r="13" fill="none" stroke="{gold}" stroke-width="3.5"/><circle cx="{:.1}" cy="384" r="2.5" fill="#fff6d6"/>"##,
                x - 4.0
            ));
        }
    }
}

fn glasses(s: &mut String, t: &Traits) {
    let frame = if t.hair.0 > 0xb0 { "#6b4a3a" } else { "#2a2226" };
    let y = if t.male { 340.0 } else { 338.0 };
    for cx in [257.0_f32, 343.0] {
        s.push_str(&format!(
            r##"<rect x="{:.1}" y="{:.1}" width="68" height="50" rx="18" fill="#ffffff" fill-opacity="0.12" stroke="{frame}" stroke-width="4"/>"##,
            cx - 34.0,
            y - 26.0
        ));
    }
    s.push_str(&format!(
        r#"<path d="M291 {:.1} Q300 {:.1} 309 {:.1} M223 {:.1} L204 {:.1} M377 {:.1} L396 {:.1}" fill="none" stroke="{frame}" stroke-width="4" stroke-linecap="round"/>"#,
        y - 8.0,
        y - 14.0,
        y - 8.0,
        y - 10.0,
        y - 14.0,
        y - 10.0,
        y - 14.0
    ));
}

/// Necklace sits on the chest, outside the tilted head group.
fn necklace(s: &mut String, t: &Traits) {
    if t.accessory != 3 {
        return;
    }
    if t.male {
        s.push_str(r##"<path d="M262 574 C270 620 330 620 338 574" fill="none" stroke="#c9c9cf" stroke-width="3"/>"##);
    } else {
        s.push_str(r##"<path d="M256 572 C262 628 338 628 344 572" fill="none" stroke="#e2b857" stroke-width="2.5"/><path d="M300 618 l8 10 l-8 10 l-8 -10 Z" fill="#f2d27a" stroke="#b08a30" stroke-width="1"/>"##);
    }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn look(skin: u8, hair: u8, hair_style: u8, eyes: u8, background: u8, accessory: u8) -> Look {
        Look { skin, hair, hair_style, eyes, background, accessory }
    }

    /// Opening tags must equal closing tags plus self-closing ones, and no
    /// non-finite number may have leaked into an attribute. One hand-written
    /// byte scan: generic `str::matches` is very slow in debug builds and the
    /// exhaustive test validates tens of thousands of documents.
    fn looks_valid(svg: &str) -> bool {
        let b = svg.as_bytes();
        let (mut opens, mut closes, mut self_closing) = (0usize, 0usize, 0usize);
        let mut i = 0;
        while i < b.len() {
            let next = if i + 1 < b.len() { b[i + 1] } else { 0 };
            match b[i] {
                b'<' if next == b'/' => closes += 1,
                b'<' if next.is_ascii_alphabetic() => opens += 1,
                b'<' => return false,
                b'/' if next == b'>' => self_closing += 1,
                b'N' if b[i..].starts_with(b"NaN") => return false,
                b'i' if b[i..].starts_with(b"inf") => return false,
                _ => {}
            }
            i += 1;
        }
        svg.starts_with("<svg")
            && svg.ends_with("</svg>")
            && svg.contains(r#"xmlns="http://www.w3.org/2000/svg""#)
            && opens == closes + self_closing
    }

    const SHOTS: [(u8, Shot); 4] =
        [(0, Shot::Portrait), (1, Shot::Portrait), (0, Shot::Secondary), (1, Shot::Secondary)];

    #[test]
    fn every_look_combination_renders_valid_looking_svg() {
        // All 46,080 looks; gender and shot rotate so each look is drawn once
        // and every (gender, shot) pair still sees over eleven thousand looks.
        let mut n = 0usize;
        for skin in 0..6 {
            for hair in 0..8 {
                for style in 0..6 {
                    for eyes in 0..5 {
                        for bg in 0..8 {
                            for acc in 0..4 {
                                let l = look(skin, hair, style, eyes, bg, acc);
                                let (gender, shot) = SHOTS[n % 4];
                                let svg = render_portrait(&l, gender, shot);
                                assert!(looks_valid(&svg), "invalid svg for {l:?} g{gender} {shot:?}");
                                n += 1;
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(n, 46_080);
    }

    #[test]
    fn every_structural_variant_renders_for_both_genders_and_shots() {
        // Style, background (scene), accessory and the beard/top selectors are
        // what change the geometry; cross them fully with gender and shot.
        for style in 0..6 {
            for bg in 0..8 {
                for acc in 0..4 {
                    for eyes in 0..5 {
                        for (gender, shot) in SHOTS {
                            let l = look(eyes % 6, (style + acc) % 8, style, eyes, bg, acc);
                            assert!(looks_valid(&render_portrait(&l, gender, shot)));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn out_of_range_values_wrap_instead_of_panicking() {
        let wild = look(255, 200, 99, 77, 250, 13);
        let wrapped = look(255 % 6, 200 % 8, 99 % 6, 77 % 5, 250 % 8, 13 % 4);
        for gender in [0, 1, 7, 255] {
            for shot in [Shot::Portrait, Shot::Secondary] {
                let a = render_portrait(&wild, gender, shot);
                assert!(looks_valid(&a));
                assert_eq!(a, render_portrait(&wrapped, gender % 2, shot));
            }
        }
    }

    #[test]
    fn output_is_deterministic() {
        let l = look(2, 4, 1, 3, 5, 2);
        for gender in 0..2 {
            for shot in [Shot::Portrait, Shot::Secondary] {
                assert_eq!(render_portrait(&l, gender, shot), render_portrait(&l, gender, shot));
            }
        }
    }

    #[test]
    fn portraits_of_different_looks_differ() {
        let base = look(1, 2, 0, 1, 3, 0);
        let variants = [
            look(4, 2, 0, 1, 3, 0),
            look(1, 5, 0, 1, 3, 0),
            look(1, 2, 3, 1, 3, 0),
            look(1, 2, 0, 3, 3, 0),
            look(1, 2, 0, 1, 6, 0),
            look(1, 2, 0, 1, 3, 2),
        ];
        for gender in 0..2 {
            let a = render_portrait(&base, gender, Shot::Portrait);
            for v in &variants {
                assert_ne!(a, render_portrait(v, gender, Shot::Portrait), "{v:?} looks like {base:?}");
            }
        }
    }

    #[test]
    fn secondary_shot_differs_from_portrait_and_genders_differ() {
        let l = look(0, 1, 2, 0, 1, 3);
        assert_ne!(render_portrait(&l, 0, Shot::Portrait), render_portrait(&l, 0, Shot::Secondary));
        assert_ne!(render_portrait(&l, 0, Shot::Portrait), render_portrait(&l, 1, Shot::Portrait));
    }
}
