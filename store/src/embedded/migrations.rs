//! Schema migrations of the embedded store, applied in order at start-up. Append new
//! steps; never edit one that has shipped.

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

use crate::StoreError;

const STEPS: &[&str] = &[
    // 1: character catalogue, media objects, browser telemetry.
    "CREATE TABLE characters (
        character_id   TEXT PRIMARY KEY,
        gender         INTEGER NOT NULL,
        restricted     INTEGER NOT NULL,
        rank           INTEGER NOT NULL,
        name           TEXT NOT NULL,
        age            INTEGER NOT NULL,
        introduction   TEXT NOT NULL,
        photo          TEXT NOT NULL,
        image_list     TEXT NOT NULL,
        used_type      INTEGER NOT NULL,
        personality    TEXT NOT NULL,
        scenario       TEXT NOT NULL,
        greeting       TEXT NOT NULL,
        tags           TEXT NOT NULL,
        creator_id     TEXT
    ) STRICT;
    CREATE INDEX characters_by_gender_rank ON characters (gender, rank, character_id);

    CREATE TABLE media (
        media_id       TEXT PRIMARY KEY,
        content_type   TEXT NOT NULL,
        bytes          BLOB NOT NULL
    ) STRICT;

    CREATE TABLE page_events (
        event_id       INTEGER PRIMARY KEY AUTOINCREMENT,
        received_at    INTEGER NOT NULL DEFAULT (unixepoch()),
        location TEXT NOT NULL, screen TEXT NOT NULL, version TEXT NOT NULL,
        user_id TEXT NOT NULL, time TEXT NOT NULL, client TEXT NOT NULL, system TEXT NOT NULL,
        utm_source TEXT NOT NULL, utm_medium TEXT NOT NULL, distinct_id TEXT NOT NULL,
        info TEXT NOT NULL
    ) STRICT;

    CREATE TABLE error_reports (
        report_id      INTEGER PRIMARY KEY AUTOINCREMENT,
        received_at    INTEGER NOT NULL DEFAULT (unixepoch()),
        error_type TEXT NOT NULL, message TEXT NOT NULL, user_agent TEXT NOT NULL,
        url TEXT NOT NULL, user_id TEXT NOT NULL, timestamp INTEGER NOT NULL, stack TEXT NOT NULL
    ) STRICT;",
    // 2: accounts, sessions, sign-in links, deletion blocks.
    "CREATE TABLE users (
        user_id           TEXT PRIMARY KEY,
        user_no           TEXT NOT NULL UNIQUE,
        user_name         TEXT NOT NULL,
        email             TEXT UNIQUE,
        discord_email     TEXT,
        apple_email       TEXT,
        google_subject    TEXT UNIQUE,
        discord_id        TEXT UNIQUE,
        user_vip_type     INTEGER NOT NULL DEFAULT 0,
        coin              INTEGER NOT NULL DEFAULT 0,
        user_avatar       TEXT NOT NULL DEFAULT '',
        utm_source        TEXT NOT NULL DEFAULT '',
        interested_gender INTEGER NOT NULL DEFAULT 0,
        nsfw              INTEGER NOT NULL DEFAULT 0,
        language          TEXT NOT NULL DEFAULT 'en',
        password_hash     TEXT,
        created_at        INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE sessions (
        token_hash  TEXT PRIMARY KEY,
        user_id     TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
        created_at  INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX sessions_by_user ON sessions (user_id);

    CREATE TABLE sign_in_links (
        token_hash  TEXT PRIMARY KEY,
        email       TEXT NOT NULL,
        expires_at  INTEGER NOT NULL,
        used_at     INTEGER
    ) STRICT;

    CREATE TABLE deletion_blocks (
        email       TEXT PRIMARY KEY,
        until       INTEGER NOT NULL
    ) STRICT;",
    // 3: the coin ledger, append-only, one row per idempotency id and account.
    "CREATE TABLE ledger (
        user_id        TEXT NOT NULL,
        txn_id         TEXT NOT NULL,
        delta          INTEGER NOT NULL,
        reason         TEXT NOT NULL,
        balance_after  INTEGER NOT NULL,
        created_at     INTEGER NOT NULL,
        seq            INTEGER NOT NULL,
        PRIMARY KEY (user_id, txn_id)
    ) STRICT;
    CREATE INDEX ledger_by_user_seq ON ledger (user_id, seq);",
    // 4: conversations, long-term memories, daily free message credits.
    "CREATE TABLE messages (
        user_id        TEXT NOT NULL,
        character_id   TEXT NOT NULL,
        message_id     INTEGER NOT NULL,
        speaker        TEXT NOT NULL,
        content        TEXT NOT NULL,
        PRIMARY KEY (user_id, character_id, message_id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE memories (
        user_id        TEXT NOT NULL,
        character_id   TEXT NOT NULL,
        memory_id      INTEGER NOT NULL,
        content        TEXT NOT NULL,
        origin         TEXT NOT NULL,
        PRIMARY KEY (user_id, character_id, memory_id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE message_credits (
        user_id        TEXT NOT NULL,
        day            INTEGER NOT NULL,
        used           INTEGER NOT NULL,
        PRIMARY KEY (user_id, day)
    ) STRICT, WITHOUT ROWID;",
    // 5: accounts an operator suspended.
    "CREATE TABLE suspensions (
        user_id        TEXT PRIMARY KEY,
        since          INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;",
    // 6: blog posts, reports, and the characters the operator took out of the catalogue.
    "CREATE TABLE blog_posts (
        post_key       TEXT PRIMARY KEY,
        title          TEXT NOT NULL,
        description    TEXT NOT NULL,
        date           TEXT NOT NULL,
        cover          TEXT NOT NULL,
        markdown       TEXT NOT NULL,
        html           TEXT NOT NULL
    ) STRICT;
    CREATE INDEX blog_posts_by_date ON blog_posts (date DESC, post_key);

    CREATE TABLE reports (
        report_id      INTEGER PRIMARY KEY,
        reporter_id    TEXT NOT NULL,
        character_id   TEXT NOT NULL,
        message_id     INTEGER,
        reason         TEXT NOT NULL,
        note           TEXT NOT NULL,
        created_at     INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE hidden_characters (
        character_id   TEXT PRIMARY KEY,
        hidden_at      INTEGER NOT NULL DEFAULT (unixepoch())
    ) STRICT;",
    // 7: the tag index of the catalogue (getCharacterList's `tags`): one row per character
    // and folded (lower-case) tag, kept by the character upsert and removed with the
    // character. Existing characters are indexed here; SQLite's lower() folds ASCII only,
    // which covers every tag written before this step (the seeded catalogue's).
    "CREATE TABLE character_tags (
        tag            TEXT NOT NULL,
        character_id   TEXT NOT NULL REFERENCES characters (character_id) ON DELETE CASCADE,
        PRIMARY KEY (tag, character_id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX character_tags_by_character ON character_tags (character_id);
    INSERT OR IGNORE INTO character_tags (tag, character_id)
        SELECT lower(trim(tag.value)), c.character_id FROM characters c, json_each(c.tags) tag
        WHERE trim(tag.value) <> '';",
    // 8: payments (issue 14): orders, the claims that make a provider transaction count
    // once, and plans as subscriptions. Amounts are integer minor units with the currency;
    // routes, states and kinds are written by their `code()`, a plan by its product id. A
    // provider's reference is unique per route once set (partial indexes skip the unset).
    "CREATE TABLE orders (
        order_id          TEXT PRIMARY KEY,
        user_id           TEXT NOT NULL,
        product           TEXT NOT NULL,
        route             TEXT NOT NULL,
        amount_minor      INTEGER NOT NULL CHECK (amount_minor >= 0),
        currency          TEXT NOT NULL,
        state             TEXT NOT NULL,
        provider_ref      TEXT,
        subscription_id   TEXT,
        created_at        INTEGER NOT NULL,
        updated_at        INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX orders_by_user ON orders (user_id, created_at DESC, order_id DESC);
    CREATE UNIQUE INDEX orders_by_provider_ref ON orders (route, provider_ref) WHERE provider_ref IS NOT NULL;

    CREATE TABLE payment_claims (
        route             TEXT NOT NULL,
        space             TEXT NOT NULL,
        provider_txn_id   TEXT NOT NULL,
        kind              TEXT NOT NULL,
        order_id          TEXT NOT NULL,
        claimed_at        INTEGER NOT NULL,
        PRIMARY KEY (route, space, provider_txn_id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX payment_claims_by_order ON payment_claims (order_id, claimed_at);

    CREATE TABLE subscriptions (
        subscription_id     TEXT PRIMARY KEY,
        user_id             TEXT NOT NULL,
        plan                TEXT NOT NULL,
        route               TEXT NOT NULL,
        provider_ref        TEXT,
        state               TEXT NOT NULL,
        started_at          INTEGER NOT NULL,
        current_period_end  INTEGER NOT NULL,
        created_at          INTEGER NOT NULL,
        updated_at          INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX subscriptions_by_user ON subscriptions (user_id, created_at DESC, subscription_id DESC);
    CREATE UNIQUE INDEX subscriptions_by_provider_ref ON subscriptions (route, provider_ref)
        WHERE provider_ref IS NOT NULL;",
    // 9: generated images (issue 16): the gallery, one row per image keyed by owner and
    // time-ordered id; a shared image carries its feed id, and the feed is read from a
    // partial index over those. Messages may show a gallery image ("<id> <w> <h>").
    "CREATE TABLE gallery (
        user_id           TEXT NOT NULL,
        image_id          INTEGER NOT NULL,
        job_id            INTEGER NOT NULL,
        character_id      TEXT,
        character_name    TEXT,
        prompt            TEXT NOT NULL,
        scene             TEXT,
        outfit            TEXT,
        pose              TEXT,
        style             TEXT,
        width             INTEGER NOT NULL,
        height            INTEGER NOT NULL,
        nsfw              INTEGER NOT NULL,
        illustration      INTEGER NOT NULL,
        restricted        INTEGER NOT NULL,
        feed_id           INTEGER,
        PRIMARY KEY (user_id, image_id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX gallery_by_character ON gallery (user_id, character_id, image_id);
    CREATE UNIQUE INDEX gallery_feed ON gallery (feed_id) WHERE feed_id IS NOT NULL;
    ALTER TABLE messages ADD COLUMN image TEXT;",
    // 10: voice clips (issue 16) per user and
    // conversation message. The attempt and its state are claimed by compare-and-set; the
    // parts' audio is in `media`.
    "CREATE TABLE voice_clips (
        user_id        TEXT NOT NULL,
        character_id   TEXT NOT NULL,
        message_id     INTEGER NOT NULL,
        attempt        INTEGER NOT NULL,
        state          TEXT NOT NULL,
        started_at     INTEGER NOT NULL,
        PRIMARY KEY (user_id, character_id, message_id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE voice_parts (
        user_id        TEXT NOT NULL,
        character_id   TEXT NOT NULL,
        message_id     INTEGER NOT NULL,
        attempt        INTEGER NOT NULL,
        idx            INTEGER NOT NULL,
        media_id       TEXT NOT NULL,
        duration_ms    INTEGER NOT NULL,
        PRIMARY KEY (user_id, character_id, message_id, attempt, idx)
    ) STRICT, WITHOUT ROWID;",
    // 11: created characters (issue 17). Every character gets its status (seeded ones are
    // public), the time it took it, and its card extras; a created one (draft not null)
    // also its draft, review reason, media and times. The creator index serves My AI and
    // account deletion, the partial index the review queue, oldest submission first.
    "ALTER TABLE characters ADD COLUMN status TEXT NOT NULL DEFAULT 'public';
    ALTER TABLE characters ADD COLUMN status_at INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE characters ADD COLUMN system_prompt TEXT NOT NULL DEFAULT '';
    ALTER TABLE characters ADD COLUMN post_history_instructions TEXT NOT NULL DEFAULT '';
    ALTER TABLE characters ADD COLUMN example_dialogue TEXT NOT NULL DEFAULT '';
    ALTER TABLE characters ADD COLUMN alternate_greetings TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE characters ADD COLUMN has_lorebook INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE characters ADD COLUMN card_json TEXT;
    ALTER TABLE characters ADD COLUMN draft TEXT;
    ALTER TABLE characters ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE characters ADD COLUMN review_reason TEXT;
    ALTER TABLE characters ADD COLUMN media_ids TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE characters ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE characters ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX characters_by_creator ON characters (creator_id, created_at DESC, character_id)
        WHERE draft IS NOT NULL;
    CREATE INDEX characters_in_review ON characters (status_at, character_id) WHERE status = 'review';",
    // 12: the user's personas (issue 18): one for every character (character_id '') and at
    // most one per character; they go with the account.
    "CREATE TABLE user_personas (
        user_id       TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
        character_id  TEXT NOT NULL,
        name          TEXT NOT NULL,
        description   TEXT NOT NULL,
        PRIMARY KEY (user_id, character_id)
    ) STRICT;",
    // 13: reply versions (swipes, issue 18): every text written for the reply to one user
    // message (the parent), by index, and which one the conversation holds.
    "CREATE TABLE reply_alternatives (
        user_id        TEXT NOT NULL,
        character_id   TEXT NOT NULL,
        parent_id      INTEGER NOT NULL,
        idx            INTEGER NOT NULL,
        content        TEXT NOT NULL,
        PRIMARY KEY (user_id, character_id, parent_id, idx)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE reply_choices (
        user_id        TEXT NOT NULL,
        character_id   TEXT NOT NULL,
        parent_id      INTEGER NOT NULL,
        chosen         INTEGER NOT NULL,
        PRIMARY KEY (user_id, character_id, parent_id)
    ) STRICT, WITHOUT ROWID;",
    // 14: recall beyond the window (issue 18): pinned memories, and each pair's recall
    // index, shaped like the CQL tables: a document per indexed message or memory (its
    // length and its terms, so that taking it out removes exactly what was put in) and a
    // posting per term and document. Conversations stored before are not indexed.
    "ALTER TABLE memories ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;

    CREATE TABLE recall_docs (
        user_id        TEXT NOT NULL,
        character_id   TEXT NOT NULL,
        kind           TEXT NOT NULL,
        doc_id         INTEGER NOT NULL,
        doc_length     INTEGER NOT NULL,
        terms          TEXT NOT NULL,
        PRIMARY KEY (user_id, character_id, kind, doc_id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE recall_postings (
        user_id        TEXT NOT NULL,
        character_id   TEXT NOT NULL,
        term           TEXT NOT NULL,
        kind           TEXT NOT NULL,
        doc_id         INTEGER NOT NULL,
        tf             INTEGER NOT NULL,
        doc_length     INTEGER NOT NULL,
        PRIMARY KEY (user_id, character_id, term, kind, doc_id)
    ) STRICT, WITHOUT ROWID;",
    // 15: the catalogue at scale (issue 19, store/src/listing.rs). The listing of each
    // gender (public characters by rank, then id, with the restricted flag for counting)
    // and the block counts over it that find page N without stepping over N pages. The
    // blocks are counted from the listing on first use.
    "CREATE INDEX characters_listed ON characters (gender, rank, character_id, restricted) WHERE status = 'public';
    CREATE TABLE character_card_blocks (
        gender         INTEGER NOT NULL,
        fence_rank     INTEGER NOT NULL,
        fence_id       TEXT NOT NULL,
        card_rows      INTEGER NOT NULL,
        members        INTEGER NOT NULL,
        everyone       INTEGER NOT NULL,
        PRIMARY KEY (gender, fence_rank, fence_id)
    ) STRICT, WITHOUT ROWID;",
    // 16: the moderation log (issue 27): what moderation refused, by time-ordered id, read
    // newest first by the operator.
    "CREATE TABLE moderation_log (
        event_id       INTEGER PRIMARY KEY,
        at             INTEGER NOT NULL,
        user_id        TEXT,
        surface        TEXT NOT NULL,
        policy         TEXT NOT NULL,
        refusal        TEXT NOT NULL,
        layer          TEXT NOT NULL,
        excerpt        TEXT NOT NULL
    ) STRICT;",
    // 17: reports of feed images and the holds that keep a reported image out of the feed
    // until the operator decides (issue 27), keyed by the image (owner and id) so that they
    // outlast taking it out of the feed and sharing it again.
    "CREATE TABLE feed_reports (
        user_id        TEXT NOT NULL,
        image_id       INTEGER NOT NULL,
        reporter_id    TEXT NOT NULL,
        report_id      INTEGER NOT NULL,
        reason         TEXT NOT NULL,
        note           TEXT NOT NULL,
        created_at     INTEGER NOT NULL,
        PRIMARY KEY (user_id, image_id, reporter_id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE feed_holds (
        user_id        TEXT NOT NULL,
        image_id       INTEGER NOT NULL,
        held_at        INTEGER NOT NULL,
        PRIMARY KEY (user_id, image_id)
    ) STRICT, WITHOUT ROWID;",
    // 18: reversals of orders (refunds, chargebacks; issue 28): what each gave back and
    // took back, so that an order's reversals never take back more than it credited.
    "CREATE TABLE order_reversals (
        order_id         TEXT NOT NULL,
        provider_txn_id  TEXT NOT NULL,
        refunded_minor   INTEGER NOT NULL,
        coins            INTEGER NOT NULL,
        at               INTEGER NOT NULL,
        PRIMARY KEY (order_id, provider_txn_id)
    ) STRICT, WITHOUT ROWID;",
    // 19: debits whose outcome is not stored yet, and each node run's lease (issue 28,
    // store/src/pending.rs): a node killed mid-job leaves rows that another run settles.
    "CREATE TABLE pending_debits (
        debit_id       TEXT PRIMARY KEY,
        user_id        TEXT NOT NULL,
        kind           TEXT NOT NULL,
        detail         TEXT NOT NULL,
        owner          TEXT NOT NULL,
        created_at     INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE node_leases (
        owner          TEXT PRIMARY KEY,
        until          INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;",
    // 20: group chats (issue 31): each group is its owner's (members in seating order as
    // JSON `[[characterId, muted, talkativeness], ...]`, written whole), and its messages by
    // time-ordered id (speaker '' for the user, else the character's id). They go with the
    // account, and the messages with their group.
    "CREATE TABLE chat_groups (
        owner_id              TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
        group_id              TEXT NOT NULL,
        name                  TEXT NOT NULL,
        scenario              TEXT NOT NULL,
        activation            TEXT NOT NULL,
        allow_self_responses  INTEGER NOT NULL,
        talk_cap              INTEGER NOT NULL,
        members               TEXT NOT NULL,
        created_at            INTEGER NOT NULL,
        updated_at            INTEGER NOT NULL,
        PRIMARY KEY (owner_id, group_id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE group_messages (
        owner_id       TEXT NOT NULL,
        group_id       TEXT NOT NULL,
        message_id     INTEGER NOT NULL,
        speaker        TEXT NOT NULL,
        content        TEXT NOT NULL,
        PRIMARY KEY (owner_id, group_id, message_id),
        FOREIGN KEY (owner_id, group_id) REFERENCES chat_groups (owner_id, group_id) ON DELETE CASCADE
    ) STRICT, WITHOUT ROWID;",
    // 21: the versions of a group member's reply (swipes, issue 31): every text written for
    // it as a JSON array, oldest first ('[]' for a reply written once), and the index of the
    // one `content` holds.
    "ALTER TABLE group_messages ADD COLUMN versions TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE group_messages ADD COLUMN chosen INTEGER NOT NULL DEFAULT 0;",
    // 22: the operator console (issue 33): operator accounts (not users), their sessions,
    // the audit log of every console action, decisions on reports, and the published
    // versions of the legal texts.
    "CREATE TABLE operators (
        operator_id    TEXT PRIMARY KEY,
        email          TEXT NOT NULL UNIQUE,
        password_hash  TEXT NOT NULL,
        role           TEXT NOT NULL,
        totp_secret    TEXT NOT NULL,
        created_at     INTEGER NOT NULL,
        disabled_at    INTEGER
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE operator_sessions (
        token_hash     TEXT PRIMARY KEY,
        operator_id    TEXT NOT NULL REFERENCES operators (operator_id) ON DELETE CASCADE,
        created_at     INTEGER NOT NULL,
        expires_at     INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE operator_audit (
        entry_id       INTEGER PRIMARY KEY,
        operator_id    TEXT NOT NULL,
        action         TEXT NOT NULL,
        target         TEXT NOT NULL,
        reason         TEXT NOT NULL,
        outcome        TEXT NOT NULL,
        at             INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE report_decisions (
        report_id      INTEGER PRIMARY KEY,
        decision       TEXT NOT NULL,
        operator_id    TEXT NOT NULL,
        at             INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE legal_versions (
        doc            TEXT NOT NULL,
        lang           TEXT NOT NULL,
        published_at   INTEGER NOT NULL,
        last_modified  TEXT NOT NULL,
        body           TEXT NOT NULL,
        operator_id    TEXT NOT NULL,
        PRIMARY KEY (doc, lang, published_at)
    ) STRICT, WITHOUT ROWID;",
    // 23: the operator's Money desk (issue 33): every user's orders by time, and payment
    // notifications that failed after their signature was verified, kept whole for replay
    // (headers as a JSON array of [name, value] pairs; the replay columns null until one).
    "CREATE INDEX orders_by_created ON orders (created_at DESC, order_id DESC);

    CREATE TABLE failed_webhooks (
        delivery_id      INTEGER PRIMARY KEY,
        route            TEXT NOT NULL,
        headers          TEXT NOT NULL,
        query            TEXT NOT NULL,
        body             BLOB NOT NULL,
        error            TEXT NOT NULL,
        received_at      INTEGER NOT NULL,
        replayed_at      INTEGER,
        replay_applied   INTEGER,
        replay_outcome   TEXT
    ) STRICT;",
    // 24: the TOTP time steps an operator has signed in with, so one code signs in once
    // (RFC 6238 section 5.2); steps older than ten minutes are deleted as new ones come.
    "CREATE TABLE operator_totp_steps (
        operator_id    TEXT NOT NULL REFERENCES operators (operator_id) ON DELETE CASCADE,
        step           INTEGER NOT NULL,
        PRIMARY KEY (operator_id, step)
    ) STRICT, WITHOUT ROWID;",
    // 25: blog posts scheduled and unpublished from the operator console (issue 33): from
    // when a post shows (0: always, as every post before) and whether it was taken down.
    "ALTER TABLE blog_posts ADD COLUMN publish_at INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE blog_posts ADD COLUMN unpublished INTEGER NOT NULL DEFAULT 0;",
];

pub(super) fn apply(conn: &mut Connection) -> Result<(), StoreError> {
    let migrations = Migrations::new(STEPS.iter().map(|sql| M::up(sql)).collect());
    migrations.to_latest(conn).map_err(|e| StoreError::Unavailable(format!("schema migration failed: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migrations_are_valid() {
        let migrations = Migrations::new(STEPS.iter().map(|sql| M::up(sql)).collect());
        assert!(migrations.validate().is_ok());
    }

    #[test]
    fn the_tag_index_is_backfilled_and_leaves_with_its_character() {
        let mut conn = Connection::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        conn.pragma_update(None, "foreign_keys", "ON").unwrap_or_else(|e| panic!("{e}"));
        let migrations = Migrations::new(STEPS.iter().map(|sql| M::up(sql)).collect());
        migrations.to_version(&mut conn, 4).unwrap_or_else(|e| panic!("{e}"));
        conn.execute(
            "INSERT INTO characters VALUES ('gf-001', 0, 0, 1, 'Mia', 25, '', '', '[]', 0, '', '', '',
                '[\"Bold\", \" bold\", \"Shy\", \"\"]', 'u1')",
            [],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        migrations.to_latest(&mut conn).unwrap_or_else(|e| panic!("{e}"));
        let tags = |conn: &Connection| -> Vec<String> {
            let mut statement =
                conn.prepare("SELECT tag FROM character_tags ORDER BY tag").unwrap_or_else(|e| panic!("{e}"));
            let rows = statement.query_map([], |row| row.get(0)).unwrap_or_else(|e| panic!("{e}"));
            rows.map(|row| row.unwrap_or_else(|e| panic!("{e}"))).collect()
        };
        assert_eq!(tags(&conn), vec!["bold", "shy"], "folded, trimmed, once each, blanks skipped");
        // Deleting an account deletes its characters (accounts.rs); their tag rows go too.
        conn.execute("DELETE FROM characters WHERE creator_id = 'u1'", []).unwrap_or_else(|e| panic!("{e}"));
        assert!(tags(&conn).is_empty());
    }
}
