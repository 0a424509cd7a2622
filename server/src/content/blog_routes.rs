//! The blog for the frontend (docs/api.md "Blog"): a page of posts, newest first, and one
//! post with its sanitised HTML. Open to everyone, signed in or not.

use actix_web::web;
use amora_domain::blog::{BlogDate, BlogKey};
use amora_domain::paging::PageRequest;
use amora_store::BlogSummary;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::api::{ApiError, ApiReply, ApiResult, Payload};
use crate::state::AppState;

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "BlogListRequest")]
pub struct ListRequest {
    #[ts(type = "number")]
    page_no: i64,
    #[ts(type = "number")]
    page_size: i64,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BlogCard {
    #[ts(type = "string")]
    blog_key: BlogKey,
    title: String,
    description: String,
    /// YYYY-MM-DD.
    #[ts(type = "string")]
    date: BlogDate,
    /// A path on this site or an https URL.
    cover: String,
}

impl From<BlogSummary> for BlogCard {
    fn from(post: BlogSummary) -> Self {
        Self {
            blog_key: post.key,
            title: post.title,
            description: post.description,
            date: post.date,
            cover: post.cover,
        }
    }
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BlogPage {
    list: Vec<BlogCard>,
    /// How many posts there are in all, for numbered pages.
    #[ts(type = "number")]
    total: u64,
}

/// `blog/getBlogList {pageNo, pageSize}` → `{list: BlogCard[], total}`, newest first.
pub async fn get_blog_list(state: web::Data<AppState>, payload: Payload<ListRequest>) -> ApiResult<BlogPage> {
    let request = payload.into_inner();
    let page = PageRequest::parse(request.page_no, request.page_size)?;
    let now = crate::auth::now();
    let list = state.store.blog.list(page, now).await?.into_iter().map(BlogCard::from).collect();
    let total = state.store.blog.count(now).await?;
    Ok(ApiReply(BlogPage { list, total }))
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "BlogInfoRequest")]
pub struct InfoRequest {
    blog_key: String,
}

#[derive(Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BlogArticle {
    #[ts(type = "string")]
    blog_key: BlogKey,
    title: String,
    description: String,
    #[ts(type = "string")]
    date: BlogDate,
    cover: String,
    /// Rendered from the post's Markdown and sanitised when it was published.
    html: String,
}

/// `blog/getBlogInfo {blogKey}` → `BlogArticle`, or `notFound` (also for a post scheduled
/// for later or unpublished).
pub async fn get_blog_info(state: web::Data<AppState>, payload: Payload<InfoRequest>) -> ApiResult<BlogArticle> {
    let key = BlogKey::parse(&payload.into_inner().blog_key)?;
    let post = state.store.blog.get(&key).await?.filter(|post| post.is_live(crate::auth::now()));
    let post = post.ok_or_else(|| ApiError::NotFound(format!("no blog post {key}")))?;
    Ok(ApiReply(BlogArticle {
        blog_key: post.key,
        title: post.title,
        description: post.description,
        date: post.date,
        cover: post.cover,
        html: post.html,
    }))
}
