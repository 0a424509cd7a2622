//! The ScyllaDB store, spoken over CQL with the `scylla` driver, so it runs the same on
//! ScyllaDB and on Apache Cassandra 5 (the test command's CQL server). Tables come from
//! `schema.cql` at the repository root, applied idempotently when the store connects.
//!
//! Every statement is prepared once, at connection, with its consistency set there:
//! `consistency` (LOCAL_QUORUM by default) for reads and writes, `serial_consistency`
//! (SERIAL) for lightweight transactions. Only idempotent statements are marked so, and
//! the driver's default retry policy retries only those. Lists are read with the driver's
//! pager. Of a lightweight transaction's result only column 0 (`[applied]`) is read: the
//! two servers answer different extra columns.

mod accounts;
mod alternatives;
mod blog;
mod catalogue_blocks;
mod character_slots;
mod characters;
mod chat;
mod feed_moderation;
mod gallery;
mod groups;
mod ledger;
mod media;
mod moderation;
mod money_desk;
mod operators;
mod payments;
mod pending;
mod personas;
mod recall;
mod reversals;
mod telemetry;
mod voice;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::TryStreamExt;
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::deserialize::row::DeserializeRow;
use scylla::response::query_result::QueryResult;
use scylla::serialize::batch::BatchValues;
use scylla::serialize::row::SerializeRow;
use scylla::statement::batch::{Batch, BatchType};
use scylla::statement::prepared::PreparedStatement;
use scylla::statement::{Consistency, SerialConsistency};
use scylla::value::{CqlValue, Row};

use crate::{Health, Store, StoreError, StoreResult};

/// The schema every CQL store applies; the file an operator can read and run by hand.
pub const SCHEMA: &str = include_str!("../../../schema.cql");

/// How to reach the cluster and what keyspace to keep Amora's tables in.
#[derive(Debug, Clone)]
pub struct CqlSettings {
    /// `host:port` of one or more nodes; the driver discovers the rest.
    pub nodes: Vec<String>,
    pub keyspace: String,
    /// The keyspace's replication map as CQL, e.g.
    /// `{'class': 'NetworkTopologyStrategy', 'replication_factor': 3}`.
    pub replication: String,
    /// On ScyllaDB, whether the keyspace uses tablets (`None`: the server's default).
    /// Ignored on Cassandra, which has no such option.
    pub tablets: Option<bool>,
    pub consistency: Consistency,
    pub serial_consistency: SerialConsistency,
    pub request_timeout: Duration,
}

impl CqlSettings {
    /// Settings for one local node, as tests and the conformance suite use.
    pub fn local(node: &str, keyspace: &str) -> Self {
        Self {
            nodes: vec![node.to_owned()],
            keyspace: keyspace.to_owned(),
            replication: "{'class': 'SimpleStrategy', 'replication_factor': 1}".into(),
            tablets: None,
            consistency: Consistency::LocalQuorum,
            serial_consistency: SerialConsistency::Serial,
            request_timeout: Duration::from_secs(10),
        }
    }
}

/// Reads a consistency level by its CQL name (`LOCAL_QUORUM`, `ONE`, …).
pub fn parse_consistency(name: &str) -> Option<Consistency> {
    Some(match name.to_ascii_uppercase().as_str() {
        "ANY" => Consistency::Any,
        "ONE" => Consistency::One,
        "TWO" => Consistency::Two,
        "THREE" => Consistency::Three,
        "QUORUM" => Consistency::Quorum,
        "ALL" => Consistency::All,
        "LOCAL_QUORUM" => Consistency::LocalQuorum,
        "EACH_QUORUM" => Consistency::EachQuorum,
        "LOCAL_ONE" => Consistency::LocalOne,
        _ => return None,
    })
}

