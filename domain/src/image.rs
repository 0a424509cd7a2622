//! Generated images (docs/api.md "Images"): the presets a user picks from, the rules of a
//! generate request, and how the prompt sent to an image model is put together.
//!
//! The prompt is assembled in a fixed order: the character's appearance first (so every
//! image of a character shows the same person), then the presets' words, then the user's
//! own words. The negative prompt always excludes anything childlike, deformities and text,
//! whatever the user asked. Both the user's words and the assembled prompt pass the image
//! rule (`moderation::check_with(Policy::Image, ..)`: on an adult platform an image is always
//! a sexual context, so any minor is refused on its own) before anything is paid or drawn.
//! The node's moderation service (`actors::moderation`) asks the same rule first and
//! records what it refuses.

use crate::Invalid;
use crate::moderation::{Policy, Refusal, check_with};

/// The longest prompt a user may write, in characters.
pub const MAX_PROMPT_CHARS: usize = 500;
/// How many images one job may make.
pub const COUNTS: [u8; 3] = [1, 2, 4];

/// What is always excluded, on every backend that reads a negative prompt.
pub const NEGATIVE_PROMPT: &str = "child, children, kid, minor, underage, teen, teenager, childlike, young-looking, \
     loli, schoolgirl, school uniform, baby face, deformed, disfigured, extra limbs, extra fingers, mutated hands, \
     bad anatomy, blurry, low quality, text, watermark, signature, logo, caption";

/// Words that keep every image of an adult: put into every assembled prompt.
const ADULT_WORDS: &str = "adult, 25 years old";

/// The four groups of presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PresetKind {
    Scene,
    Outfit,
    Pose,
    Style,
}

impl PresetKind {
    pub const ALL: [PresetKind; 4] = [PresetKind::Scene, PresetKind::Outfit, PresetKind::Pose, PresetKind::Style];

    /// The payload field that names a preset of this kind.
    pub fn field(self) -> &'static str {
        match self {
            PresetKind::Scene => "scene",
            PresetKind::Outfit => "outfit",
            PresetKind::Pose => "pose",
            PresetKind::Style => "style",
        }
    }

    pub fn presets(self) -> &'static [Preset] {
        match self {
            PresetKind::Scene => SCENES,
            PresetKind::Outfit => OUTFITS,
            PresetKind::Pose => POSES,
            PresetKind::Style => STYLES,
        }
    }

    /// The preset of this kind called `key`.
    pub fn find(self, key: &str) -> Option<&'static Preset> {
        self.presets().iter().find(|preset| preset.key == key)
    }
}

/// One choice of a kind: a key the client labels, the words it adds to the prompt, and
/// whether it is explicit (offered only when the user's NSFW preference allows it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    pub key: &'static str,
    pub words: &'static str,
    pub nsfw: bool,
}

const fn preset(key: &'static str, words: &'static str) -> Preset {
    Preset { key, words, nsfw: false }
}

const fn explicit(key: &'static str, words: &'static str) -> Preset {
    Preset { key, words, nsfw: true }
}

pub const SCENES: &[Preset] = &[
    preset("bedroom", "in a cosy bedroom, soft warm lamp light"),
    preset("beach", "on a sunny beach, turquoise sea and white sand"),
    preset("cafe", "in a cosy café, wooden tables and warm light"),
    preset("city-night", "in a city street at night, neon lights and reflections"),
    preset("park", "in a green park, trees and dappled sunlight"),
    preset("pool", "by a swimming pool, blue water and summer sun"),
    preset("gym", "in a modern gym, bright light"),
    preset("office", "in a modern office, large windows"),
    preset("mountains", "in the mountains, peaks and clear sky"),
    preset("library", "in an old library, tall bookshelves"),
];

