//! The built React app (`frontend/dist`): files as they are, `index.html` with each
//! route's own head (`seo`) for client routes, `/locales/{lng}/{ns}.json` for i18next,
//! and `/sitemap.xml` and `/robots.txt`.

use std::path::{Path, PathBuf};

use actix_files::NamedFile;
use actix_web::http::Method;
use actix_web::http::header::{ALLOW, CACHE_CONTROL, CONTENT_SECURITY_POLICY, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use amora_domain::account::LANGUAGES;

use crate::content::seo;
use crate::state::AppState;
use crate::web::raster;

/// The content security policy of the app's pages (issue 28). Scripts only from the build
/// (Vite emits no inline script) and Cloudflare Turnstile, the bot check of the sign-in
/// form, which also draws in its frame; styles from the build plus inline ones
/// (`index.html`'s background, React's `style` attributes); images from this site, any
/// https host (catalogue photos and blog covers may be hosted elsewhere) and local
/// previews; API calls and the WebSocket to this site only ('self' covers ws/wss of the
/// same host). Payments leave by navigation, which no directive limits. No page may be
/// framed (`frame-ancestors 'none'`, with `X-Frame-Options: DENY` for older browsers).
pub const APP_CONTENT_SECURITY_POLICY: &str = "default-src 'self'; \
    script-src 'self' https://challenges.cloudflare.com; \
    style-src 'self' 'unsafe-inline'; \
    img-src 'self' data: blob: https:; \
    media-src 'self' blob: data:; \
    font-src 'self' data:; \
    connect-src 'self'; \
    frame-src https://challenges.cloudflare.com; \
    worker-src 'self' blob:; \
    object-src 'none'; \
    base-uri 'self'; \
    form-action 'self'; \
    frame-ancestors 'none'";

/// `/locales/{lng}/{ns}.json`: only known languages and plain namespace names, so the path
/// can never leave the locales folder.
pub async fn locale(req: HttpRequest, state: web::Data<AppState>, path: web::Path<(String, String)>) -> HttpResponse {
    let (language, file) = path.into_inner();
    let Some(namespace) = file.strip_suffix(".json") else {
        return HttpResponse::NotFound().finish();
    };
    let plain = |text: &str| {
        !text.is_empty()
            && text.len() <= 40
            && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    if !LANGUAGES.contains(&language.as_str()) || !plain(namespace) {
        return HttpResponse::NotFound().finish();
    }
    let locales = state.settings.http.static_dir.join("locales");
    let Some(path) = inside(&locales, &locales.join(&language).join(format!("{namespace}.json"))) else {
        return HttpResponse::NotFound().finish();
    };
    // Translations change with each release; revalidate instead of caching blindly.
    serve_file(&req, &path, "no-cache")
}

/// The console's client routes, and the page Vite builds for them.
const OPERATOR_ROUTE: &str = "operator";
const OPERATOR_SHELL: &str = "operator.html";

/// Any other GET or HEAD: a file of the build, or `index.html` for a client route. Other
/// methods get 405: a POST to a page is a client's mistake, not a page view.
pub async fn static_or_index(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        return HttpResponse::MethodNotAllowed().insert_header((ALLOW, "GET, HEAD")).finish();
    }
    let root = &state.settings.http.static_dir;
    let relative = req.path().trim_start_matches('/');
    if let Some(file) = safe_join(root, relative).and_then(|p| inside(root, &p)).filter(|p| p.is_file()) {
        // Vite fingerprints everything under assets/, so those never change.
        let cache = if relative.starts_with("assets/") {
            "public, max-age=31536000, immutable"
        } else {
            "public, max-age=3600"
        };
        let mut response = serve_file(&req, &file, cache);
        if file.extension().is_some_and(|e| e.eq_ignore_ascii_case("html")) {
            // `/index.html` asked for by name is still the app.
            let policy = HeaderValue::from_static(APP_CONTENT_SECURITY_POLICY);
            response.headers_mut().insert(CONTENT_SECURITY_POLICY, policy);
        }
        return response;
    }
    // A build SVG's JPEG twin (`/blog/covers/x.jpg` for `x.svg`, `/logo.jpg`): the raster
    // picture link previews need (issue 34).
    if let Some(stem) = relative.strip_suffix(".jpg")
        && let Some(svg) =
            safe_join(root, &format!("{stem}.svg")).and_then(|p| inside(root, &p)).filter(|p| p.is_file())
    {
        return svg_twin(&state, svg).await;
    }
    // A missing file with an extension is a real 404, not a client route.
    let last_segment = relative.rsplit('/').next().unwrap_or_default();
    if last_segment.contains('.') {
        return HttpResponse::NotFound().finish();
    }
    // The operator console (issue 33) is a bundle of its own: its shell for every route
    // under `/operator`, never indexed; its API answers only to operator sessions.
    if relative == OPERATOR_ROUTE || relative.starts_with(&format!("{OPERATOR_ROUTE}/")) {
        let Some(shell) = inside(root, &root.join(OPERATOR_SHELL)).filter(|p| p.is_file()) else {
            return HttpResponse::NotFound()
                .content_type("text/plain; charset=utf-8")
                .body("No operator console in this build.");
        };
        let mut response = serve_file(&req, &shell, "no-cache");
        let headers = response.headers_mut();
        headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(APP_CONTENT_SECURITY_POLICY));
        headers.insert(
            actix_web::http::header::HeaderName::from_static("x-robots-tag"),
            HeaderValue::from_static("noindex, nofollow"),
        );
        return response;
    }
    let Some(build) = state.site.build() else {
        return HttpResponse::ServiceUnavailable()
            .content_type("text/plain; charset=utf-8")
            .body("The web app is not built yet: run ./scripts/run, or `npm run build` in frontend/.");
    };
    // A request with a session may see more of the catalogue than the signed-out page the
    // server renders: its app asks for the lists itself (the page's text stays the same).
    let personal = crate::auth::session::session_cookie_value(req.headers()).is_some();
    match state.site.render(&build, &state.store, req.path(), personal).await {
        Ok(page) => {
            let mut response = if page.found { HttpResponse::Ok() } else { HttpResponse::NotFound() };
            // The head depends on the store (characters, posts), so it is never cached blindly.
            response
                .content_type("text/html; charset=utf-8")
                .insert_header((CACHE_CONTROL, "no-cache"))
                .insert_header((CONTENT_SECURITY_POLICY, APP_CONTENT_SECURITY_POLICY))
                .body(page.html)
        }
        Err(error) => {
            tracing::error!(%error, path = req.path(), "a page could not be rendered");
            HttpResponse::ServiceUnavailable().content_type("text/plain; charset=utf-8").body("Try again in a moment.")
        }
    }
}

