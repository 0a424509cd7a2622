//! The style presets, as SVG filters over the drawn picture: the same drawing washed like
//! watercolour, brushed like oil, graded like a film still or grained like a photo. The
//! filters' noise takes the image seed, so texture differs between pictures.

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
        Style::Anime => {
            r#"<filter id="look" x="0" y="0" width="1" height="1"><feColorMatrix type="saturate" values="1.3"/></filter>"#
                .into()
        }
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

/// Drawn over everything: paper or canvas grain, film grain, letterbox bars.
pub(super) fn overlay(s: &mut String, style: Style) {
    match style {
        Style::Watercolor | Style::OilPainting | Style::Photo => {
            s.push_str(r#"<rect width="600" height="800" filter="url(#grain)"/>"#);
        }
        Style::Cinematic => s.push_str(
            r##"<rect width="600" height="800" fill="url(#vig)"/><rect width="600" height="64" fill="#050505"/><rect y="736" width="600" height="64" fill="#050505"/>"##,
        ),
        Style::Illustration | Style::Anime => {}
    }
}
