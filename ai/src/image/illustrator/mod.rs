//! The embedded illustrator: draws the character and the chosen scene, outfit, pose and
//! style as an SVG and renders it to PNG with resvg, in-process, with no model to install.
//! It is the default image backend and also draws the seeded catalogue's portraits.
//!
//! Everything is a pure function of the request: the same request gives the same bytes.
//! The character's look (skin, hair, eyes, accessory, beard) comes from the
//! [`Subject`]; the image seed mixed with the prompt moves details (outfit accent colour,
//! sideways placement and head tilt, the scatter of stars, trees and books, the filters'
//! noise), and the image's place in its job ([`ImageRequest::variant`]) picks the
//! picture's variation: mirrored or not, the scene's light (daylight, golden hour, blue
//! hour, rose, dusk) and, when no pose was chosen, the pose. The first image (and a
//! portrait) is plain daylight, unmirrored, a portrait; the others each take the next
//! light and pose and every other one is mirrored, so the four images of a job differ at a
//! glance (issue 30) and still show the same person.
//! Presets not chosen are read from the prompt's words when they name one ("on the
//! beach", "in anime style"); unknown preset keys are ignored.
//!
//! Explicit content is never drawn: the `lingerie` outfit is a satin slip (or a robe) and
//! `lying-in-bed` keeps a blanket to the chest, and both need `nsfw` on the request.

mod body;
mod head;
mod outfits;
mod palette;
mod poses;
mod scenes;
mod styles;

use amora_domain::appearance::{Look, Shot, fnv1a};
use amora_domain::gender::Gender;
use async_trait::async_trait;

use super::{GeneratedImage, ImageModel, ImageModelInfo, ImageRequest, ProgressSender};
use crate::AiError;
use outfits::Outfit;
use palette::Traits;
use poses::Pose;
use scenes::Scene;
use styles::Style;

/// The stage every picture is drawn on; other sizes crop it (centred, `slice`).
const STAGE_W: u32 = 600;
const STAGE_H: u32 = 800;
/// Used when a request says 0.
pub const DEFAULT_WIDTH: u32 = 768;
pub const DEFAULT_HEIGHT: u32 = 1024;
/// The largest side drawn; larger requests are drawn at this size.
pub const MAX_SIDE: u32 = 1536;
const MIN_SIDE: u32 = 64;

pub const SVG_CONTENT_TYPE: &str = "image/svg+xml";
pub const PNG_CONTENT_TYPE: &str = "image/png";

/// The preset keys the illustrator draws, for callers that list or check them.
pub fn scene_keys() -> impl Iterator<Item = &'static str> {
    Scene::ALL.iter().map(|(k, _)| *k)
}
pub fn outfit_keys() -> impl Iterator<Item = &'static str> {
    Outfit::ALL.iter().map(|(k, _)| *k)
}
pub fn pose_keys() -> impl Iterator<Item = &'static str> {
    Pose::ALL.iter().map(|(k, _)| *k)
}
pub fn style_keys() -> impl Iterator<Item = &'static str> {
    Style::ALL.iter().map(|(k, _)| *k)
}

/// Everything one picture is drawn from.
#[derive(Debug, Clone, PartialEq)]
struct Picture {
    /// The person drawn, if any.
    person: Option<(Look, Gender)>,
    /// `None`: the look's soft backdrop.
    scene: Option<Scene>,
    outfit: Outfit,
    pose: Pose,
    style: Style,
    /// Shifts the outfit colour.
    accent: usize,
    /// Sideways move and head tilt.
    dx: f32,
    dtilt: f32,
    /// Seeds the scatter and the filters' noise.
    scatter: u32,
    /// Drawn mirrored (left and right swapped).
    mirrored: bool,
    /// A tint over the scene: the time of day's light.
    light: Option<Light>,
}

/// The light a picture's scene is drawn in: a colour laid thinly over it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Light {
    colour: &'static str,
    opacity: f32,
}

/// Daylight (none), golden hour, blue hour, rose, dusk: image `v` of a job takes entry
/// `v` (modulo the count).
const LIGHTS: [Option<Light>; 5] = [
    None,
    Some(Light { colour: "#ffb347", opacity: 0.4 }),
    Some(Light { colour: "#3f7cff", opacity: 0.4 }),
    Some(Light { colour: "#ff5fa2", opacity: 0.36 }),
    Some(Light { colour: "#5b2a86", opacity: 0.36 }),
];

