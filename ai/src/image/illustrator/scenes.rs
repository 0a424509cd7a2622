//! Backgrounds on the 600x800 stage: the portrait backdrop and the scene presets. Details
//! (stars, windows, trees, books) are scattered by the traits' seed, so they vary between
//! pictures while the place stays recognisable.

use super::palette::{BACKDROPS, Rgb, Traits, frac, rng};

// ---------------------------------------------------------------------------
// Backgrounds
// ---------------------------------------------------------------------------

/// Portrait backdrop: gradient, a halo behind the head and a few bokeh dots.
pub(super) fn backdrop(s: &mut String, t: &Traits) {
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

/// The scene presets, and the backdrop of portraits without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scene {
    Bedroom,
    Beach,
    Cafe,
    CityNight,
    Park,
    Pool,
    Gym,
    Office,
    Mountains,
    Library,
}

impl Scene {
    pub const ALL: [(&'static str, Scene); 10] = [
        ("bedroom", Scene::Bedroom),
        ("beach", Scene::Beach),
        ("cafe", Scene::Cafe),
        ("city-night", Scene::CityNight),
        ("park", Scene::Park),
        ("pool", Scene::Pool),
        ("gym", Scene::Gym),
        ("office", Scene::Office),
        ("mountains", Scene::Mountains),
        ("library", Scene::Library),
    ];

    pub fn from_key(key: &str) -> Option<Scene> {
        Self::ALL.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// The catalogue's second picture: one of four scenes by the look's backdrop.
    pub fn of_backdrop(bg: u8) -> Scene {
        match bg % 4 {
            0 => Scene::Beach,
            1 => Scene::CityNight,
            2 => Scene::Mountains,
            _ => Scene::Cafe,
        }
    }

    /// Where a sitting figure sits, in this scene's colours.
    pub fn seat_colour(self) -> Rgb {
        match self {
            Scene::Bedroom | Scene::Library => Rgb(0x8a, 0x4a, 0x52),
            Scene::Beach | Scene::Pool => Rgb(0xf4, 0xf1, 0xec),
            Scene::Cafe | Scene::Park | Scene::Mountains => Rgb(0x8a, 0x5f, 0x3e),
            Scene::CityNight | Scene::Office => Rgb(0x3a, 0x3a, 0x48),
            Scene::Gym => Rgb(0x2a, 0x2a, 0x30),
        }
    }
}

/// Draws a scene over the whole 600x800 stage.
pub(super) fn scene(s: &mut String, scene: Scene, t: &Traits) {
    match scene {
        Scene::Beach => scene_sunset_sea(s, t),
        Scene::CityNight => scene_city_night(s, t),
        Scene::Mountains => scene_mountains(s, t),
        Scene::Cafe => scene_cafe(s, t),
        Scene::Bedroom => scene_bedroom(s, t),
        Scene::Park => scene_park(s, t),
        Scene::Pool => scene_pool(s, t),
        Scene::Gym => scene_gym(s, t),
        Scene::Office => scene_office(s, t),
        Scene::Library => scene_library(s, t),
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
    // Sand and the foam line of the last wave.
    s.push_str(r##"<path d="M0 640 C150 620 300 650 450 630 C520 622 570 628 600 632 L600 800 L0 800 Z" fill="#e9c99a"/><path d="M0 640 C150 620 300 650 450 630 C520 622 570 628 600 632" fill="none" stroke="#ffffff" stroke-width="6" stroke-opacity="0.7"/>"##);
    let mut seed = t.seed.wrapping_add(211);
    for _ in 0..3 {
        let x = 30.0 + frac(&mut seed) * 540.0;
        let y = 690.0 + frac(&mut seed) * 90.0;
        s.push_str(&format!(r##"<ellipse cx="{x:.1}" cy="{y:.1}" rx="9" ry="5" fill="#f6e7d0"/>"##));
    }
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
pub(super) fn vignette(s: &mut String) {
    s.push_str(r#"<rect width="600" height="800" fill="url(#vig)"/>"#);
}

fn sky_gradient(s: &mut String, top: Rgb, bottom: Rgb) {
    s.push_str(&format!(
        r#"<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient><rect width="600" height="800" fill="url(#sky)"/>"#,
        top.hex(),
        bottom.hex()
    ));
}

fn scene_bedroom(s: &mut String, t: &Traits) {
    let (top, _) = BACKDROPS[usize::from(t.bg)];
    // Warm evening walls, a curtained window with the night outside, a lamp's glow.
    sky_gradient(s, Rgb(0xe8, 0xcf, 0xc4).mix(top, 0.25), Rgb(0xb8, 0x8c, 0x86));
    s.push_str(r##"<rect x="360" y="80" width="190" height="280" fill="#2a2f5a"/><circle cx="500" cy="140" r="20" fill="#fdf4d8"/>"##);
    s.push_str(r##"<path d="M350 70 C380 150 370 280 400 380 L340 380 L340 70 Z M560 70 C530 150 540 280 510 380 L570 380 L570 70 Z" fill="#9a4a5c"/><rect x="334" y="62" width="242" height="10" rx="5" fill="#6a3a3c"/>"##);
    s.push_str(r##"<circle cx="110" cy="330" r="150" fill="#ffd9a0" fill-opacity="0.25"/><path d="M80 300 L140 300 L124 250 L96 250 Z" fill="#f6e0b0"/><rect x="106" y="300" width="8" height="120" fill="#6a4a3a"/>"##);
    // Headboard and the bed's edge along the bottom.
    s.push_str(r##"<rect x="0" y="470" width="600" height="330" fill="#d9c2bd"/><rect x="30" y="420" width="540" height="120" rx="30" fill="#7a4a52"/><rect x="0" y="560" width="600" height="240" fill="#f4ece8"/><path d="M0 600 C150 580 450 620 600 590" fill="none" stroke="#d8c8c4" stroke-width="8"/>"##);
    let mut seed = t.seed.wrapping_add(17);
    for _ in 0..4 {
        let x = 380.0 + frac(&mut seed) * 160.0;
        let y = 100.0 + frac(&mut seed) * 200.0;
        s.push_str(&format!(r##"<circle cx="{x:.1}" cy="{y:.1}" r="1.6" fill="#ffffff"/>"##));
    }
}

fn scene_park(s: &mut String, t: &Traits) {
    sky_gradient(s, Rgb(0x9c, 0xd0, 0xf0), Rgb(0xe6, 0xf4, 0xe0));
    s.push_str(r##"<path d="M0 520 C150 480 300 500 450 470 C520 460 570 470 600 480 L600 800 L0 800 Z" fill="#8cc47a"/><path d="M0 600 C200 570 400 600 600 570 L600 800 L0 800 Z" fill="#74b064"/>"##);
    // A path winding into the distance.
    s.push_str(r##"<path d="M250 800 C280 700 330 620 300 520 L320 520 C360 620 330 700 420 800 Z" fill="#e6d2a8"/>"##);
    let mut seed = t.seed.wrapping_add(29);
    for i in 0..5 {
        let x = (f32::from(i as u8) * 130.0 + frac(&mut seed) * 60.0) % 620.0;
        let y = 440.0 + frac(&mut seed) * 80.0;
        let r = 60.0 + frac(&mut seed) * 40.0;
        s.push_str(&format!(
            r##"<rect x="{:.1}" y="{y:.1}" width="16" height="{:.1}" fill="#6a4a32"/><circle cx="{x:.1}" cy="{:.1}" r="{r:.1}" fill="#4f8a4a"/><circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="#5f9e58"/>"##,
            x - 8.0,
            r + 30.0,
            y - r * 0.4,
            x - r * 0.3,
            y - r * 0.7,
            r * 0.6
        ));
    }
    for _ in 0..14 {
        let x = frac(&mut seed) * 600.0;
        let y = 620.0 + frac(&mut seed) * 170.0;
        let colour = ["#ffffff", "#f6d04d", "#f28aa0"][(rng(&mut seed) % 3) as usize];
        s.push_str(&format!(r##"<circle cx="{x:.1}" cy="{y:.1}" r="4" fill="{colour}"/>"##));
    }
}

fn scene_pool(s: &mut String, t: &Traits) {
    sky_gradient(s, Rgb(0x7c, 0xc4, 0xf4), Rgb(0xd8, 0xf0, 0xfc));
    // A white villa wall, palm fronds and the pool's tiled edge.
    s.push_str(r##"<rect x="0" y="260" width="600" height="260" fill="#f6f0e6"/><rect x="60" y="320" width="120" height="150" fill="#9ad0e8"/><rect x="420" y="320" width="120" height="150" fill="#9ad0e8"/>"##);
    s.push_str(r##"<path d="M560 0 C540 120 520 240 530 520" stroke="#8a6a4a" stroke-width="18" fill="none"/><path d="M560 20 C480 10 420 50 380 100 C440 70 500 60 560 20 Z M560 20 C620 40 640 90 650 140 C620 100 590 70 560 20 Z M560 20 C520 60 500 120 500 170 C530 120 550 70 560 20 Z" fill="#3f8a52"/>"##);
    s.push_str(r##"<rect x="0" y="520" width="600" height="30" fill="#e8e2d8"/><rect x="0" y="550" width="600" height="250" fill="#2fa8d8"/>"##);
    let mut seed = t.seed.wrapping_add(41);
    for _ in 0..12 {
        let x = frac(&mut seed) * 600.0;
        let y = 570.0 + frac(&mut seed) * 220.0;
        let w = 30.0 + frac(&mut seed) * 60.0;
        s.push_str(&format!(
            r##"<path d="M{x:.1} {y:.1} q{:.1} -8 {w:.1} 0" fill="none" stroke="#bff0ff" stroke-width="4" stroke-linecap="round" stroke-opacity="0.8"/>"##,
            w / 2.0
        ));
    }
}

fn scene_gym(s: &mut String, t: &Traits) {
    sky_gradient(s, Rgb(0x4a, 0x4e, 0x58), Rgb(0x2a, 0x2c, 0x34));
    // Tall windows, a mirror wall and a rack of dumbbells.
    for x in [40.0_f32, 220.0, 400.0] {
        s.push_str(&format!(
            r##"<rect x="{x:.1}" y="60" width="160" height="300" fill="#8fb0c8" fill-opacity="0.55"/>"##
        ));
    }
    s.push_str(r##"<rect x="0" y="560" width="600" height="240" fill="#3a3a40"/><rect x="0" y="556" width="600" height="8" fill="#e0503a"/>"##);
    s.push_str(r##"<rect x="20" y="470" width="560" height="12" fill="#1a1a1e"/>"##);
    let mut seed = t.seed.wrapping_add(53);
    let mut x = 40.0_f32;
    while x < 560.0 {
        let r = 14.0 + frac(&mut seed) * 8.0;
        s.push_str(&format!(
            r##"<rect x="{:.1}" y="452" width="{:.1}" height="8" fill="#9a9aa4"/><circle cx="{x:.1}" cy="456" r="{r:.1}" fill="#15151a"/><circle cx="{:.1}" cy="456" r="{r:.1}" fill="#15151a"/>"##,
            x,
            40.0,
            x + 40.0
        ));
        x += 90.0;
    }
}

fn scene_office(s: &mut String, t: &Traits) {
    sky_gradient(s, Rgb(0xe8, 0xec, 0xf0), Rgb(0xc8, 0xd0, 0xd8));
    // A window wall onto towers, a desk with a laptop and a plant.
    s.push_str(r##"<rect x="30" y="60" width="540" height="380" fill="#a8c8e4"/>"##);
    let mut seed = t.seed.wrapping_add(67);
    let mut x = 30.0_f32;
    while x < 570.0 {
        let w = 50.0 + frac(&mut seed) * 50.0;
        let h = 120.0 + frac(&mut seed) * 220.0;
        s.push_str(&format!(
            r##"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="#7f9cba"/>"##,
            440.0 - h,
            w.min(570.0 - x)
        ));
        x += w + 8.0;
    }
    s.push_str(r##"<path d="M30 60 H570 V440 H30 Z M210 60 V440 M390 60 V440" fill="none" stroke="#5a6470" stroke-width="10"/>"##);
    s.push_str(r##"<rect x="0" y="560" width="600" height="40" fill="#7a5a42"/><rect x="0" y="600" width="600" height="200" fill="#5a5f68"/>"##);
    s.push_str(r##"<path d="M430 560 L530 560 L520 500 L440 500 Z" fill="#2a2c34"/><rect x="60" y="500" width="40" height="60" rx="6" fill="#d9826b"/><path d="M80 500 C60 460 58 440 72 430 C80 450 80 470 80 500 C84 470 94 450 108 440 C110 462 96 482 80 500" fill="#4f7a5e"/>"##);
}

fn scene_library(s: &mut String, t: &Traits) {
    sky_gradient(s, Rgb(0x6a, 0x4a, 0x3a), Rgb(0x3a, 0x28, 0x20));
    // Shelves of books from wall to wall, their colours scattered by the seed.
    let colours = ["#8e2c48", "#3c5a8c", "#4f7a5e", "#c9a264", "#6b4c9a", "#d98c6a", "#2b2d3a", "#e7d9b8"];
    let mut seed = t.seed.wrapping_add(79);
    for row in 0..5 {
        let y = 40.0 + f32::from(row as u8) * 150.0;
        s.push_str(&format!(r##"<rect x="0" y="{:.1}" width="600" height="14" fill="#2a1a12"/>"##, y + 120.0));
        let mut x = 10.0_f32;
        while x < 590.0 {
            let w = 14.0 + frac(&mut seed) * 16.0;
            let h = 80.0 + frac(&mut seed) * 36.0;
            let colour = colours[(rng(&mut seed) % 8) as usize];
            s.push_str(&format!(
                r##"<rect x="{x:.1}" y="{:.1}" width="{w:.1}" height="{h:.1}" fill="{colour}"/>"##,
                y + 120.0 - h
            ));
            x += w + 2.0;
        }
    }
    // A reading lamp's pool of light.
    s.push_str(r##"<circle cx="460" cy="300" r="220" fill="#ffd98a" fill-opacity="0.18"/>"##);
}