/// Reads a serial consistency level (`SERIAL` or `LOCAL_SERIAL`).
pub fn parse_serial_consistency(name: &str) -> Option<SerialConsistency> {
    match name.to_ascii_uppercase().as_str() {
        "SERIAL" => Some(SerialConsistency::Serial),
        "LOCAL_SERIAL" => Some(SerialConsistency::LocalSerial),
        _ => None,
    }
}

/// One connection to the cluster, shared by every repository.
pub struct CqlStore {
    session: Session,
    settings: CqlSettings,
    statements: Statements,
    /// Requests sent so far (`Health::round_trips`).
    round_trips: std::sync::atomic::AtomicU64,
}

/// Every prepared statement, by repository.
struct Statements {
    characters: characters::Statements,
    character_slots: character_slots::Statements,
    catalogue_blocks: catalogue_blocks::Statements,
    media: media::Statements,
    money_desk: money_desk::Statements,
    telemetry: telemetry::Statements,
    accounts: accounts::Statements,
    ledger: ledger::Statements,
    chat: chat::Statements,
    alternatives: alternatives::Statements,
    gallery: gallery::Statements,
    groups: groups::Statements,
    feed_moderation: feed_moderation::Statements,
    blog: blog::Statements,
    moderation: moderation::Statements,
    operators: operators::Statements,
    payments: payments::Statements,
    pending: pending::Statements,
    personas: personas::Statements,
    recall: recall::Statements,
    reversals: reversals::Statements,
    voice: voice::Statements,
    ping: PreparedStatement,
}

/// What kind of statement is being prepared, which decides its consistency and retries.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A read, or a write that gives the same result when repeated: retried on failure.
    Idempotent,
    /// A lightweight transaction: SERIAL for its Paxos round, never retried blindly.
    Conditional,
}

impl CqlStore {
    /// Connects, creates the keyspace if needed, applies `schema.cql` and prepares every
    /// statement.
    ///
    /// The work runs as a task of its own: the driver's connect future (cluster metadata,
    /// peers, schema agreement) is deep, and polled inside the caller's future it rides on
    /// the caller's stack; in a debug build that overflowed a test thread's 2 MiB. A task is
    /// polled from the runtime's shallow stack, whoever calls.
    pub async fn connect(settings: CqlSettings) -> StoreResult<Self> {
        tokio::spawn(Self::connect_in_task(settings))
            .await
            .map_err(|e| StoreError::Unavailable(format!("the connecting task failed: {e}")))?
    }

    async fn connect_in_task(settings: CqlSettings) -> StoreResult<Self> {
        let session = SessionBuilder::new()
            .known_nodes(&settings.nodes)
            .connection_timeout(Duration::from_secs(10))
            // The driver reads the schema of these keyspaces only: of every keyspace, on a
            // server that also holds others, costs each connect and each schema change.
            .keyspaces_to_fetch([settings.keyspace.clone()])
            .build()
            .await
            .map_err(|e| StoreError::Unavailable(format!("cannot connect to {:?}: {e}", settings.nodes)))?;
        ensure_keyspace(&session, &settings).await?;
        session.use_keyspace(&settings.keyspace, true).await.map_err(unavailable)?;
        apply_schema(&session).await?;
        add_new_columns(&session, &settings.keyspace).await?;
        let preparer = Preparer { session: &session, settings: &settings };
        let statements = Statements {
            characters: characters::Statements::prepare(&preparer).await?,
            character_slots: character_slots::Statements::prepare(&preparer).await?,
            catalogue_blocks: catalogue_blocks::Statements::prepare(&preparer).await?,
            media: media::Statements::prepare(&preparer).await?,
            money_desk: money_desk::Statements::prepare(&preparer).await?,
            telemetry: telemetry::Statements::prepare(&preparer).await?,
            accounts: accounts::Statements::prepare(&preparer).await?,
            ledger: ledger::Statements::prepare(&preparer).await?,
            chat: chat::Statements::prepare(&preparer).await?,
            alternatives: alternatives::Statements::prepare(&preparer).await?,
            gallery: gallery::Statements::prepare(&preparer).await?,
            groups: groups::Statements::prepare(&preparer).await?,
            feed_moderation: feed_moderation::Statements::prepare(&preparer).await?,
            blog: blog::Statements::prepare(&preparer).await?,
            moderation: moderation::Statements::prepare(&preparer).await?,
            operators: operators::Statements::prepare(&preparer).await?,
            payments: payments::Statements::prepare(&preparer).await?,
            pending: pending::Statements::prepare(&preparer).await?,
            personas: personas::Statements::prepare(&preparer).await?,
            recall: recall::Statements::prepare(&preparer).await?,
            reversals: reversals::Statements::prepare(&preparer).await?,
            voice: voice::Statements::prepare(&preparer).await?,
            ping: preparer.prepare("SELECT release_version FROM system.local", Kind::Idempotent).await?,
        };
        Ok(Self { session, settings, statements, round_trips: std::sync::atomic::AtomicU64::new(0) })
    }