/// The poses image `v` of a job takes when none was chosen (never a suggestive one); the
/// first is the portrait, as before variants.
const OPEN_POSES: [Pose; 6] =
    [Pose::Portrait, Pose::Standing, Pose::Sitting, Pose::Walking, Pose::OverShoulder, Pose::Selfie];

/// Reads the first word of `words` found in `text` (lower case, whole-word-ish).
fn named<T: Copy>(text: &str, words: &[(&str, T)]) -> Option<T> {
    words.iter().find(|(w, _)| text.contains(w)).map(|(_, v)| *v)
}

const SCENE_WORDS: [(&str, Scene); 22] = [
    ("bedroom", Scene::Bedroom),
    ("in bed", Scene::Bedroom),
    ("beach", Scene::Beach),
    ("ocean", Scene::Beach),
    ("seaside", Scene::Beach),
    ("café", Scene::Cafe),
    ("cafe", Scene::Cafe),
    ("coffee", Scene::Cafe),
    ("city", Scene::CityNight),
    ("street", Scene::CityNight),
    ("park", Scene::Park),
    ("garden", Scene::Park),
    ("pool", Scene::Pool),
    ("gym", Scene::Gym),
    ("workout", Scene::Gym),
    ("office", Scene::Office),
    ("desk", Scene::Office),
    ("mountain", Scene::Mountains),
    ("hiking", Scene::Mountains),
    ("library", Scene::Library),
    ("bookshop", Scene::Library),
    ("books", Scene::Library),
];
const OUTFIT_WORDS: [(&str, Outfit); 12] = [
    ("lingerie", Outfit::Lingerie),
    // Before "suit", which it contains.
    ("swimsuit", Outfit::Swimsuit),
    ("swimwear", Outfit::Swimsuit),
    ("evening gown", Outfit::EveningGown),
    ("gown", Outfit::EveningGown),
    ("tuxedo", Outfit::EveningGown),
    ("sundress", Outfit::SummerDress),
    ("summer dress", Outfit::SummerDress),
    ("business", Outfit::Business),
    ("suit", Outfit::Business),
    ("sportswear", Outfit::Sportswear),
    ("athletic", Outfit::Sportswear),
];
const POSE_WORDS: [(&str, Pose); 8] = [
    ("lying in bed", Pose::LyingInBed),
    ("selfie", Pose::Selfie),
    ("over the shoulder", Pose::OverShoulder),
    ("over-shoulder", Pose::OverShoulder),
    ("walking", Pose::Walking),
    ("sitting", Pose::Sitting),
    ("seated", Pose::Sitting),
    ("standing", Pose::Standing),
];
const STYLE_WORDS: [(&str, Style); 10] = [
    ("anime", Style::Anime),
    ("manga", Style::Anime),
    ("watercolor", Style::Watercolor),
    ("watercolour", Style::Watercolor),
    ("oil painting", Style::OilPainting),
    ("oil-painting", Style::OilPainting),
    ("cinematic", Style::Cinematic),
    ("film still", Style::Cinematic),
    ("photograph", Style::Photo),
    ("photo", Style::Photo),
];
/// Words that ask for a person when the request names no character.
const PERSON_WORDS: [(&str, Gender); 10] = [
    ("woman", Gender::Girls),
    ("girl", Gender::Girls),
    ("lady", Gender::Girls),
    (" she ", Gender::Girls),
    (" her ", Gender::Girls),
    (" man ", Gender::Guys),
    (" guy", Gender::Guys),
    (" boy", Gender::Guys),
    (" he ", Gender::Guys),
    (" him ", Gender::Guys),
];

