//! The style presets, as SVG filters over the drawn picture: the same drawing washed like
//! watercolour, brushed like oil, graded like a film still or grained like a photo, or
//! cel-shaded like anime (flat tones in a few steps, vivid colour, ink lines, bigger eyes,
//! sparkles and light streaks), so that it does not pass for the plain illustration
//! (issue 30). The filters' noise takes the image seed, so texture differs between pictures.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    Illustration,
    Anime,
    Watercolor,
    OilPainting,
    Cinematic,
    Photo,
}

impl Style {
    pub const ALL: [(&'static str, Style); 6] = [
        ("illustration", Style::Illustration),
        ("anime", Style::Anime),
        ("watercolor", Style::Watercolor),
        ("oil-painting", Style::OilPainting),
        ("cinematic", Style::Cinematic),
        ("photo", Style::Photo),
    ];

    pub fn from_key(key: &str) -> Option<Style> {
        Self::ALL.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// Ink outlines and bigger eyes on the figure.
    pub fn inked(self) -> bool {
        self == Style::Anime
    }
}

/// The filters a style needs, to go inside `<defs>`. `noise` seeds their turbulence.
pub(super) fn defs(style: Style, noise: u32) -> String {
    let noise = noise % 10_000;
    match style {
        Style::Illustration => String::new(),
        // Vivid, brighter, then posterised to four tones a channel: gradients become the
        // flat bands of cel shading.
        Style::Anime => concat!(
            r#"<filter id="look" x="0" y="0" width="1" height="1" color-interpolation-filters="sRGB">"#,
            r#"<feColorMatrix type="saturate" values="1.7" result="v"/>"#,
            r#"<feComponentTransfer in="v" result="b"><feFuncR type="linear" slope="1.12" intercept="0.04"/><feFuncG type="linear" slope="1.12" intercept="0.04"/><feFuncB type="linear" slope="1.12" intercept="0.06"/></feComponentTransfer>"#,
            r#"<feComponentTransfer in="b"><feFuncR type="discrete" tableValues="0.08 0.42 0.74 1"/><feFuncG type="discrete" tableValues="0.06 0.38 0.7 0.96"/><feFuncB type="discrete" tableValues="0.14 0.46 0.78 1"/></feComponentTransfer>"#,
            r#"</filter>"#
        )
        .into(),
        Style::Watercolor => format!(
            r#"<filter id="look" x="0" y="0" width="1" height="1"><feTurbulence type="fractalNoise" baseFrequency="0.04" numOctaves="2" seed="{noise}" result="n"/><feDisplacementMap in="SourceGraphic" in2="n" scale="3" xChannelSelector="R" yChannelSelector="G" result="d"/><feColorMatrix in="d" type="matrix" values="0.72 0 0 0 0.28 0 0.72 0 0 0.28 0 0 0.72 0 0.28 0 0 0 1 0"/></filter><filter id="grain" x="0" y="0" width="1" height="1"><feTurbulence type="fractalNoise" baseFrequency="0.5" numOctaves="1" seed="{noise}"/><feColorMatrix type="matrix" values="0 0 0 0 0.55 0 0 0 0 0.45 0 0 0 0 0.35 0 0 0 0.5 -0.1"/></filter>"#
        ),
        Style::OilPainting => format!(
            r#"<filter id="look" x="0" y="0" width="1" height="1"><feTurbulence type="fractalNoise" baseFrequency="0.05 0.12" numOctaves="2" seed="{noise}" result="n"/><feDisplacementMap in="SourceGraphic" in2="n" scale="2.5" xChannelSelector="R" yChannelSelector="G" result="d"/><feColorMatrix in="d" type="saturate" values="1.25"/></filter><filter id="grain" x="0" y="0" width="1" height="1"><feTurbulence type="fractalNoise" baseFrequency="0.02 0.4" numOctaves="2" seed="{noise}"/><feColorMatrix type="matrix" values="0 0 0 0 0.2 0 0 0 0 0.12 0 0 0 0 0.05 0 0 0 0.7 -0.2"/></filter>"#
        ),
        Style::Cinematic => {
            // Teal shadows, warm highlights, a little more contrast.
            r#"<filter id="look" x="0" y="0" width="1" height="1"><feColorMatrix type="matrix" values="1.18 0 0 0 -0.06 0 1.06 0 0 -0.03 0 0.12 0.92 0 0.03 0 0 0 1 0"/></filter>"#
                .into()
        }
        Style::Photo => format!(
            r#"<filter id="look" x="0" y="0" width="1" height="1"><feColorMatrix type="saturate" values="1.08"/></filter><filter id="depth" x="-0.05" y="-0.05" width="1.1" height="1.1"><feGaussianBlur stdDeviation="3.5"/></filter><filter id="grain" x="0" y="0" width="1" height="1"><feTurbulence type="fractalNoise" baseFrequency="0.9" numOctaves="1" seed="{noise}"/><feColorMatrix type="matrix" values="0 0 0 0 0.5 0 0 0 0 0.5 0 0 0 0 0.5 0 0 0 0.35 -0.05"/></filter>"#
        ),
    }
}

/// The attribute that filters the whole picture (empty for none).
pub(super) fn whole(style: Style) -> &'static str {
    if style == Style::Illustration { "" } else { r#" filter="url(#look)""# }
}

/// The attribute that filters the background only: a photo's shallow depth of field.
pub(super) fn background(style: Style) -> &'static str {
    if style == Style::Photo { r#" filter="url(#depth)""# } else { "" }
}

/// Drawn over everything: paper or canvas grain, film grain, letterbox bars, anime's light
/// streaks and sparkles (placed by `noise`).
pub(super) fn overlay(s: &mut String, style: Style, noise: u32) {
    match style {
        Style::Anime => {
            s.push_str(
                r##"<path d="M-40 180 L600 -60 L600 40 L-40 280 Z" fill="#ffffff" opacity="0.16"/><path d="M-40 330 L600 90 L600 130 L-40 370 Z" fill="#ffffff" opacity="0.12"/>"##,
            );
            for i in 0..7u32 {
                let spot = noise.wrapping_mul(2_654_435_761).rotate_left(i * 9) ^ i.wrapping_mul(0x9e37_79b9);
                let (x, y) = (20 + spot % 560, 20 + (spot / 560) % 300);
                let r = 6 + (spot >> 20) % 9;
                let w = r / 4 + 1;
                s.push_str(&format!(
                    r##"<path d="M{x} {} L{} {y} L{x} {} L{} {y} Z M{} {y} L{x} {} L{} {y} L{x} {} Z" fill="#fffbe8" opacity="0.9"/>"##,
                    y - r,
                    x + w,
                    y + r,
                    x - w,
                    x - r,
                    y - w,
                    x + r,
                    y + w,
                ));
            }
        }
        Style::Watercolor | Style::OilPainting | Style::Photo => {
            s.push_str(r#"<rect width="600" height="800" filter="url(#grain)"/>"#);
        }
        Style::Cinematic => s.push_str(
            r##"<rect width="600" height="800" fill="url(#vig)"/><rect width="600" height="64" fill="#050505"/><rect y="736" width="600" height="64" fill="#050505"/>"##,
        ),
        Style::Illustration => {}
    }
}
