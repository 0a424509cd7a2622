//! `/media/{id}`: portraits, generated images (only at their capability address,
//! `amora_store::media_url`) and voice from the media store, and
//! `?w=` width-limited copies of raster images (docs/api.md, "Media variants"): made
//! once with the `image` crate on first request and kept beside the original, so a
//! deleted image's variants go with it. SVG (drawn at any size), GIF and WebP (which
//! may be animated) and anything else are served as they are, except that `?raster=1`
//! asks for an SVG drawn to JPEG (`w` wide, 1080 by default) for link previews, which
//! ignore SVG (issue 34); that copy is kept as the SVG's variant of that width (an SVG
//! has no other variants).

use std::io::Cursor;

use actix_web::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS};
use actix_web::{HttpResponse, web};
use amora_store::{MEDIA_VARIANT_WIDTHS, MediaObject};
use image::ImageFormat;
use serde::Deserialize;

use crate::state::AppState;
use crate::web::raster;

const SVG: &str = "image/svg+xml";
const MAX_MEDIA_ID_LEN: usize = 100;
/// JPEG variants: small enough for mobile data, no visible loss at these sizes.
const JPEG_QUALITY: u8 = 85;

#[derive(Debug, Deserialize)]
pub struct MediaQuery {
    /// The widest copy wanted, one of [`MEDIA_VARIANT_WIDTHS`].
    w: Option<String>,
    /// `1`: a raster picture even when the original is SVG.
    raster: Option<String>,
}

pub async fn get_media(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<MediaQuery>,
) -> HttpResponse {
    let id = id.into_inner();
    let well_formed = !id.is_empty()
        && id.len() <= MAX_MEDIA_ID_LEN
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !well_formed {
        return HttpResponse::NotFound().finish();
    }
    // A generated image only at its capability address (`img-<id>-<tag>`), never by its
    // time-ordered id alone.
    let Some(id) = amora_store::media_id_for_url(&id) else {
        return HttpResponse::NotFound().finish();
    };
    let cache = cache_control(&id);
    let width = match query.w.as_deref() {
        None => None,
        Some(w) => match w.parse::<u32>() {
            Ok(w) if MEDIA_VARIANT_WIDTHS.contains(&w) => Some(w),
            _ => return HttpResponse::NotFound().finish(),
        },
    };
    let raster = match query.raster.as_deref() {
        None => false,
        Some("1") => true,
        Some(_) => return HttpResponse::NotFound().finish(),
    };
    let original = match state.store.media.get(&id).await {
        Ok(Some(object)) => object,
        Ok(None) => return HttpResponse::NotFound().finish(),
        Err(error) => {
            tracing::error!(%error, media = %id, "cannot read media");
            return HttpResponse::ServiceUnavailable().finish();
        }
    };
    if raster && original.content_type == SVG {
        return drawn(&state, &id, original, width.unwrap_or(raster::PREVIEW_WIDTH), cache).await;
    }
    let Some(width) = width else { return serve(original, cache) };
    let Some(format) = resizable(&original.content_type) else { return serve(original, cache) };
    match state.store.media.get_variant(&id, width).await {
        Ok(Some(variant)) => return serve(variant, cache),
        Ok(None) => {}
        Err(error) => {
            tracing::error!(%error, media = %id, width, "cannot read a media variant");
            return HttpResponse::ServiceUnavailable().finish();
        }
    }
    let bytes = original.bytes.clone();
    let resized = web::block(move || resize(&bytes, format, width)).await;
    match resized {
        Ok(Ok(Some(variant))) => {
            if let Err(error) = state.store.media.put_variant(&id, width, variant.clone()).await {
                // Served all the same; the next request makes it again.
                tracing::warn!(%error, media = %id, width, "cannot keep a media variant");
            }
            serve(variant, cache)
        }
        // Already narrow enough: the original is the variant.
        Ok(Ok(None)) => serve(original, cache),
        Ok(Err(error)) => {
            tracing::warn!(%error, media = %id, "a stored image cannot be decoded; serving it as it is");
            serve(original, cache)
        }
        Err(error) => {
            tracing::error!(%error, media = %id, "the resizing task failed");
            HttpResponse::ServiceUnavailable().finish()
        }
    }
}