    pub fn keyspace(&self) -> &str {
        &self.settings.keyspace
    }

    /// All repositories of this store.
    pub fn into_store(self) -> Store {
        Store::from_one(Arc::new(self))
    }

    /// Runs a prepared statement and answers its single page of results.
    pub(crate) fn count_round_trip(&self) {
        self.round_trips.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    async fn run(&self, statement: &PreparedStatement, values: impl SerializeRow) -> StoreResult<QueryResult> {
        self.count_round_trip();
        self.session.execute_unpaged(statement, values).await.map_err(unavailable)
    }

    /// Writes `statements` with `values` (one row of values each) as one logged batch: all
    /// of them or none, in one round trip. For writes that must not be seen one without
    /// the other, across partitions.
    async fn write_together(&self, statements: &[&PreparedStatement], values: impl BatchValues) -> StoreResult<()> {
        self.write_batch(BatchType::Logged, statements, values).await
    }

    /// Writes `statements` with `values` as one batch of `kind` (idempotent writes only),
    /// with the store's consistency and time-out.
    async fn write_batch(
        &self,
        kind: BatchType,
        statements: &[&PreparedStatement],
        values: impl BatchValues,
    ) -> StoreResult<()> {
        let mut batch = Batch::new(kind);
        for statement in statements {
            batch.append_statement((*statement).clone());
        }
        batch.set_consistency(self.settings.consistency);
        batch.set_request_timeout(Some(self.settings.request_timeout));
        batch.set_is_idempotent(true);
        self.count_round_trip();
        self.session.batch(&batch, values).await.map(|_| ()).map_err(unavailable)
    }

    /// Runs a query and reads every row of its (single-page) result.
    async fn rows<R>(&self, statement: &PreparedStatement, values: impl SerializeRow) -> StoreResult<Vec<R>>
    where
        R: for<'f> DeserializeRow<'f, 'f>,
    {
        let result = self.run(statement, values).await?;
        let rows = result.into_rows_result().map_err(corrupt)?;
        rows.rows::<R>().map_err(corrupt)?.map(|row| row.map_err(corrupt)).collect()
    }

    /// The first row of a query's result, if any.
    async fn first<R>(&self, statement: &PreparedStatement, values: impl SerializeRow) -> StoreResult<Option<R>>
    where
        R: for<'f> DeserializeRow<'f, 'f>,
    {
        Ok(self.rows(statement, values).await?.into_iter().next())
    }

    /// Reads every row of a query, page by page with the driver's pager.
    async fn paged<R>(&self, statement: &PreparedStatement, values: impl SerializeRow) -> StoreResult<Vec<R>>
    where
        R: for<'f, 'm> DeserializeRow<'f, 'm> + 'static,
    {
        self.count_round_trip();
        let pager = self.session.execute_iter(statement.clone(), values).await.map_err(unavailable)?;
        pager.rows_stream::<R>().map_err(corrupt)?.try_collect().await.map_err(unavailable)
    }

    /// Runs a lightweight transaction and answers whether it applied.
    async fn conditional(&self, statement: &PreparedStatement, values: impl SerializeRow) -> StoreResult<bool> {
        applied(self.run(statement, values).await?)
    }
}

/// Column 0 of a lightweight transaction's result, `[applied]`; the other columns differ
/// between ScyllaDB and Cassandra, so they are never read.
fn applied(result: QueryResult) -> StoreResult<bool> {
    let rows = result.into_rows_result().map_err(corrupt)?;
    let row: Row = rows.first_row().map_err(corrupt)?;
    match row.columns.first() {
        Some(Some(CqlValue::Boolean(applied))) => Ok(*applied),
        other => Err(StoreError::Corrupt(format!("a conditional statement answered {other:?} for [applied]"))),
    }
}

struct Preparer<'a> {
    session: &'a Session,
    settings: &'a CqlSettings,
}

