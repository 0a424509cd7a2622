//! Blog posts in SQLite.

use amora_domain::blog::{BlogDate, BlogKey, BlogPost};
use amora_domain::paging::PageRequest;
use async_trait::async_trait;
use rusqlite::{OptionalExtension, params};

use super::EmbeddedStore;
use crate::{BlogRepo, BlogSummary, StoreError, StoreResult};

fn corrupt(error: amora_domain::Invalid) -> StoreError {
    StoreError::Corrupt(error.to_string())
}

#[async_trait]
impl BlogRepo for EmbeddedStore {
    async fn put(&self, post: BlogPost) -> StoreResult<()> {
        self.with_conn(move |conn| {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO blog_posts (post_key, title, description, date, cover, markdown, html)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                post.key.as_str(),
                post.title,
                post.description,
                post.date.as_str(),
                post.cover,
                post.markdown,
                post.html
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
                    "SELECT title, description, date, cover, markdown, html FROM blog_posts WHERE post_key = ?1",
                )?
                .query_row(params![key.as_str()], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, String>(3)?,
                        row.get::<_, String>(4)?,
                        row.get::<_, String>(5)?,
                    ))
                })
                .optional()?;
            let Some((title, description, date, cover, markdown, html)) = row else { return Ok(None) };
            Ok(Some(BlogPost {
                key,
                title,
                description,
                date: BlogDate::parse(&date).map_err(corrupt)?,
                cover,
                markdown,
                html,
            }))
        })
        .await
    }

    async fn list(&self, page: PageRequest) -> StoreResult<Vec<BlogSummary>> {
        self.with_conn(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT post_key, title, description, date, cover FROM blog_posts
                 ORDER BY date DESC, post_key LIMIT ?1 OFFSET ?2",
            )?;
            let rows = statement.query_map(params![page.page_size(), page.offset() as i64], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, String>(4)?,
                ))
            })?;
            rows.map(|row| {
                let (key, title, description, date, cover) = row?;
                Ok(BlogSummary {
                    key: BlogKey::parse(&key).map_err(corrupt)?,
                    title,
                    description,
                    date: BlogDate::parse(&date).map_err(corrupt)?,
                    cover,
                })
            })
            .collect()
        })
        .await
    }

    async fn count(&self) -> StoreResult<u64> {
        self.with_conn(|conn| {
            let count: i64 = conn.query_row("SELECT COUNT(*) FROM blog_posts", [], |row| row.get(0))?;
            Ok(count.max(0) as u64)
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