pub const OUTFITS: &[Preset] = &[
    preset("casual", "wearing casual clothes, jeans and a t-shirt"),
    preset("summer-dress", "wearing a light summer dress"),
    preset("evening-gown", "wearing an elegant evening gown"),
    preset("business", "wearing smart business attire"),
    preset("sportswear", "wearing sportswear"),
    preset("swimsuit", "wearing a swimsuit"),
    explicit("lingerie", "wearing lace lingerie, sexy"),
];

pub const POSES: &[Preset] = &[
    preset("portrait", "head and shoulders portrait, looking at the viewer"),
    preset("standing", "full body, standing"),
    preset("sitting", "sitting, relaxed"),
    preset("selfie", "taking a selfie, arm outstretched"),
    preset("walking", "walking towards the viewer"),
    preset("over-shoulder", "looking back over the shoulder"),
    explicit("lying-in-bed", "lying in bed, sexy, seductive look"),
];

pub const STYLES: &[Preset] = &[
    preset("illustration", "digital illustration, clean lines"),
    preset("anime", "anime style"),
    preset("watercolor", "watercolor painting"),
    preset("oil-painting", "oil painting, visible brush strokes"),
    preset("cinematic", "cinematic lighting, film still, shallow depth of field"),
    preset("photo", "photorealistic, natural light, 50mm photo"),
];

/// A generate request as it arrived, before any rule was applied.
#[derive(Debug, Clone, Default)]
pub struct RawImageRequest {
    pub scene: Option<String>,
    pub outfit: Option<String>,
    pub pose: Option<String>,
    pub style: Option<String>,
    pub prompt: Option<String>,
    pub count: i64,
}

/// A valid request: known presets the user may use, a checked prompt, an allowed count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageChoice {
    pub scene: Option<&'static Preset>,
    pub outfit: Option<&'static Preset>,
    pub pose: Option<&'static Preset>,
    pub style: Option<&'static Preset>,
    /// The user's own words, trimmed; `None` when there were none.
    pub prompt: Option<String>,
    pub count: u8,
}

/// Why a request was refused: bad data (10001) or content the guidelines forbid (10070).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageRequestError {
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error("{}", .0.message())]
    Refused(Refusal),
}