/// The JPEG drawn from one of the build's SVG files.
async fn svg_twin(state: &web::Data<AppState>, svg: PathBuf) -> HttpResponse {
    let drawing = state.clone();
    let path = svg.clone();
    match web::block(move || drawing.site.previews.jpeg(&path)).await {
        Ok(Ok(jpeg)) => HttpResponse::Ok()
            .content_type(raster::JPEG)
            .insert_header((CACHE_CONTROL, "public, max-age=3600"))
            .body(jpeg.as_ref().clone()),
        Ok(Err(error)) => {
            tracing::warn!(%error, svg = %svg.display(), "a picture of the build cannot be drawn");
            HttpResponse::NotFound().finish()
        }
        Err(error) => {
            tracing::error!(%error, "the drawing task failed");
            HttpResponse::ServiceUnavailable().finish()
        }
    }
}

/// `/sitemap.xml`: routes in every language, public characters and blog posts.
pub async fn sitemap(state: web::Data<AppState>) -> HttpResponse {
    match seo::sitemap::sitemap_xml(&state.site, &state.store).await {
        Ok(xml) => HttpResponse::Ok()
            .content_type("application/xml; charset=utf-8")
            .insert_header((CACHE_CONTROL, "public, max-age=3600"))
            .body(xml),
        Err(error) => {
            tracing::error!(%error, "the sitemap could not be built");
            HttpResponse::ServiceUnavailable().finish()
        }
    }
}

/// `/robots.txt`: everything but the API and private screens, and where the sitemap is.
pub async fn robots(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .insert_header((CACHE_CONTROL, "public, max-age=3600"))
        .body(seo::sitemap::robots_txt(&state.site))
}

fn serve_file(req: &HttpRequest, path: &Path, cache_control: &'static str) -> HttpResponse {
    match NamedFile::open(path) {
        Ok(file) => {
            let mut response = file.use_last_modified(true).into_response(req);
            response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static(cache_control));
            response
        }
        Err(_) => HttpResponse::NotFound().finish(),
    }
}

/// `path` with every symlink resolved, if that is still under `root` (resolved too): a
/// link inside the build must not serve what lies outside it.
fn inside(root: &Path, path: &Path) -> Option<PathBuf> {
    let root = root.canonicalize().ok()?;
    let real = path.canonicalize().ok()?;
    real.starts_with(&root).then_some(real)
}

/// Joins a URL path under `root`, refusing anything that could climb out of it.
fn safe_join(root: &Path, relative: &str) -> Option<PathBuf> {
    let mut path = root.to_path_buf();
    for segment in relative.split('/').filter(|s| !s.is_empty()) {
        if segment == ".." || segment == "." || segment.contains('\\') || segment.starts_with('.') {
            return None;
        }
        path.push(segment);
    }
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_cannot_climb_out_of_the_build() {
        let root = Path::new("/srv/dist");
        assert_eq!(safe_join(root, "assets/app.js"), Some(PathBuf::from("/srv/dist/assets/app.js")));
        assert_eq!(safe_join(root, "../etc/passwd"), None);
        assert_eq!(safe_join(root, "assets/../../x"), None);
        assert_eq!(safe_join(root, ".env"), None);
    }
}
