//! The console's Content desk, beside the `/lust/admin` blog calls it mounts again
//! (`blog/publish`, now or at a time to come, and `blog/unpublish`): the blog's posts with
//! their state, a post's file to edit, and the landing pages' copy per language (read its
//! versions, publish a new one). The guard (`super::guard`) has checked the role and, on
//! acting routes, the reason.

use actix_web::{HttpRequest, HttpResponse, web};
use amora_domain::blog::BlogKey;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::admin::{AdminError, internal};
use crate::content::landing::{check_copy, doc_key};
use crate::state::AppState;

use super::versions;

/// Posts the console lists: every one the operator wrote, far more than a blog holds.
const MAX_POSTS: u32 = 1_000;

pub fn configure(scope: &mut web::ServiceConfig) {
    scope
        .route("/blog/posts", web::get().to(blog_posts))
        .route("/blog/post", web::get().to(blog_post))
        .route("/landing", web::get().to(landing_versions))
        .route("/landing/publish", web::post().to(publish_landing));
}

fn bad_request(error: impl std::fmt::Display) -> AdminError {
    AdminError::BadRequest(error.to_string())
}

/// A post's state at `now`: `published`, `scheduled` (its `publishAt` to come) or `unpublished`.
fn state_of(publish_at: Option<i64>, now: i64) -> &'static str {
    match publish_at {
        None => "unpublished",
        Some(at) if at > now => "scheduled",
        Some(_) => "published",
    }
}

/// `GET blog/posts`: every post, newest first, scheduled and unpublished ones too, each
/// with its `state` and `publishAt` (seconds; null while unpublished).
async fn blog_posts(state: web::Data<AppState>) -> Result<HttpResponse, AdminError> {
    let now = crate::auth::now();
    let posts: Vec<Value> = state
        .store
        .blog
        .list_all(MAX_POSTS)
        .await
        .map_err(internal)?
        .into_iter()
        .map(|post| {
            json!({
                "key": post.key,
                "title": post.title,
                "date": post.date,
                "description": post.description,
                "publishAt": post.publish_at,
                "state": state_of(post.publish_at, now),
            })
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "posts": posts })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyQuery {
    key: String,
}

/// `GET blog/post?key=`: the post as the file `blog/publish` takes, to edit, with its state.
async fn blog_post(state: web::Data<AppState>, query: web::Query<KeyQuery>) -> Result<HttpResponse, AdminError> {
    let key = BlogKey::parse(&query.key).map_err(bad_request)?;
    let post = state.store.blog.get(&key).await.map_err(internal)?;
    let post = post.ok_or_else(|| AdminError::NotFound(format!("no blog post {key}")))?;
    Ok(HttpResponse::Ok().json(json!({
        "key": key,
        "file": crate::content::blog::post_file(&post),
        "publishAt": post.publish_at,
        "state": state_of(post.publish_at, crate::auth::now()),
    })))
}

fn landing_doc(topic: &str) -> Result<String, AdminError> {
    doc_key(topic).ok_or_else(|| {
        let topics: Vec<&str> = crate::content::landing::topics().collect();
        bad_request(format!("topic: one of {}", topics.join(" ")))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LandingQuery {
    topic: String,
    lang: String,
}

/// `GET landing?topic=&lang=`: a landing page's copy in a language: `shipped` (as the app
/// was built), `current` (the newest published version, null while none) and every
/// published version, newest first.
async fn landing_versions(
    state: web::Data<AppState>,
    query: web::Query<LandingQuery>,
) -> Result<HttpResponse, AdminError> {
    let doc = landing_doc(&query.topic)?;
    let lang = amora_domain::account::parse_language(&query.lang).map_err(bad_request)?;
    let versions = versions::list(&state, &doc, &lang).await?;
    let current = versions.first().map(|v| v["text"].clone());
    let shipped = state.site.build().and_then(|build| build.texts.value("topics", &lang, &query.topic).cloned());
    Ok(HttpResponse::Ok().json(json!({
        "topic": query.topic,
        "lang": lang,
        "shipped": shipped,
        "current": current,
        "versions": versions,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PublishLandingRequest {
    topic: String,
    lang: String,
    copy: Value,
}

/// `POST landing/publish {topic, lang, copy}`: a new version of the page's copy in the
/// language, shown from now on by the server-rendered page and the app; the old ones stay.
async fn publish_landing(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Json<PublishLandingRequest>,
) -> Result<HttpResponse, AdminError> {
    let operator = super::operator_of(&req)?;
    let request = body.into_inner();
    let doc = landing_doc(&request.topic)?;
    let lang = amora_domain::account::parse_language(&request.lang).map_err(bad_request)?;
    check_copy(&request.copy).map_err(bad_request)?;
    // The day it was published, as a legal text's version shows its own.
    let today = actix_web::cookie::time::OffsetDateTime::now_utc().date().to_string();
    versions::publish(&state, operator.operator_id, &doc, &lang, today, &request.copy).await?;
    Ok(HttpResponse::Ok().json(json!({ "topic": request.topic, "lang": lang, "outcome": "published" })))
}