impl Preparer<'_> {
    async fn prepare(&self, cql: &str, kind: Kind) -> StoreResult<PreparedStatement> {
        let mut statement = self
            .session
            .prepare(cql)
            .await
            .map_err(|e| StoreError::Unavailable(format!("cannot prepare `{cql}`: {e}")))?;
        statement.set_consistency(self.settings.consistency);
        statement.set_request_timeout(Some(self.settings.request_timeout));
        match kind {
            Kind::Idempotent => statement.set_is_idempotent(true),
            Kind::Conditional => {
                statement.set_serial_consistency(Some(self.settings.serial_consistency));
                statement.set_is_idempotent(false);
            }
        }
        Ok(statement)
    }
}

/// Creates the keyspace from config when it does not exist. On ScyllaDB (told apart by its
/// `system.scylla_local` table) the tablets option is added when configured.
async fn ensure_keyspace(session: &Session, settings: &CqlSettings) -> StoreResult<()> {
    if !settings.keyspace.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || settings.keyspace.is_empty() {
        return Err(StoreError::Unavailable(format!("invalid keyspace name {:?}", settings.keyspace)));
    }
    let is_scylla = session.query_unpaged("SELECT key FROM system.scylla_local LIMIT 1", ()).await.is_ok();
    let tablets = match (is_scylla, settings.tablets) {
        (true, Some(enabled)) => format!(" AND tablets = {{'enabled': {enabled}}}"),
        _ => String::new(),
    };
    let cql = format!(
        "CREATE KEYSPACE IF NOT EXISTS \"{}\" WITH replication = {}{tablets}",
        settings.keyspace, settings.replication
    );
    session.query_unpaged(cql, ()).await.map_err(unavailable)?;
    session.await_schema_agreement().await.map_err(unavailable)?;
    Ok(())
}

/// Runs each statement of `schema.cql` (all `IF NOT EXISTS`) in the session's keyspace.
async fn apply_schema(session: &Session) -> StoreResult<()> {
    for statement in schema_statements(SCHEMA) {
        session
            .query_unpaged(statement.as_str(), ())
            .await
            .map_err(|e| StoreError::Unavailable(format!("schema statement failed: {e}\n{statement}")))?;
    }
    session.await_schema_agreement().await.map_err(unavailable)?;
    Ok(())
}