/// An SVG drawn `width` wide as a JPEG: the kept copy, or drawn now and kept.
async fn drawn(state: &AppState, id: &str, original: MediaObject, width: u32, cache: &'static str) -> HttpResponse {
    match state.store.media.get_variant(id, width).await {
        Ok(Some(variant)) => return serve(variant, cache),
        Ok(None) => {}
        Err(error) => {
            tracing::error!(%error, media = %id, width, "cannot read a media variant");
            return HttpResponse::ServiceUnavailable().finish();
        }
    }
    match web::block(move || raster::svg_to_jpeg(&original.bytes, width)).await {
        Ok(Ok(bytes)) => {
            let variant = MediaObject { content_type: raster::JPEG.into(), bytes };
            if let Err(error) = state.store.media.put_variant(id, width, variant.clone()).await {
                // Served all the same; the next request draws it again.
                tracing::warn!(%error, media = %id, width, "cannot keep a drawn media variant");
            }
            serve(variant, cache)
        }
        Ok(Err(error)) => {
            // A stored SVG that cannot be drawn has no raster copy; nothing else to offer.
            tracing::warn!(%error, media = %id, "a stored SVG cannot be drawn");
            HttpResponse::NotFound().finish()
        }
        Err(error) => {
            tracing::error!(%error, media = %id, "the drawing task failed");
            HttpResponse::ServiceUnavailable().finish()
        }
    }
}

/// Users' generated images and voice clips are theirs: kept by the browser, never by a
/// shared cache (a CDN or proxy would hand them to whoever asks for the address). Shared
/// feed images have the same address as in the owner's gallery, so they are private to
/// caches too. Portraits and the catalogue's pictures are public.
fn cache_control(media_id: &str) -> &'static str {
    if media_id.starts_with("img-") || media_id.starts_with("voice-") {
        "private, max-age=86400"
    } else {
        "public, max-age=86400"
    }
}

fn serve(object: MediaObject, cache: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, object.content_type))
        .insert_header((CACHE_CONTROL, cache))
        .insert_header((X_CONTENT_TYPE_OPTIONS, "nosniff"))
        // SVG can carry script; media is shown, never run.
        .insert_header((CONTENT_SECURITY_POLICY, "default-src 'none'; style-src 'unsafe-inline'"))
        .body(object.bytes)
}

/// The formats that get resized copies.
fn resizable(content_type: &str) -> Option<ImageFormat> {
    match content_type {
        "image/png" => Some(ImageFormat::Png),
        "image/jpeg" => Some(ImageFormat::Jpeg),
        _ => None,
    }
}

/// A copy at most `width` wide in the original's format, or `None` when the original is
/// no wider (never enlarged).
fn resize(bytes: &[u8], format: ImageFormat, width: u32) -> Result<Option<MediaObject>, image::ImageError> {
    let picture = image::load_from_memory_with_format(bytes, format)?;
    if picture.width() <= width {
        return Ok(None);
    }
    let height = (u64::from(picture.height()) * u64::from(width) / u64::from(picture.width())).max(1);
    let height = u32::try_from(height).unwrap_or(u32::MAX);
    let smaller = picture.resize_exact(width, height, image::imageops::FilterType::CatmullRom);
    let mut out = Cursor::new(Vec::new());
    let content_type = match format {
        ImageFormat::Jpeg => {
            let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY);
            smaller.to_rgb8().write_with_encoder(encoder)?;
            "image/jpeg"
        }
        _ => {
            smaller.write_to(&mut out, ImageFormat::Png)?;
            "image/png"
        }
    };
    Ok(Some(MediaObject { content_type: content_type.into(), bytes: out.into_inner() }))
}