/// SplitMix64's finaliser: every bit of the seed moves every detail, so seeds 7 and 8
/// differ as much as 7 and 7000.
fn spread(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Picture {
    fn of_request(request: &ImageRequest) -> Picture {
        let text = format!(" {} ", request.prompt.to_lowercase());
        let mix = spread(request.seed ^ fnv1a(request.prompt.as_bytes()));
        let preset = |key: &Option<String>| key.as_deref().map(str::trim).filter(|k| !k.is_empty()).map(str::to_owned);
        let mut outfit = preset(&request.outfit)
            .and_then(|k| Outfit::from_key(&k))
            .or_else(|| named(&text, &OUTFIT_WORDS))
            .unwrap_or(Outfit::Casual);
        let step = u64::from(request.variant);
        let mut pose = preset(&request.pose)
            .and_then(|k| Pose::from_key(&k))
            .or_else(|| named(&text, &POSE_WORDS))
            .unwrap_or(OPEN_POSES[(step % OPEN_POSES.len() as u64) as usize]);
        // The two suggestive presets are drawn only when the request allows them.
        if !request.nsfw {
            if outfit == Outfit::Lingerie {
                outfit = Outfit::Casual;
            }
            if pose == Pose::LyingInBed {
                pose = Pose::Portrait;
            }
        }
        let scene = preset(&request.scene).and_then(|k| Scene::from_key(&k)).or_else(|| named(&text, &SCENE_WORDS));
        let style = preset(&request.style)
            .and_then(|k| Style::from_key(&k))
            .or_else(|| named(&text, &STYLE_WORDS))
            .unwrap_or(Style::Illustration);
        let person = match &request.subject {
            Some(subject) => {
                let gender = if subject.gender % 2 == 1 { Gender::Guys } else { Gender::Girls };
                Some((Look::from_array(subject.look), gender))
            }
            // No character: a person of the seed's look when the words ask for one.
            None => named(&text, &PERSON_WORDS).map(|gender| (Look::from_seed(request.seed), gender)),
        };
        Picture {
            person,
            scene,
            outfit,
            pose,
            style,
            accent: (mix % 7) as usize,
            dx: ((mix >> 8) % 25) as f32 - 12.0,
            dtilt: (((mix >> 16) % 5) as f32 - 2.0) * 0.8,
            scatter: (mix >> 24) as u32,
            mirrored: step % 2 == 1,
            light: LIGHTS[(step % LIGHTS.len() as u64) as usize],
        }
    }

    /// The catalogue's pictures of a seeded character: always the same for a look.
    fn of_catalogue(look: &Look, gender: Gender, shot: Shot) -> Picture {
        let (scene, pose, accent) = match shot {
            Shot::Portrait => (None, Pose::Portrait, 0),
            Shot::Secondary => (Some(Scene::of_backdrop(look.wrapped().background)), Pose::Secondary, 4),
        };
        Picture {
            person: Some((*look, gender)),
            scene,
            outfit: Outfit::Casual,
            pose,
            style: Style::Illustration,
            accent,
            dx: 0.0,
            dtilt: 0.0,
            scatter: Traits::look_seed(look, gender),
            mirrored: false,
            light: None,
        }
    }

    fn svg(&self, width: u32, height: u32) -> String {
        // Without a person the look only tints the scene: any fixed look will do.
        let (look, gender) = self.person.unwrap_or((Look::from_seed(u64::from(self.scatter)), Gender::Girls));
        let mut t = Traits::from_look(&look, gender, self.accent, self.scatter);
        t.ink = self.style.inked();
        let mut s = String::with_capacity(40_000);
        s.push_str(&format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {STAGE_W} {STAGE_H}" preserveAspectRatio="xMidYMid slice">"#
        ));
        head::defs(&mut s, &t);
        s.push_str(&format!("<defs>{}</defs>", styles::defs(self.style, self.scatter)));
        s.push_str(&format!("<g{}>", styles::whole(self.style)));
        if self.mirrored {
            s.push_str(&format!(r#"<g transform="translate({STAGE_W} 0) scale(-1 1)">"#));
        }
        s.push_str(&format!("<g{}>", styles::background(self.style)));
        match self.scene {
            Some(scene) => scenes::scene(&mut s, scene, &t),
            None => scenes::backdrop(&mut s, &t),
        }
        // The light falls on the scene; the person keeps their own colours.
        if let Some(light) = self.light {
            s.push_str(&format!(
                r#"<rect width="{STAGE_W}" height="{STAGE_H}" fill="{}" opacity="{}"/>"#,
                light.colour, light.opacity
            ));
        }
        s.push_str("</g>");
        if self.person.is_some() {
            self.figure(&mut s, &t);
        }
        if self.mirrored {
            s.push_str("</g>");
        }
        scenes::vignette(&mut s);
        s.push_str("</g>");
        styles::overlay(&mut s, self.style, self.scatter);
        s.push_str("</svg>");
        s
    }

    fn figure(&self, s: &mut String, t: &Traits) {
        let place = poses::placement(self.pose, self.dx, self.dtilt);
        let wear = outfits::wear(self.outfit, t, self.accent);
        poses::stage_props(s, self.pose, t);
        s.push_str(&format!(r#"<g transform="{}">"#, place.transform));
        poses::figure_props(s, self.pose, self.scene.map_or(palette::Rgb(0x8a, 0x5f, 0x3e), Scene::seat_colour));
        // The head turns around the neck's base, where the chin's shadow hides the joint.
        let tilt = format!("rotate({:.1} 300 520)", place.tilt);
        if !place.back_view {
            s.push_str(&format!(r#"<g transform="{tilt}">"#));
            head::back_hair(s, t);
            s.push_str("</g>");
        }
        body::body(s, t, &wear, place.frame, place.back_view);
        if place.back_view {
            // Seen from behind, long hair falls over the shoulders.
            s.push_str(&format!(r#"<g transform="{tilt}">"#));
            head::back_hair(s, t);
            s.push_str("</g>");
        }
        poses::selfie_arm(s, self.pose, t, &wear);
        s.push_str(&format!(r#"<g transform="{tilt}">"#));
        head::ears(s, t);
        head::face(s, t);
        head::blush(s);
        head::beard(s, t);
        head::nose(s, t);
        head::eyes(s, t);
        head::brows(s, t);
        head::mouth(s, t);
        head::front_hair(s, t);
        head::accessory(s, t);
        s.push_str("</g>");
        s.push_str("</g>");
        poses::blanket(s, self.pose, t);
    }
}

/// The size a request is drawn at: its own, 0 meaning the default, each side within
/// 64..=1536.
pub fn output_size(width: u32, height: u32) -> (u32, u32) {
    let side = |v: u32, default: u32| if v == 0 { default } else { v.clamp(MIN_SIDE, MAX_SIDE) };
    (side(width, DEFAULT_WIDTH), side(height, DEFAULT_HEIGHT))
}

/// The SVG the illustrator draws for a request (at its output size).
pub fn compose_svg(request: &ImageRequest) -> String {
    let (width, height) = output_size(request.width, request.height);
    Picture::of_request(request).svg(width, height)
}

/// A seeded character's catalogue picture as SVG, 600x800 (small and crisp at any size).
pub fn catalogue_svg(look: &Look, gender: Gender, shot: Shot) -> String {
    Picture::of_catalogue(look, gender, shot).svg(STAGE_W, STAGE_H)
}

/// Renders an SVG made here to PNG at the size its root element states.
pub fn render_png(svg: &str) -> Result<Vec<u8>, AiError> {
    let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default())
        .map_err(|e| AiError::Internal(format!("the illustrator drew an invalid SVG: {e}")))?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| AiError::Internal(format!("cannot draw at {}x{}", size.width(), size.height())))?;
    resvg::render(&tree, resvg::tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| AiError::Internal(format!("cannot encode the PNG: {e}")))
}

/// Draws a request to PNG (what [`Illustrator::generate`] does, without the thread hop).
pub fn draw_png(request: &ImageRequest) -> Result<GeneratedImage, AiError> {
    let (width, height) = output_size(request.width, request.height);
    let bytes = render_png(&compose_svg(request))?;
    Ok(GeneratedImage { content_type: PNG_CONTENT_TYPE.into(), bytes, width, height })
}

/// The embedded image backend.
#[derive(Debug, Clone, Default)]
pub struct Illustrator;

#[async_trait]
impl ImageModel for Illustrator {
    async fn generate(&self, request: ImageRequest, progress: ProgressSender) -> Result<GeneratedImage, AiError> {
        // Rendering takes a CPU for a fraction of a second: off the async workers.
        let image = tokio::task::spawn_blocking(move || draw_png(&request))
            .await
            .map_err(|e| AiError::Internal(format!("the illustrator stopped: {e}")))??;
        let _ = progress.send(1.0);
        Ok(image)
    }

    fn info(&self) -> ImageModelInfo {
        ImageModelInfo { backend: "illustrator", illustration: true }
    }
}

#[cfg(test)]
mod tests;
