//! Raster copies of SVG pictures for link previews (issue 34): Open Graph and Twitter
//! cards ignore SVG, so a portrait, a blog cover or the site's logo is also served as a
//! JPEG, drawn here with resvg (no text is drawn: the workspace builds it without fonts,
//! and a preview's words are in the card's title and description anyway).

use std::collections::HashMap;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use resvg::{tiny_skia, usvg};

/// The width of a preview: what Open Graph asks of a large card (at least 1080 wide keeps
/// it sharp), and one of the media variant widths, so a portrait's copy is kept as a variant.
pub const PREVIEW_WIDTH: u32 = 1080;
/// A very tall drawing is cut at this height rather than drawn at any size.
const MAX_PREVIEW_HEIGHT: u32 = 4 * PREVIEW_WIDTH;
const JPEG_QUALITY: u8 = 85;
pub const JPEG: &str = "image/jpeg";

#[derive(Debug, thiserror::Error)]
pub enum RasterError {
    #[error("not a drawable SVG: {0}")]
    Svg(#[from] usvg::Error),
    #[error("cannot draw at {0}x{1}")]
    Size(u32, u32),
    #[error("cannot encode the JPEG: {0}")]
    Encode(#[from] image::ImageError),
}

/// `svg` drawn `width` pixels wide (its height in proportion) on white (JPEG has no
/// transparency), as a JPEG.
pub fn svg_to_jpeg(svg: &[u8], width: u32) -> Result<Vec<u8>, RasterError> {
    let tree = usvg::Tree::from_data(svg, &usvg::Options::default())?;
    let size = tree.size();
    let scale = width as f32 / size.width();
    let height = ((size.height() * scale).round() as u32).clamp(1, MAX_PREVIEW_HEIGHT);
    let mut pixmap = tiny_skia::Pixmap::new(width, height).ok_or(RasterError::Size(width, height))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    // Opaque everywhere (drawn on white), so the premultiplied pixels are the plain ones.
    let rgba = image::RgbaImage::from_raw(width, height, pixmap.take()).ok_or(RasterError::Size(width, height))?;
    let rgb = image::DynamicImage::ImageRgba8(rgba).to_rgb8();
    let mut out = Cursor::new(Vec::new());
    rgb.write_with_encoder(image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY))?;
    Ok(out.into_inner())
}

/// The JPEG copies of the build's own SVG files (`/blog/covers/x.jpg` for
/// `/blog/covers/x.svg`), drawn once and kept while the file is unchanged. Only files of
/// the build are drawn, so the map holds at most one entry per SVG the build ships.
#[derive(Default)]
pub struct StaticPreviews {
    drawn: RwLock<HashMap<PathBuf, Drawn>>,
}

/// A drawing and the modification time of the SVG it was drawn from.
type Drawn = (SystemTime, Arc<Vec<u8>>);

impl StaticPreviews {
    /// The JPEG of the SVG file at `svg_path` (a real path inside the build), drawn now
    /// or taken from the last time.
    pub fn jpeg(&self, svg_path: &Path) -> Result<Arc<Vec<u8>>, PreviewError> {
        let modified = std::fs::metadata(svg_path).and_then(|m| m.modified())?;
        if let Some((when, bytes)) = self.drawn.read().ok().and_then(|d| d.get(svg_path).cloned())
            && when == modified
        {
            return Ok(bytes);
        }
        let jpeg = Arc::new(svg_to_jpeg(&std::fs::read(svg_path)?, PREVIEW_WIDTH)?);
        if let Ok(mut drawn) = self.drawn.write() {
            drawn.insert(svg_path.to_owned(), (modified, jpeg.clone()));
        }
        Ok(jpeg)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    #[error("cannot read the SVG: {0}")]
    Read(#[from] std::io::Error),
    #[error(transparent)]
    Raster(#[from] RasterError),
}

/// The address of a raster copy of a picture, for `og:image`: a media object's preview
/// (`?w=1080&raster=1`), a build SVG's `.jpg` twin; anything else (a raster file, another
/// host's picture) as it is.
pub fn preview_address(picture: &str) -> String {
    if picture.starts_with("/media/") && !picture.contains('?') {
        return format!("{picture}?w={PREVIEW_WIDTH}&raster=1");
    }
    match picture.strip_suffix(".svg") {
        Some(stem) if picture.starts_with('/') && !picture.starts_with("//") => format!("{stem}.jpg"),
        _ => picture.to_owned(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_svg_is_drawn_to_a_jpeg_of_the_asked_width_in_proportion() {
        let svg = br##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 800"><rect width="600" height="400" fill="#ff0000"/></svg>"##;
        let jpeg = svg_to_jpeg(svg, 300).unwrap();
        let picture = image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg).unwrap().to_rgb8();
        assert_eq!(picture.dimensions(), (300, 400));
        let top = picture.get_pixel(150, 50);
        assert!(top[0] > 200 && top[1] < 60 && top[2] < 60, "red drawn: {top:?}");
        let bottom = picture.get_pixel(150, 350);
        assert!(bottom.0.iter().all(|c| *c > 240), "transparent is white: {bottom:?}");
        assert!(svg_to_jpeg(b"not svg", 300).is_err());
    }

    #[test]
    fn previews_point_at_raster_copies() {
        assert_eq!(preview_address("/media/port-gf-001"), "/media/port-gf-001?w=1080&raster=1");
        assert_eq!(preview_address("/blog/covers/a.svg"), "/blog/covers/a.jpg");
        assert_eq!(preview_address("/pictures/a.png"), "/pictures/a.png");
        assert_eq!(preview_address("https://cdn.example/a.svg"), "https://cdn.example/a.svg");
        assert_eq!(preview_address("//cdn.example/a.svg"), "//cdn.example/a.svg");
    }
}
