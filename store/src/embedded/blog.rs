//! Blog posts in SQLite. A post's state is two columns: `publish_at` (seconds; readers see
//! it from then) and `unpublished` (kept, shown to nobody).

use amora_domain::blog::{BlogDate, BlogKey, BlogPost};
use amora_domain::paging::PageRequest;
use async_trait::async_trait;
use rusqlite::{OptionalExtension, Row, params};

use super::EmbeddedStore;
use crate::{BlogRepo, BlogSummary, StoreError, StoreResult};

fn corrupt(error: amora_domain::Invalid) -> StoreError {
    StoreError::Corrupt(error.to_string())
}

/// The columns' pair for a post's `publish_at`.
fn state_columns(publish_at: Option<i64>) -> (i64, bool) {
    (publish_at.unwrap_or(0), publish_at.is_none())
}

const SUMMARY_COLUMNS: &str = "post_key, title, description, date, cover, publish_at, unpublished";

/// A row of `SUMMARY_COLUMNS`.
fn summary(row: &Row<'_>) -> rusqlite::Result<(String, String, String, String, String, i64, bool)> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?, row.get(6)?))
}

fn into_summary(
    (key, title, description, date, cover, publish_at, unpublished): (
        String,
        String,
        String,
        String,
        String,
        i64,
        bool,
    ),
) -> StoreResult<BlogSummary> {
    Ok(BlogSummary {
        key: BlogKey::parse(&key).map_err(corrupt)?,
        title,
        description,
        date: BlogDate::parse(&date).map_err(corrupt)?,
        cover,
        publish_at: (!unpublished).then_some(publish_at),
    })
}

#[async_trait]
impl BlogRepo for EmbeddedStore {
    async fn put(&self, post: BlogPost) -> StoreResult<()> {
        self.with_conn(move |conn| {
            let (publish_at, unpublished) = state_columns(post.publish_at);
            conn.prepare_cached(
                "INSERT OR REPLACE INTO blog_posts
                     (post_key, title, description, date, cover, markdown, html, publish_at, unpublished)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                post.key.as_str(),
                post.title,
                post.description,
                post.date.as_str(),
                post.cover,
                post.markdown,
                post.html,
                publish_at,
                unpublished
            ])?;
            Ok(())
        })
        .await
    }

    async fn get(&self, key: &BlogKey) -> StoreResult<Option<BlogPost>> {
        let key = key.clone();
        self.with_conn(move |conn| {
            let row = conn
                .prepare_cached(
                    "SELECT title, description, date, cover, markdown, html, publish_at, unpublished
                     FROM blog_posts WHERE post_key = ?1",
                )?
                .query_row(params![key.as_str()], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, String>(3)?,
                        row.get::<_, String>(4)?,
                        row.get::<_, String>(5)?,
                        row.get::<_, i64>(6)?,
                        row.get::<_, bool>(7)?,
                    ))
                })
                .optional()?;
            let Some((title, description, date, cover, markdown, html, publish_at, unpublished)) = row else {
                return Ok(None);
            };
            Ok(Some(BlogPost {
                key,
                title,
                description,
                date: BlogDate::parse(&date).map_err(corrupt)?,
                cover,
                markdown,
                html,
                publish_at: (!unpublished).then_some(publish_at),
            }))
        })
        .await
    }

    async fn list(&self, page: PageRequest, now: i64) -> StoreResult<Vec<BlogSummary>> {
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {SUMMARY_COLUMNS} FROM blog_posts WHERE unpublished = 0 AND publish_at <= ?3
                 ORDER BY date DESC, post_key LIMIT ?1 OFFSET ?2"
            ))?;
            let rows = statement.query_map(params![page.page_size(), page.offset() as i64, now], summary)?;
            rows.map(|row| into_summary(row?)).collect()
        })
        .await
    }

    async fn count(&self, now: i64) -> StoreResult<u64> {
        self.with_conn(move |conn| {
            let count: i64 = conn.query_row(
                "SELECT COUNT(*) FROM blog_posts WHERE unpublished = 0 AND publish_at <= ?1",
                params![now],
                |row| row.get(0),
            )?;
            Ok(count.max(0) as u64)
        })
        .await
    }

    async fn list_all(&self, limit: u32) -> StoreResult<Vec<BlogSummary>> {
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {SUMMARY_COLUMNS} FROM blog_posts ORDER BY date DESC, post_key LIMIT ?1"
            ))?;
            let rows = statement.query_map(params![limit], summary)?;
            rows.map(|row| into_summary(row?)).collect()
        })
        .await
    }

    async fn set_publish_at(&self, key: &BlogKey, publish_at: Option<i64>) -> StoreResult<bool> {
        let key = key.clone();
        self.with_conn(move |conn| {
            let (publish_at, unpublished) = state_columns(publish_at);
            let changed = conn
                .prepare_cached("UPDATE blog_posts SET publish_at = ?2, unpublished = ?3 WHERE post_key = ?1")?
                .execute(params![key.as_str(), publish_at, unpublished])?;
            Ok(changed > 0)
        })
        .await
    }

    async fn delete(&self, key: &BlogKey) -> StoreResult<bool> {
        let key = key.clone();
        self.with_conn(move |conn| {
            let deleted = conn.execute("DELETE FROM blog_posts WHERE post_key = ?1", params![key.as_str()])?;
            Ok(deleted > 0)
        })
        .await
    }
}
