//! The head (face, eyes, hair, beard, accessories) and the neck, drawn in figure space:
//! a 600-wide frame where the face spans x 200–400 and y 186–492. Grown out of the
//! catalogue's portrait code, so seeded portraits and generated pictures share one face.

use super::palette::{BACKDROPS, LINE, Rgb, Traits};

// ---------------------------------------------------------------------------
// Shared geometry
// ---------------------------------------------------------------------------

/// Face outline. Women: softer, narrower jaw and pointed chin; men: squarer jaw.
pub(super) fn face_path(male: bool) -> &'static str {
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
pub(super) fn neck_path(male: bool) -> &'static str {
    if male { "M252 420 L252 560 Q300 590 348 560 L348 420 Z" } else { "M264 420 L262 560 Q300 585 338 560 L336 420 Z" }
}

// ---------------------------------------------------------------------------
// Definitions (gradients, clip paths)
// ---------------------------------------------------------------------------

pub(super) fn defs(s: &mut String, t: &Traits) {
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

pub(super) fn lip_colour(t: &Traits) -> Rgb {
    if t.male { t.skin.mix(Rgb(0xb0, 0x5a, 0x5a), 0.3).shade(0.9) } else { t.skin.mix(Rgb(0xc2, 0x4a, 0x62), 0.55) }
}

pub(super) fn neck_shadow(s: &mut String, t: &Traits) {
    let w = if t.male { 86.0 } else { 74.0 };
    s.push_str(&format!(
        r#"<g clip-path="url(#neckClip)"><ellipse cx="300" cy="470" rx="{w:.1}" ry="44" fill="{}" fill-opacity="0.5" filter="url(#soft)"/></g>"#,
        t.skin.shade(0.6).hex()
    ));
}

// ---------------------------------------------------------------------------
// Head
// ---------------------------------------------------------------------------

pub(super) fn ears(s: &mut String, t: &Traits) {
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

pub(super) fn face(s: &mut String, t: &Traits) {
    s.push_str(&format!(r#"<path d="{}" fill="url(#skinG)"{}/>"#, face_path(t.male), ink(t, 3.5)));
    // Cheek contour on the shadow side and a soft highlight on the light side;
    // this is what makes the flat shape read as a rounded face.
    s.push_str(&format!(
        r##"<g clip-path="url(#faceClip)"><path d="M400 240 C392 350 380 420 300 492 L420 492 L420 240 Z" fill="{}" fill-opacity="0.22" filter="url(#softer)"/><ellipse cx="262" cy="272" rx="44" ry="20" fill="#ffffff" fill-opacity="0.08" filter="url(#softer)"/></g>"##,
        t.skin.shade(0.7).hex()
    ));
}

/// Cheek blush; its strength (stronger for women) lives in the `blushG` gradient.
pub(super) fn blush(s: &mut String) {
    s.push_str(r#"<ellipse cx="246" cy="392" rx="30" ry="17" fill="url(#blushG)"/>"#);
    s.push_str(r#"<ellipse cx="354" cy="392" rx="30" ry="17" fill="url(#blushG)"/>"#);
}

pub(super) fn nose(s: &mut String, t: &Traits) {
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

pub(super) fn eyes(s: &mut String, t: &Traits) {
    let (y, w, h) = if t.male { (340.0, 25.0, 12.0) } else { (338.0, 25.0, 14.0) };
    // Anime: rounder, taller eyes.
    let (w, h) = if t.ink { (w * 1.1, h * 1.4) } else { (w, h) };
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

pub(super) fn brows(s: &mut String, t: &Traits) {
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

pub(super) fn mouth(s: &mut String, t: &Traits) {
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

pub(super) fn beard(s: &mut String, t: &Traits) {
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

pub(super) fn back_hair(s: &mut String, t: &Traits) {
    if let Some(d) = hair_shape(t).back {
        s.push_str(&format!(r#"<path d="{d}" fill="url(#hairBackG)"{}/>"#, ink(t, 3.0)));
    }
    // Man bun: a tie band where the knot meets the head.
    if t.male && t.style == 3 {
        s.push_str(&format!(
            r#"<rect x="280" y="160" width="40" height="9" rx="4" fill="{}"/>"#,
            t.hair.shade(0.45).hex()
        ));
    }
}

pub(super) fn front_hair(s: &mut String, t: &Traits) {
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
    s.push_str(&format!(
        r#"<path d="{}" fill="url(#hairG)" fill-opacity="{opacity:.2}"{}/>"#,
        &shape.front,
        ink(t, 3.0)
    ));
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
pub(super) fn accessory(s: &mut String, t: &Traits) {
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
pub(super) fn necklace(s: &mut String, t: &Traits) {
    if t.accessory != 3 {
        return;
    }
    if t.male {
        s.push_str(r##"<path d="M262 574 C270 620 330 620 338 574" fill="none" stroke="#c9c9cf" stroke-width="3"/>"##);
    } else {
        s.push_str(r##"<path d="M256 572 C262 628 338 628 344 572" fill="none" stroke="#e2b857" stroke-width="2.5"/><path d="M300 618 l8 10 l-8 10 l-8 -10 Z" fill="#f2d27a" stroke="#b08a30" stroke-width="1"/>"##);
    }
}

/// The ink outline the anime style puts around big shapes (an attribute string, empty
/// in the other styles).
pub(super) fn ink(t: &Traits, width: f32) -> String {
    if t.ink {
        format!(r#" stroke="{}" stroke-width="{width:.1}" stroke-linejoin="round""#, LINE.hex())
    } else {
        String::new()
    }
}
