//! The multi-node topology on a CQL store: two `amora` processes on loopback sharing one
//! Cassandra (or ScyllaDB) keyspace and one Redis, as docker-compose.yml runs them. The
//! CQL server is the one at `AMORA_CQL_NODE`, which the test command starts
//! (scripts/lib/cassandra.sh); each test gets a keyspace of its own.

use std::time::Duration;

use amora_store::Store;
use amora_store::cql::{CqlSettings, CqlStore};
use futures_util::future::join_all;
use serde_json::json;

use crate::accounts::sign_in_by_email;
use crate::chat::{FREE_CHARACTER, REPLY, contents, messages, model_path, named, send, until_reply_ends};
use crate::cluster::{Redis, ServerProcess, data_dir, make_user};
use crate::helpers::TestApp;
use crate::support::SmtpSink;

pub(crate) fn cql_node() -> String {
    std::env::var("AMORA_CQL_NODE").expect(
        "AMORA_CQL_NODE is not set: start a CQL server with `scripts/lib/cassandra.sh start DIR` \
         and export AMORA_CQL_NODE=127.0.0.1:9042 (scripts/test does both)",
    )
}

/// A keyspace name no test used before: `<prefix>_<12 random characters>`.
pub(crate) fn new_keyspace(prefix: &str) -> String {
    format!("{prefix}_{}", &amora_server::auth::random_token().to_lowercase().replace(['-', '_'], "")[..12])
}

/// The settings that put a node on `keyspace` at the CQL server `node` (the node creates
/// the keyspace and applies the schema if they are not there yet).
pub(crate) fn cql_env(node: &str, keyspace: &str) -> Vec<(&'static str, String)> {
    vec![
        ("AMORA_STORE__KIND", "scylla".to_owned()),
        ("AMORA_STORE__SCYLLA__NODES", node.to_owned()),
        ("AMORA_STORE__SCYLLA__KEYSPACE", keyspace.to_owned()),
        ("AMORA_STORE__SCYLLA__REPLICATION", "{'class': 'SimpleStrategy', 'replication_factor': 1}".to_owned()),
    ]
}

/// Two nodes on a new keyspace, the store they share, and their API helpers.
struct Cluster {
    a: ServerProcess,
    b: ServerProcess,
    store: Store,
    _redis: Redis,
    _dirs: Vec<tempfile::TempDir>,
}

impl Cluster {
    async fn start(extra: &[(&str, String)]) -> Self {
        let redis = Redis::start().await;
        let node = cql_node();
        let keyspace = new_keyspace("cluster");
        let mut env = vec![("AMORA_REDIS__URL", redis.url())];
        env.extend(cql_env(&node, &keyspace));
        env.extend(extra.iter().cloned());
        // Separate data folders: nothing but the CQL keyspace and Redis is shared.
        let (temp_a, dir_a) = data_dir();
        let (temp_b, dir_b) = data_dir();
        // A creates the keyspace, applies the schema and seeds; B finds them in place.
        let a = ServerProcess::start(&dir_a, &env).await;
        let b = ServerProcess::start(&dir_b, &env).await;
        let store = CqlStore::connect(CqlSettings::local(&node, &keyspace)).await.unwrap().into_store();
        Self { a, b, store, _redis: redis, _dirs: vec![temp_a, temp_b] }
    }

    fn api(&self, node: &ServerProcess) -> TestApp {
        TestApp::remote(node.url(""), self.store.clone())
    }
}

