//! The body below the head, in figure space (the head's frame, 600 wide; the shoulders
//! sit at y ≈ 700, the hips at 1160, the ankles at 1790): skin, then what the character
//! wears, then the arms. Tops are drawn as a neckline-to-hem band clipped to the torso's
//! outline, so every neckline fits every body without hand-fitting each pair.

use super::head::{neck_path, neck_shadow, necklace};
use super::palette::{Rgb, Traits};

/// How much of the body a pose shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Frame {
    /// Head and shoulders: nothing below y 830 is drawn.
    Bust,
    /// The whole body, with the legs arranged so.
    Full(Legs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Legs {
    Standing,
    Walking,
    Sitting,
}

/// Where a top's upper edge runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Neckline {
    Crew,
    V,
    Scoop,
    /// Open collar with wings (men's shirt).
    Collar,
    /// A bodice held by thin straps: bare shoulders.
    Straps,
    /// A lower bodice with straps (swimsuit, slip).
    LowStraps,
    /// Straight across the upper arms, shoulders bare (evening gown).
    OffShoulder,
    /// A deep V between lapels (jacket, robe).
    Lapels,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sleeves {
    None,
    Short,
    Long,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Bottom {
    /// Trousers, jeans or leggings down to the ankle.
    Trousers,
    /// Shorts or trunks: the top of the thighs.
    Shorts,
    /// A skirt from the waist, hem at this figure-space y.
    Skirt(f32),
    /// Only the hip band (swimsuit, slip, which the top continues).
    Briefs,
}

/// What the character wears, resolved by [`super::outfits`].
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Wear {
    /// `None`: bare chest (men's swimwear).
    pub neckline: Option<Neckline>,
    pub top: Rgb,
    /// Figure-space y where the top ends (the skirt or trousers start under it).
    pub hem: f32,
    pub sleeves: Sleeves,
    pub bottom: Bottom,
    pub bottom_colour: Rgb,
    /// `None`: bare feet.
    pub shoes: Option<Rgb>,
    /// An inner shirt seen between lapels, and the colour of its tie if it has one.
    pub inner: Option<(Rgb, Option<Rgb>)>,
    /// A black bow tie on the inner shirt (tuxedo).
    pub bow_tie: bool,
    /// Lace trim along the neckline and hem (lingerie).
    pub lace: bool,
    /// Small dots printed on the fabric (summer dress).
    pub dots: bool,
    /// A waist belt or sash in this colour.
    pub belt: Option<Rgb>,
    /// Rib texture of the knit (casual).
    pub knit: bool,
}

const HIPS_Y: f32 = 1160.0;
const BUST_BOTTOM: f32 = 830.0;

fn torso_skin_path(male: bool, frame: Frame) -> String {
    let top = if male {
        "M252 540 C250 575 228 592 180 602 C104 618 52 646 38 720"
    } else {
        "M262 540 C262 572 242 590 204 600 C134 616 92 642 78 710"
    };
    // From the right shoulder's tip back up to the neck.
    let right = if male {
        "C548 646 496 618 420 602 C372 592 350 575 348 540 Z"
    } else {
        "C508 642 466 616 396 600 C358 590 338 572 338 540 Z"
    };
    match (frame, male) {
        (Frame::Bust, true) => format!("{top} L28 {BUST_BOTTOM} L572 {BUST_BOTTOM} L562 720 {right}"),
        (Frame::Bust, false) => format!("{top} L66 {BUST_BOTTOM} L534 {BUST_BOTTOM} L522 710 {right}"),
        (Frame::Full(_), true) => format!(
            "{top} C50 800 110 860 128 940 C140 1000 146 1060 150 {HIPS_Y} L450 {HIPS_Y} C454 1060 460 1000 472 940 C490 860 550 800 562 720 {right}"
        ),
        (Frame::Full(_), false) => format!(
            "{top} C70 770 104 820 124 880 C146 944 168 990 166 1036 C160 1086 136 1116 130 {HIPS_Y} L470 {HIPS_Y} C464 1116 440 1086 434 1036 C432 990 454 944 476 880 C496 820 530 770 522 710 {right}"
        ),
    }
}

/// The middle of a neckline as a path fragment (no leading `M`), its outer ends' y, and
/// any straps.
fn neckline_curve(n: Neckline, male: bool) -> (&'static str, f32, &'static str) {
    match (n, male) {
        (Neckline::Crew, true) => ("252 576 C270 600 330 600 348 576", 590.0, ""),
        (Neckline::Crew, false) => ("256 568 C272 604 328 604 344 568", 590.0, ""),
        (Neckline::V, _) => ("238 594 L300 700 L362 594", 600.0, ""),
        (Neckline::Scoop, _) => ("222 596 C238 660 362 660 378 596", 600.0, ""),
        (Neckline::Collar, _) => ("250 572 L300 690 L350 572", 590.0, ""),
        (Neckline::Lapels, _) => ("244 586 L300 800 L356 586", 596.0, ""),
        (Neckline::Straps, _) => {
            ("170 712 C220 700 262 728 300 736 C338 728 380 700 430 712", 760.0, "M206 706 L232 596 M394 706 L368 596")
        }
        (Neckline::LowStraps, _) => {
            ("180 730 C226 716 266 748 300 758 C334 748 374 716 420 730", 780.0, "M214 724 L234 598 M386 724 L366 598")
        }
        (Neckline::OffShoulder, _) => ("140 700 C220 686 380 686 460 700", 700.0, ""),
    }
}

/// Neck, torso, clothes and arms. Drawn after the back hair and before the head.
pub(super) fn body(s: &mut String, t: &Traits, wear: &Wear, frame: Frame, back_view: bool) {
    let neck = neck_path(t.male);
    s.push_str(&format!(r#"<path d="{neck}" fill="url(#neckG)"/>"#));
    neck_shadow(s, t);
    // The torso sits a little higher than the neck column's end so the neck
    // does not look stretched; the paths run past the canvas bottom (830).
    s.push_str(r#"<g transform="translate(0 -16)">"#);
    if let Frame::Full(legs) = frame {
        draw_legs(s, t, wear, legs);
    }
    let torso = torso_skin_path(t.male, frame);
    s.push_str(&format!(r#"<clipPath id="torsoClip"><path d="{torso}"/></clipPath>"#));
    s.push_str(&format!(r#"<path d="{torso}" fill="url(#chestG)"/>"#));
    if wear.neckline.is_none()
        || matches!(wear.neckline, Some(Neckline::Straps | Neckline::LowStraps | Neckline::OffShoulder))
    {
        // Collarbones: two faint strokes give the bare chest structure.
        s.push_str(&format!(
            r#"<path d="M238 612 Q270 622 292 616 M308 616 Q330 622 362 612" fill="none" stroke="{}" stroke-width="3" stroke-linecap="round" stroke-opacity="0.35"/>"#,
            t.skin.shade(0.7).hex()
        ));
    }
    if wear.neckline.is_none() && t.male {
        // A bare chest: a soft line of the pectorals, nothing more.
        s.push_str(&format!(
            r#"<path d="M170 760 Q230 800 290 770 M310 770 Q370 800 430 760" fill="none" stroke="{}" stroke-width="3" stroke-linecap="round" stroke-opacity="0.3"/>"#,
            t.skin.shade(0.7).hex()
        ));
    }
    if let Frame::Full(_) = frame {
        hip_wear(s, wear);
    }
    top(s, t, wear, frame, back_view);
    if let Frame::Full(legs) = frame {
        if let Bottom::Skirt(hem) = wear.bottom {
            skirt(s, wear, hem, legs);
        }
        if let Some(belt) = wear.belt {
            s.push_str(&format!(
                r#"<path d="M160 1024 C240 1040 360 1040 440 1024 L442 1050 C360 1066 240 1066 158 1050 Z" fill="{}"/>"#,
                belt.hex()
            ));
        }
        arms(s, t, wear, legs);
    }
    if !back_view {
        necklace(s, t);
    }
    s.push_str("</g>");
}

/// A top: the band from the neckline down to the hem, clipped to the torso.
fn top(s: &mut String, t: &Traits, wear: &Wear, frame: Frame, back_view: bool) {
    let Some(neckline) = wear.neckline else { return };
    let hem = match frame {
        Frame::Bust => BUST_BOTTOM + 10.0,
        Frame::Full(_) => wear.hem,
    };
    // Seen from behind, every top has a plain high back.
    let neckline = if back_view && !matches!(neckline, Neckline::Straps | Neckline::LowStraps | Neckline::OffShoulder) {
        Neckline::Crew
    } else {
        neckline
    };
    let (curve, side_y, straps) = neckline_curve(neckline, t.male);
    let fill = wear.top.hex();
    let edge = wear.top.shade(0.6).hex();
    let fold = wear.top.shade(0.72).hex();
    if let Some((shirt, tie)) = wear.inner.filter(|_| !back_view) {
        // The inner shirt fills the lapels' V; the tie hangs down its middle.
        s.push_str(&format!(
            r#"<g clip-path="url(#torsoClip)"><path d="M236 570 C270 600 330 600 364 570 L380 {hem:.1} L220 {hem:.1} Z" fill="{}"/></g>"#,
            shirt.hex()
        ));
        if let Some(tie) = tie {
            s.push_str(&format!(
                r#"<path d="M290 596 L310 596 L316 612 L308 622 L322 770 L300 800 L278 770 L292 622 L284 612 Z" fill="{}"/>"#,
                tie.hex()
            ));
        } else if wear.bow_tie {
            s.push_str(r##"<path d="M272 590 L300 604 L328 590 L328 618 L300 606 L272 618 Z" fill="#15151c"/>"##);
        }
    }
    s.push_str(&format!(
        r#"<g clip-path="url(#torsoClip)"><path d="M-20 {side_y:.1} L{curve} L620 {side_y:.1} L620 {hem:.1} L-20 {hem:.1} Z" fill="{fill}"/>"#
    ));
    // Light from the upper left: a shadowed right side and a sheen on the left.
    s.push_str(&format!(
        r##"<path d="M430 560 C470 700 480 900 470 {hem:.1} L620 {hem:.1} L620 560 Z" fill="#000000" fill-opacity="0.12"/><path d="M60 700 C110 660 170 650 200 660 C160 700 130 780 120 {hem:.1} L60 {hem:.1} Z" fill="#ffffff" fill-opacity="0.08"/>"##
    ));
    if wear.dots {
        let mut seed = t.seed.wrapping_add(313);
        let mut d = String::new();
        for _ in 0..40 {
            let x = 60.0 + super::palette::frac(&mut seed) * 480.0;
            let y = side_y + 20.0 + super::palette::frac(&mut seed) * (hem - side_y);
            d.push_str(&format!("M{x:.1} {y:.1} m-5 0 a5 5 0 1 0 10 0 a5 5 0 1 0 -10 0 "));
        }
        s.push_str(&format!(r##"<path d="{d}" fill="#ffffff" fill-opacity="0.7"/>"##));
    }
    if wear.knit {
        let mut d = String::new();
        for i in 0..7 {
            let x = 160.0 + f32::from(i as u8) * 46.0;
            d.push_str(&format!(
                "M{x:.1} {hem:.1} C{:.1} 740 {:.1} 700 {:.1} 650 ",
                x + 4.0,
                x + 2.0,
                (x - 300.0) * 0.8 + 300.0
            ));
        }
        s.push_str(&format!(r#"<path d="{d}" fill="none" stroke="{fold}" stroke-width="2" stroke-opacity="0.35"/>"#));
    } else {
        s.push_str(&format!(
            r#"<path d="M150 {hem:.1} C160 760 168 720 180 680 M450 {hem:.1} C440 760 432 720 420 680" fill="none" stroke="{fold}" stroke-width="3" stroke-opacity="0.4" stroke-linecap="round"/>"#
        ));
    }
    s.push_str("</g>");
    // The neckline's edge: a hem line, lace scallops or the lapels' folds.
    let edge_width = if neckline == Neckline::Crew && !t.male { 10.0 } else { 5.0 };
    s.push_str(&format!(
        r#"<path d="M{curve}" fill="none" stroke="{edge}" stroke-width="{edge_width:.1}" stroke-linecap="round" stroke-linejoin="round"/>"#
    ));
    if neckline == Neckline::Collar {
        s.push_str(&format!(
            r#"<path d="M250 566 L230 622 L300 690 Z M350 566 L370 622 L300 690 Z" fill="{}" stroke="{edge}" stroke-width="2"/><path d="M300 690 V{hem:.1}" stroke="{edge}" stroke-width="3"/><circle cx="300" cy="725" r="4" fill="{edge}"/><circle cx="300" cy="770" r="4" fill="{edge}"/>"#,
            wear.top.shade(1.12).hex()
        ));
    }
    if neckline == Neckline::Lapels {
        s.push_str(&format!(
            r#"<path d="M244 586 L222 650 L262 680 L300 800 M356 586 L378 650 L338 680 L300 800" fill="none" stroke="{edge}" stroke-width="4" stroke-linejoin="round"/>"#
        ));
    }
    if wear.lace {
        lace_along(s, curve, "#fbeff2");
    }
    if !straps.is_empty() {
        s.push_str(&format!(
            r#"<path d="{straps}" fill="none" stroke="{edge}" stroke-width="7" stroke-linecap="round"/>"#
        ));
    }
}

/// Small scallops along a neckline fragment: a lace trim.
fn lace_along(s: &mut String, curve: &str, colour: &str) {
    s.push_str(&format!(
        r#"<path d="M{curve}" fill="none" stroke="{colour}" stroke-width="9" stroke-dasharray="2 7" stroke-linecap="round" stroke-opacity="0.9"/>"#
    ));
}

/// The hip band under the top: what trousers, shorts, briefs and swimsuits share.
fn hip_wear(s: &mut String, wear: &Wear) {
    let colour = match wear.bottom {
        Bottom::Skirt(_) => return,
        _ => wear.bottom_colour,
    };
    s.push_str(&format!(
        r#"<g clip-path="url(#torsoClip)"><path d="M100 1010 L500 1010 L500 1200 L100 1200 Z" fill="{}"/></g><path d="M130 1150 L470 1150 L470 1176 C420 1196 360 1220 300 1236 C240 1220 180 1196 130 1176 Z" fill="{}"/>"#,
        colour.hex(),
        colour.hex()
    ));
}

/// Hip, knee and ankle of each leg for a stance (figure space; left leg first).
fn leg_joints(male: bool, legs: Legs) -> [[(f32, f32); 3]; 2] {
    let (l, r) = if male { (230.0, 370.0) } else { (225.0, 375.0) };
    match legs {
        Legs::Standing => {
            [[(l, 1150.0), (l + 8.0, 1480.0), (l + 16.0, 1790.0)], [(r, 1150.0), (r - 8.0, 1480.0), (r - 16.0, 1790.0)]]
        }
        Legs::Walking => [
            [(l, 1150.0), (l - 36.0, 1470.0), (l - 70.0, 1770.0)],
            [(r, 1150.0), (r + 18.0, 1480.0), (r + 46.0, 1790.0)],
        ],
        // Seen from the front, the thighs come toward the viewer and look short.
        Legs::Sitting => {
            [[(l, 1150.0), (l - 10.0, 1300.0), (l - 4.0, 1600.0)], [(r, 1150.0), (r + 10.0, 1300.0), (r + 4.0, 1600.0)]]
        }
    }
}

fn stroke(s: &mut String, from: (f32, f32), to: (f32, f32), width: f32, colour: &str) {
    s.push_str(&format!(
        r#"<path d="M{:.1} {:.1} L{:.1} {:.1}" stroke="{colour}" stroke-width="{width:.1}" stroke-linecap="round" fill="none"/>"#,
        from.0, from.1, to.0, to.1
    ));
}

fn draw_legs(s: &mut String, t: &Traits, wear: &Wear, legs: Legs) {
    let (thigh, shin) = if t.male { (128.0, 90.0) } else { (118.0, 80.0) };
    let thigh = if legs == Legs::Sitting { thigh + 22.0 } else { thigh };
    let skin = t.skin.shade(0.97).hex();
    let cloth = wear.bottom_colour.hex();
    let cloth_dark = wear.bottom_colour.shade(0.8).hex();
    for (i, [hip, knee, ankle]) in leg_joints(t.male, legs).into_iter().enumerate() {
        // The leg further back in a stride is a shade darker.
        let back = legs == Legs::Walking && i == 1;
        let (skin_c, cloth_c) =
            if back { (t.skin.shade(0.88).hex(), cloth_dark.clone()) } else { (skin.clone(), cloth.clone()) };
        stroke(s, hip, knee, thigh, &skin_c);
        stroke(s, knee, ankle, shin, &skin_c);
        match wear.bottom {
            Bottom::Trousers => {
                stroke(s, hip, knee, thigh + 10.0, &cloth_c);
                stroke(s, knee, ankle, shin + 12.0, &cloth_c);
            }
            Bottom::Shorts => {
                let mid = (hip.0 + (knee.0 - hip.0) * 0.45, hip.1 + (knee.1 - hip.1) * 0.45);
                stroke(s, hip, mid, thigh + 12.0, &cloth_c);
            }
            Bottom::Skirt(_) | Bottom::Briefs => {}
        }
        // Knee shading gives the leg a joint.
        s.push_str(&format!(
            r##"<ellipse cx="{:.1}" cy="{:.1}" rx="{:.1}" ry="14" fill="#000000" fill-opacity="0.06"/>"##,
            knee.0,
            knee.1 + 8.0,
            shin * 0.35
        ));
        let foot = match wear.shoes {
            Some(shoe) => shoe.hex(),
            None => skin_c.clone(),
        };
        let dir = if i == 0 { -1.0 } else { 1.0 };
        s.push_str(&format!(
            r#"<ellipse cx="{:.1}" cy="{:.1}" rx="{:.1}" ry="{:.1}" fill="{foot}"/>"#,
            ankle.0 + dir * 10.0,
            ankle.1 + 24.0,
            shin * 0.62,
            shin * 0.3
        ));
    }
}

fn skirt(s: &mut String, wear: &Wear, hem: f32, legs: Legs) {
    let flare = if legs == Legs::Walking { 40.0 } else { 0.0 };
    let sit = legs == Legs::Sitting;
    // A sitting skirt drapes over the knees and ends higher.
    let hem = if sit { hem.min(1380.0) } else { hem };
    let spread = ((hem - 1030.0) * 0.32).clamp(60.0, 220.0);
    let (l, r) = (150.0 - spread * 0.5 - flare, 450.0 + spread * 0.5 + flare * 0.4);
    let colour = wear.top.hex();
    s.push_str(&format!(
        r#"<path d="M160 1020 C240 1036 360 1036 440 1020 C460 1100 {:.1} {:.1} {r:.1} {hem:.1} Q{:.1} {:.1} 300 {hem:.1} Q{:.1} {:.1} {l:.1} {hem:.1} C{:.1} {:.1} 140 1100 160 1020 Z" fill="{colour}"/>"#,
        r - 10.0,
        hem - 160.0,
        (r + 300.0) / 2.0,
        hem + 16.0,
        (l + 300.0) / 2.0,
        hem + 16.0,
        l + 10.0,
        hem - 160.0,
    ));
    // Soft folds falling from the waist.
    s.push_str(&format!(
        r#"<path d="M230 1040 Q{:.1} {:.1} {:.1} {hem:.1} M300 1044 L300 {hem:.1} M370 1040 Q{:.1} {:.1} {:.1} {hem:.1}" fill="none" stroke="{}" stroke-width="4" stroke-opacity="0.35"/>"#,
        (230.0 + l) / 2.0,
        (1040.0 + hem) / 2.0,
        l + 40.0,
        (370.0 + r) / 2.0,
        (1040.0 + hem) / 2.0,
        r - 40.0,
        wear.top.shade(0.7).hex()
    ));
    if wear.dots {
        s.push_str(&format!(
            r##"<path d="M{l:.1} {hem:.1} Q300 {:.1} {r:.1} {hem:.1}" fill="none" stroke="#ffffff" stroke-width="6" stroke-dasharray="3 14" stroke-linecap="round" stroke-opacity="0.7"/>"##,
            hem + 16.0
        ));
    }
    if wear.lace {
        lace_along(s, &format!("{l:.1} {hem:.1} Q300 {:.1} {r:.1} {hem:.1}", hem + 16.0), "#fbeff2");
    }
}

/// Shoulder, elbow and wrist of each arm for a stance (left arm first).
fn arm_joints(male: bool, legs: Legs) -> [[(f32, f32); 3]; 2] {
    let (sx, sy) = if male { (66.0, 736.0) } else { (100.0, 726.0) };
    let r = |x: f32| 600.0 - x;
    match legs {
        Legs::Standing => [
            [(sx, sy), (sx - 22.0, 980.0), (sx + 2.0, 1200.0)],
            [(r(sx), sy), (r(sx) + 22.0, 980.0), (r(sx) - 2.0, 1200.0)],
        ],
        Legs::Walking => [
            [(sx, sy), (sx + 4.0, 975.0), (sx + 60.0, 1170.0)],
            [(r(sx), sy), (r(sx) + 40.0, 970.0), (r(sx) + 50.0, 1190.0)],
        ],
        // Hands resting on the knees.
        Legs::Sitting => [
            [(sx, sy), (sx - 20.0, 990.0), (sx + 110.0, 1210.0)],
            [(r(sx), sy), (r(sx) + 20.0, 990.0), (r(sx) - 110.0, 1210.0)],
        ],
    }
}

fn arms(s: &mut String, t: &Traits, wear: &Wear, legs: Legs) {
    let (upper, lower) = if t.male { (74.0, 60.0) } else { (60.0, 50.0) };
    let skin = t.skin.hex();
    let sleeve = wear.top.hex();
    for [shoulder, elbow, wrist] in arm_joints(t.male, legs) {
        stroke(s, shoulder, elbow, upper, &skin);
        stroke(s, elbow, wrist, lower, &skin);
        match wear.sleeves {
            Sleeves::None => {}
            Sleeves::Short => {
                let mid = (shoulder.0 + (elbow.0 - shoulder.0) * 0.45, shoulder.1 + (elbow.1 - shoulder.1) * 0.45);
                stroke(s, shoulder, mid, upper + 12.0, &sleeve);
            }
            Sleeves::Long => {
                stroke(s, shoulder, elbow, upper + 10.0, &sleeve);
                stroke(s, elbow, wrist, lower + 10.0, &sleeve);
            }
        }
        s.push_str(&format!(
            r#"<ellipse cx="{:.1}" cy="{:.1}" rx="{:.1}" ry="{:.1}" fill="{}"/>"#,
            wrist.0,
            wrist.1 + lower * 0.6,
            lower * 0.5,
            lower * 0.7,
            t.skin.shade(0.96).hex()
        ));
    }
}
