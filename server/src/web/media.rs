//! `/media/{id}`: portraits and, later, generated images and voice from the media store.

use actix_web::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS};
use actix_web::{HttpResponse, web};

use crate::state::AppState;

const MAX_MEDIA_ID_LEN: usize = 100;

pub async fn get_media(state: web::Data<AppState>, id: web::Path<String>) -> HttpResponse {
    let id = id.into_inner();
    let well_formed = !id.is_empty()
        && id.len() <= MAX_MEDIA_ID_LEN
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !well_formed {
        return HttpResponse::NotFound().finish();
    }
    match state.store.media.get(&id).await {
        Ok(Some(object)) => HttpResponse::Ok()
            .insert_header((CONTENT_TYPE, object.content_type))
            .insert_header((CACHE_CONTROL, "public, max-age=86400"))
            .insert_header((X_CONTENT_TYPE_OPTIONS, "nosniff"))
            // SVG can carry script; media is shown, never run.
            .insert_header((CONTENT_SECURITY_POLICY, "default-src 'none'; style-src 'unsafe-inline'"))
            .body(object.bytes),
        Ok(None) => HttpResponse::NotFound().finish(),
        Err(error) => {
            tracing::error!(%error, media = %id, "cannot read media");
            HttpResponse::ServiceUnavailable().finish()
        }
    }
}