impl ImageChoice {
    /// Checks a request: `count` 1, 2 or 4; a prompt of at most 500 characters without
    /// control characters (line breaks and tabs aside); known presets, explicit ones only
    /// when `nsfw_allowed`; at least one preset or a prompt; the prompt within the
    /// guidelines.
    pub fn parse(raw: &RawImageRequest, nsfw_allowed: bool) -> Result<Self, ImageRequestError> {
        let count = u8::try_from(raw.count)
            .ok()
            .filter(|count| COUNTS.contains(count))
            .ok_or_else(|| Invalid::new("count", "must be 1, 2 or 4"))?;
        let pick = |kind: PresetKind, key: &Option<String>| -> Result<Option<&'static Preset>, Invalid> {
            let Some(key) = key.as_deref().map(str::trim).filter(|key| !key.is_empty()) else { return Ok(None) };
            match kind.find(key) {
                Some(preset) if !preset.nsfw || nsfw_allowed => Ok(Some(preset)),
                _ => Err(Invalid::new(kind.field(), format!("no such {} {key:?}", kind.field()))),
            }
        };
        let prompt = match raw.prompt.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
            None => None,
            Some(text) if text.chars().count() > MAX_PROMPT_CHARS => {
                return Err(Invalid::new("prompt", format!("at most {MAX_PROMPT_CHARS} characters")).into());
            }
            Some(text) if text.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r')) => {
                return Err(Invalid::new("prompt", "control characters are not allowed").into());
            }
            Some(text) => Some(text.to_owned()),
        };
        let choice = ImageChoice {
            scene: pick(PresetKind::Scene, &raw.scene)?,
            outfit: pick(PresetKind::Outfit, &raw.outfit)?,
            pose: pick(PresetKind::Pose, &raw.pose)?,
            style: pick(PresetKind::Style, &raw.style)?,
            prompt,
            count,
        };
        if choice.presets().next().is_none() && choice.prompt.is_none() {
            return Err(
                Invalid::new("prompt", "choose at least a scene, outfit, pose or style, or write a prompt").into()
            );
        }
        if let Some(refusal) = choice.prompt.as_deref().and_then(|prompt| check_with(Policy::Image, prompt)) {
            return Err(ImageRequestError::Refused(refusal));
        }
        Ok(choice)
    }

    /// The presets chosen, in prompt order (scene, outfit, pose, style).
    pub fn presets(&self) -> impl Iterator<Item = &'static Preset> + '_ {
        [self.scene, self.outfit, self.pose, self.style].into_iter().flatten()
    }

    /// Whether a chosen preset is explicit: the image is then NSFW (hidden from the public
    /// feed's restricted viewers).
    pub fn is_nsfw(&self) -> bool {
        self.presets().any(|preset| preset.nsfw)
    }

    /// The positive prompt: the appearance, the presets' words, then the user's words; and
    /// checked against the guidelines as a whole, since words that pass one by one may not
    /// pass together.
    pub fn assemble(&self, appearance: Option<&str>) -> Result<String, ImageRequestError> {
        let prompt = self.prompt_text(appearance);
        match check_with(Policy::Image, &prompt) {
            Some(refusal) => Err(ImageRequestError::Refused(refusal)),
            None => Ok(prompt),
        }
    }

    /// The positive prompt, unchecked: for a caller that checks it itself (the node's
    /// moderation service, which records a refusal).
    pub fn prompt_text(&self, appearance: Option<&str>) -> String {
        let mut parts: Vec<&str> = Vec::new();
        if let Some(appearance) = appearance.map(str::trim).filter(|a| !a.is_empty()) {
            parts.push(appearance);
        }
        parts.push(ADULT_WORDS);
        parts.extend(self.presets().map(|preset| preset.words));
        if let Some(prompt) = self.prompt.as_deref() {
            parts.push(prompt);
        }
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(count: i64) -> RawImageRequest {
        RawImageRequest { count, ..RawImageRequest::default() }
    }

    #[test]
    fn the_presets_are_the_contracts_keys() {
        let keys = |kind: PresetKind| kind.presets().iter().map(|p| p.key).collect::<Vec<_>>();
        assert_eq!(
            keys(PresetKind::Scene),
            ["bedroom", "beach", "cafe", "city-night", "park", "pool", "gym", "office", "mountains", "library"]
        );
        assert_eq!(
            keys(PresetKind::Outfit),
            ["casual", "summer-dress", "evening-gown", "business", "sportswear", "swimsuit", "lingerie"]
        );
        assert_eq!(
            keys(PresetKind::Pose),
            ["portrait", "standing", "sitting", "selfie", "walking", "over-shoulder", "lying-in-bed"]
        );
        assert_eq!(
            keys(PresetKind::Style),
            ["illustration", "anime", "watercolor", "oil-painting", "cinematic", "photo"]
        );
        let explicit: Vec<_> =
            PresetKind::ALL.iter().flat_map(|k| k.presets()).filter(|p| p.nsfw).map(|p| p.key).collect();
        assert_eq!(explicit, ["lingerie", "lying-in-bed"]);
    }

    #[test]
    fn count_must_be_one_two_or_four() {
        for count in [0, 3, 5, -1, 256 + 1] {
            let request = RawImageRequest { scene: Some("beach".into()), ..raw(count) };
            assert!(matches!(ImageChoice::parse(&request, false), Err(ImageRequestError::Invalid(_))), "{count}");
        }
        for count in [1, 2, 4] {
            let request = RawImageRequest { scene: Some("beach".into()), ..raw(count) };
            assert_eq!(ImageChoice::parse(&request, false).map(|c| c.count), Ok(count as u8));
        }
    }

    #[test]
    fn a_request_needs_a_preset_or_a_prompt() {
        assert!(ImageChoice::parse(&raw(1), true).is_err());
        let blank = RawImageRequest { prompt: Some("   ".into()), ..raw(1) };
        assert!(ImageChoice::parse(&blank, true).is_err());
        let prompt = RawImageRequest { prompt: Some(" red umbrella ".into()), ..raw(1) };
        assert_eq!(ImageChoice::parse(&prompt, false).map(|c| c.prompt), Ok(Some("red umbrella".into())));
    }

    #[test]
    fn a_prompt_is_at_most_500_characters() {
        let long = RawImageRequest { prompt: Some("é".repeat(501)), ..raw(1) };
        assert!(matches!(ImageChoice::parse(&long, true), Err(ImageRequestError::Invalid(_))));
        let fits = RawImageRequest { prompt: Some("é".repeat(500)), ..raw(1) };
        assert!(ImageChoice::parse(&fits, true).is_ok());
    }

    #[test]
    fn unknown_and_hidden_presets_are_refused() {
        let unknown = RawImageRequest { scene: Some("moon".into()), ..raw(1) };
        assert!(matches!(ImageChoice::parse(&unknown, true), Err(ImageRequestError::Invalid(e)) if e.field == "scene"));
        let lingerie = RawImageRequest { outfit: Some("lingerie".into()), ..raw(1) };
        assert!(
            matches!(ImageChoice::parse(&lingerie, false), Err(ImageRequestError::Invalid(e)) if e.field == "outfit")
        );
        let allowed = ImageChoice::parse(&lingerie, true).unwrap_or_else(|e| panic!("{e}"));
        assert!(allowed.is_nsfw());
    }

    #[test]
    fn the_prompt_is_moderated_on_its_own_and_assembled() {
        let refused = RawImageRequest { prompt: Some("naked schoolgirl, 15 years old".into()), ..raw(1) };
        assert!(matches!(ImageChoice::parse(&refused, true), Err(ImageRequestError::Refused(Refusal::Minors))));
        // The image rule: any minor is refused on its own, without sexual words.
        let minor = RawImageRequest { prompt: Some("she is a child".into()), ..raw(1) };
        assert!(matches!(ImageChoice::parse(&minor, true), Err(ImageRequestError::Refused(Refusal::Minors))));
        // The whole prompt is checked too: a part the user did not write joins their words.
        let request = RawImageRequest { outfit: Some("lingerie".into()), prompt: Some("on a sofa".into()), ..raw(1) };
        let choice = ImageChoice::parse(&request, true).unwrap_or_else(|e| panic!("{e}"));
        let assembled = choice.assemble(Some("a 15 year old girl"));
        assert!(matches!(assembled, Err(ImageRequestError::Refused(_))), "{assembled:?}");
        assert!(choice.assemble(Some("a young woman with fair skin")).is_ok());
    }

    #[test]
    fn the_prompt_puts_the_appearance_first_then_presets_then_the_users_words() {
        let request = RawImageRequest {
            scene: Some("beach".into()),
            style: Some("anime".into()),
            prompt: Some("holding a red umbrella".into()),
            ..raw(2)
        };
        let choice = ImageChoice::parse(&request, false).unwrap_or_else(|e| panic!("{e}"));
        let prompt = choice.assemble(Some("a young woman with green eyes")).unwrap_or_else(|e| panic!("{e}"));
        let at = |needle: &str| prompt.find(needle).unwrap_or_else(|| panic!("{needle} missing in {prompt}"));
        assert_eq!(at("a young woman with green eyes"), 0);
        assert!(at("adult") < at("sunny beach"));
        assert!(at("sunny beach") < at("anime style"));
        assert!(at("anime style") < at("holding a red umbrella"));
        assert!(!choice.is_nsfw());
    }

    #[test]
    fn the_negative_prompt_excludes_minors_deformities_and_text() {
        for word in ["child", "underage", "childlike", "deformed", "text", "watermark"] {
            assert!(NEGATIVE_PROMPT.contains(word), "{word}");
        }
    }
}