#[actix_rt::test]
async fn a_user_signed_in_on_node_a_is_signed_in_on_node_b() {
    let sink = SmtpSink::start();
    let cluster = Cluster::start(&[("AMORA_MAIL__SMTP_URL", sink.url())]).await;
    let (a, b) = (cluster.api(&cluster.a), cluster.api(&cluster.b));

    let voucher = sign_in_by_email(&a, &sink, "nina@example.com").await;
    let on_b = b.user_info_as(&voucher).await.data;
    assert_eq!(on_b["email"], "nina@example.com");
    let user_no = on_b["userNo"].as_str().unwrap().to_owned();

    // A password set through B signs in through A; signing out on A ends the session on B.
    assert_eq!(b.set_password(&voucher, None, "shared-pass").await.data, json!(true));
    let login = a.password_login(&user_no, "shared-pass").await;
    assert_eq!(login.code, 200, "{}", login.msg);
    let second = login.data["voucher"].as_str().unwrap().to_owned();
    assert_eq!(b.user_info_as(&second).await.data["userNo"], user_no.as_str());
    a.sign_out(&second).await;
    // B holds the sessions it has read (docs/security.md "Sessions held in memory") until
    // A's notice arrives through Redis, a few milliseconds after the sign-out answered.
    let ended = std::time::Instant::now();
    while b.user_info_as(&second).await.data != serde_json::Value::Null {
        assert!(ended.elapsed() < std::time::Duration::from_secs(2), "B still signs the ended session in");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(b.user_info_as(&voucher).await.data["userNo"], user_no.as_str(), "the other session lives on");

    // Both nodes list the same seeded catalogue from the shared keyspace.
    let cards = |app: &TestApp| {
        let app = TestApp::remote(app.address.clone(), cluster.store.clone());
        async move { crate::helpers::ids(&app.character_list(1, 30, 0).await.data) }
    };
    assert_eq!(cards(&a).await, cards(&b).await);
    assert_eq!(cards(&a).await.len(), 30);
}

#[actix_rt::test]
async fn a_chat_written_through_node_a_is_read_through_node_b() {
    let cluster = Cluster::start(&[
        ("AMORA_CHAT__MODEL__EMBEDDED__MODEL_PATH", model_path()),
        ("AMORA_CHAT__MAX_REPLY_TOKENS", "12".to_owned()),
        ("AMORA_CHAT__MEMORY_EVERY_TURNS", "0".to_owned()),
    ])
    .await;
    let (a, b) = (cluster.api(&cluster.a), cluster.api(&cluster.b));
    let (_, _, voucher) = make_user(&cluster.store, "Omar").await;

    let mut on_a = cluster.a.socket(&voucher).await;
    on_a.wait_for("hello", Duration::from_secs(10)).await.unwrap();
    // The socket on B hears the reply too: events cross nodes through Redis.
    let mut on_b = cluster.b.socket(&voucher).await;
    on_b.wait_for("hello", Duration::from_secs(10)).await.unwrap();
    send(&mut on_a, FREE_CHARACTER, "Hello from node A").await;
    let done = named(&until_reply_ends(&mut on_a).await, "chatDone")[0]["data"]["message"].clone();
    assert!(!done["content"].as_str().unwrap().is_empty());
    assert_eq!(on_b.wait_for("chatDone", REPLY).await.unwrap()["data"]["message"], done);

    let page = messages(&b, &voucher, FREE_CHARACTER, None, 30).await;
    let texts = contents(&page);
    assert_eq!(texts.len(), 3, "greeting, message, reply: {texts:?}");
    assert_eq!(texts[0], done["content"].as_str().unwrap());
    assert_eq!(texts[1], "Hello from node A");
    assert_eq!(page["creditsLeft"], 29);

    // A memory added on B is listed on A; the chat list agrees on both.
    let memory = json!({ "characterId": FREE_CHARACTER, "content": "Omar lives in Lisbon" });
    assert_eq!(b.post_api_as(Some(&voucher), "/user/v1/memory/addMemory", memory).await.0.code, 200);
    // B's actor tells the other nodes through Redis after it answers, so A's actor may still
    // hold the memories it read before for a moment: the change must reach A, within seconds.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let listed = a
            .post_api_as(Some(&voucher), "/user/v1/memory/getMemoryList", json!({ "characterId": FREE_CHARACTER }))
            .await
            .0;
        if listed.data.to_string().contains("Omar lives in Lisbon") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the memory added on B never reached A: {}", listed.data);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let chats_a = a.post_api_as(Some(&voucher), "/user/v1/chat/getChatList", json!({})).await.0.data;
    let chats_b = b.post_api_as(Some(&voucher), "/user/v1/chat/getChatList", json!({})).await.0.data;
    assert_eq!(chats_a, chats_b);
}

#[actix_rt::test]
async fn concurrent_debits_over_two_nodes_never_overdraw_the_cql_ledger() {
    let cluster = Cluster::start(&[]).await;
    let client = reqwest::Client::new();
    let mut users = Vec::new();
    for name in ["Pia", "Quin"] {
        let (user_id, user_no, _) = make_user(&cluster.store, name).await;
        assert_eq!(cluster.a.admin_credit(&client, &user_no, 60, Some("opening")).await.0, 200);
        users.push((user_id, user_no));
    }
    // 200 debits of 1 coin, 100 per user, alternating nodes, all in flight at once.
    let debits = (0..200).map(|n| {
        let node = if n % 2 == 0 { &cluster.a } else { &cluster.b };
        let (_, user_no) = &users[(n / 2) % 2];
        let client = client.clone();
        async move { node.admin_credit(&client, user_no, -1, Some(&format!("debit-{n}"))).await.0 }
    });
    let statuses = join_all(debits).await;
    let applied = statuses.iter().filter(|s| **s == 200).count();
    assert_eq!(applied + statuses.iter().filter(|s| **s == 409).count(), 200, "{statuses:?}");
    assert_eq!(applied, 120, "exactly the 2 × 60 coins could be spent");

    // Replaying a txn_id on the other node changes nothing.
    let (_, replay) = cluster.b.admin_credit(&client, &users[0].1, 5, Some("opening")).await;
    assert_eq!(replay["outcome"], "replayed");
    for (user_id, _) in &users {
        let rows = cluster.store.ledger.rows(user_id).await.unwrap();
        let balance = cluster.store.users.by_id(user_id).await.unwrap().unwrap().coin;
        assert_eq!(
            balance,
            rows.iter().map(|r| r.delta).sum::<amora_domain::money::Coins>(),
            "balance = sum of the rows"
        );
        assert_eq!(balance.units(), 0, "no balance went below zero");
        assert_eq!(rows.len(), 61);
    }
}
