//! The pose presets: how much of the body shows, where the figure stands on the stage,
//! and the props a pose brings (a seat, a bed and its blanket, the arm holding the phone).

use super::body::{Frame, Legs, Sleeves, Wear};
use super::palette::{Rgb, Traits};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pose {
    Portrait,
    Standing,
    Sitting,
    Selfie,
    Walking,
    OverShoulder,
    /// Under a blanket to the chest: suggestive by setting only.
    LyingInBed,
    /// The catalogue's second picture: the portrait, smaller and off-centre in a scene.
    Secondary,
}

impl Pose {
    /// The preset keys (`Secondary` has none: only the catalogue uses it).
    pub const ALL: [(&'static str, Pose); 7] = [
        ("portrait", Pose::Portrait),
        ("standing", Pose::Standing),
        ("sitting", Pose::Sitting),
        ("selfie", Pose::Selfie),
        ("walking", Pose::Walking),
        ("over-shoulder", Pose::OverShoulder),
        ("lying-in-bed", Pose::LyingInBed),
    ];

    pub fn from_key(key: &str) -> Option<Pose> {
        Self::ALL.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }
}

/// Where and how the figure is drawn.
pub(super) struct Placement {
    pub frame: Frame,
    /// The figure group's transform onto the 600x800 stage.
    pub transform: String,
    /// The head's tilt in degrees around the neck.
    pub tilt: f32,
    /// Seen from behind (over the shoulder): plain backs, hair over the shoulders.
    pub back_view: bool,
}

/// `dx` moves the figure sideways and `dtilt` tilts the head a little: the seed's
/// small variations between pictures.
pub(super) fn placement(pose: Pose, dx: f32, dtilt: f32) -> Placement {
    let full = |scale: f32, top: f32, legs: Legs, dx: f32| Placement {
        frame: Frame::Full(legs),
        transform: format!("translate({:.1} {top:.1}) scale({scale})", 300.0 - 300.0 * scale + dx),
        tilt: dtilt,
        back_view: false,
    };
    match pose {
        Pose::Portrait => {
            Placement { frame: Frame::Bust, transform: format!("translate({dx:.1} 0)"), tilt: dtilt, back_view: false }
        }
        Pose::Secondary => Placement {
            frame: Frame::Bust,
            transform: "translate(70 120) scale(0.88)".into(),
            tilt: -4.0,
            back_view: false,
        },
        Pose::Selfie => Placement {
            frame: Frame::Bust,
            transform: format!("translate({:.1} 40) rotate(-6 300 600)", dx - 10.0),
            tilt: 4.0 + dtilt,
            back_view: false,
        },
        Pose::OverShoulder => Placement {
            frame: Frame::Bust,
            transform: format!("translate({:.1} 40) rotate(7 300 760)", dx + 30.0),
            tilt: -10.0 + dtilt,
            back_view: true,
        },
        Pose::Standing => full(0.42, 12.0, Legs::Standing, dx),
        Pose::Walking => full(0.42, 12.0, Legs::Walking, dx * 3.0),
        Pose::Sitting => full(0.47, 24.0, Legs::Sitting, dx),
        Pose::LyingInBed => Placement {
            frame: Frame::Bust,
            // The head on the pillow at the left, the body toward the right.
            transform: format!("translate({:.1} 470) rotate(-80) scale(0.7) translate(-300 -340)", 170.0 + dx),
            tilt: dtilt,
            back_view: false,
        },
    }
}

/// Props behind the figure, in stage space (the bed) or in figure space (the seat, drawn
/// inside the figure's group so it scales with it).
pub(super) fn stage_props(s: &mut String, pose: Pose, t: &Traits) {
    if pose == Pose::LyingInBed {
        let linen = Rgb(0xf4, 0xee, 0xea).mix(t.outfit, 0.12);
        s.push_str(&format!(
            r##"<rect x="-10" y="380" width="620" height="440" rx="24" fill="{}"/><rect x="20" y="330" width="300" height="190" rx="80" fill="#ffffff"/><path d="M40 470 C120 500 240 500 300 470" fill="none" stroke="#e2dcd8" stroke-width="6"/>"##,
            linen.hex()
        ));
    }
}

pub(super) fn figure_props(s: &mut String, pose: Pose, seat: Rgb) {
    if pose == Pose::Sitting {
        s.push_str(&format!(
            r#"<rect x="20" y="1110" width="560" height="210" rx="30" fill="{}"/><rect x="20" y="1290" width="560" height="30" rx="12" fill="{}"/><rect x="60" y="1320" width="30" height="330" fill="{}"/><rect x="510" y="1320" width="30" height="330" fill="{}"/>"#,
            seat.hex(),
            seat.shade(0.8).hex(),
            seat.shade(0.6).hex(),
            seat.shade(0.6).hex()
        ));
    }
}

/// The blanket over a figure lying in bed, in stage space.
pub(super) fn blanket(s: &mut String, pose: Pose, t: &Traits) {
    if pose != Pose::LyingInBed {
        return;
    }
    let blanket = t.outfit.mix(Rgb(0xf0, 0xe6, 0xe2), 0.55);
    s.push_str(&format!(
        r#"<path d="M330 820 L330 420 C340 330 380 260 450 250 C520 244 570 262 620 250 L620 820 Z" fill="{}"/><path d="M330 420 C340 330 380 260 450 250 C520 244 570 262 620 250" fill="none" stroke="{}" stroke-width="14" stroke-linecap="round"/><path d="M380 500 C430 560 480 600 560 620 M420 380 C470 430 520 470 600 480" fill="none" stroke="{}" stroke-width="5" stroke-opacity="0.5"/>"#,
        blanket.hex(),
        blanket.shade(1.15).hex(),
        blanket.shade(0.8).hex()
    ));
}

/// The near arm of a selfie, reaching out of the frame toward the phone (figure space).
pub(super) fn selfie_arm(s: &mut String, pose: Pose, t: &Traits, wear: &Wear) {
    if pose != Pose::Selfie {
        return;
    }
    let colour = if wear.sleeves == Sleeves::Long { wear.top } else { t.skin };
    s.push_str(&format!(
        r#"<path d="M480 700 L660 900" stroke="{}" stroke-width="96" stroke-linecap="round"/>"#,
        colour.hex()
    ));
}