/// Columns added to tables after they first shipped: `schema.cql` creates new tables with
/// them, and a keyspace made before gets them here (CQL has no `ADD IF NOT EXISTS`).
const ADDED_COLUMNS: &[(&str, &str, &str)] = &[
    ("messages", "image", "text"),
    ("memories", "pinned", "boolean"),
    ("conversations", "last_image", "text"),
    ("characters", "status", "text"),
    ("characters", "status_at", "bigint"),
    ("characters", "system_prompt", "text"),
    ("characters", "post_history_instructions", "text"),
    ("characters", "example_dialogue", "text"),
    ("characters", "alternate_greetings", "list<text>"),
    ("characters", "has_lorebook", "boolean"),
    ("characters", "card_json", "text"),
    ("characters", "draft", "text"),
    ("characters", "imported", "boolean"),
    ("characters", "review_reason", "text"),
    ("characters", "media_ids", "list<text>"),
    ("characters", "created_at", "bigint"),
    ("characters", "updated_at", "bigint"),
    ("group_messages", "versions", "list<text>"),
    ("group_messages", "chosen", "int"),
    ("blog_posts", "publish_at", "bigint"),
    ("blog_posts", "unpublished", "boolean"),
    ("blog_posts_by_date", "publish_at", "bigint"),
    ("blog_posts_by_date", "unpublished", "boolean"),
];

async fn add_new_columns(session: &Session, keyspace: &str) -> StoreResult<()> {
    let mut added = false;
    for (table, column, kind) in ADDED_COLUMNS {
        let found = session
            .query_unpaged(
                "SELECT column_name FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ? AND column_name = ?",
                (keyspace, *table, *column),
            )
            .await
            .map_err(unavailable)?
            .into_rows_result()
            .map_err(corrupt)?
            .rows_num();
        if found == 0 {
            let cql = format!("ALTER TABLE {table} ADD {column} {kind}");
            session.query_unpaged(cql.as_str(), ()).await.map_err(unavailable)?;
            added = true;
        }
    }
    if added {
        session.await_schema_agreement().await.map_err(unavailable)?;
    }
    Ok(())
}

/// The statements of a CQL file: comments (`--` to the end of a line) dropped, split at
/// semicolons. The schema holds no string literal with `;` or `--` in it.
pub fn schema_statements(text: &str) -> Vec<String> {
    let without_comments: String =
        text.lines().map(|line| line.split("--").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    without_comments.split(';').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

#[async_trait]
impl Health for CqlStore {
    async fn ping(&self) -> StoreResult<()> {
        self.run(&self.statements.ping, ()).await.map(|_| ())
    }

    fn round_trips(&self) -> u64 {
        self.round_trips.load(std::sync::atomic::Ordering::Relaxed)
    }
}

fn unavailable(error: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(error.to_string())
}

fn corrupt(error: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(error.to_string())
}

/// The longest TTL written: 5 years. Servers refuse more than 20 years, and Cassandra in
/// its default storage compatibility mode refuses any expiry past 2038-01-19.
const MAX_TTL_SECS: i64 = 157_680_000;

/// Seconds left until `expires_at`, as a CQL TTL: at least 1 (0 would mean "never") and
/// at most `MAX_TTL_SECS` (the row's own expiry column still decides when it ends).
fn ttl_until(expires_at: i64, now: i64) -> i32 {
    (expires_at - now).clamp(1, MAX_TTL_SECS) as i32
}

/// Seconds since the Unix epoch, by the clock of this node.
fn now_seconds() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_file_splits_into_create_statements() {
        let statements = schema_statements(SCHEMA);
        assert!(statements.len() >= 15, "{statements:?}");
        for statement in &statements {
            assert!(statement.starts_with("CREATE TABLE IF NOT EXISTS"), "{statement}");
            assert!(!statement.to_lowercase().contains("tablets"), "engine-only syntax in {statement}");
        }
    }

    #[test]
    fn consistency_names_are_read() {
        assert_eq!(parse_consistency("local_quorum"), Some(Consistency::LocalQuorum));
        assert_eq!(parse_consistency("nope"), None);
        assert_eq!(parse_serial_consistency("LOCAL_SERIAL"), Some(SerialConsistency::LocalSerial));
    }

    #[test]
    fn a_ttl_is_never_zero_or_negative() {
        assert_eq!(ttl_until(100, 40), 60);
        assert_eq!(ttl_until(10, 40), 1);
        assert_eq!(ttl_until(i64::MAX / 2, 0), MAX_TTL_SECS as i32);
    }
}
