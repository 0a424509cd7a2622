//! Nodes converge after the event bus fails (issue 36): two real nodes share a store (a
//! SQLite file, or one CQL keyspace on the Cassandra at `AMORA_CQL_NODE`) and a loopback
//! Redis; a socket of the user is open on node B while credits go through
//! node A with Redis killed, or frozen with SIGSTOP. While the bus is down B shows the
//! ledger's balance within the staleness bound docs/architecture.md states (B reads the
//! store again instead of trusting what it holds, and its socket hears it unasked); once Redis is back, B's socket gets a
//! `tokenCount` with the true balance within the stated bound, and B's `getUserInfo`
//! agrees with the ledger. While Redis is frozen `/readyz` answers 503 promptly and names
//! the bus.

use std::time::{Duration, Instant};

use amora_domain::account::UserId;
use amora_store::Store;
use amora_store::cql::{CqlSettings, CqlStore};
use serde_json::{Value, json};

use crate::cluster::{Redis, ServerProcess, Socket, data_dir, make_user, shared_store};
use crate::cql_cluster::{cql_env, cql_node, new_keyspace};
use crate::creation::{StoreKind, cql_available};
use crate::helpers::TestApp;

const WAIT: Duration = Duration::from_secs(10);
/// docs/architecture.md: a node shows a balance at most 2 s older than the ledger's while
/// the bus is down, and pushes the true one within 2 s of the bus returning. The test
/// allows one more second for a loaded test machine (the old code never caught up at all).
const STATED_BOUND: Duration = Duration::from_secs(2);
const SLACK: Duration = Duration::from_secs(1);
/// A load balancer's probe gives up after this long (issue 36: answer within a second).
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

struct Outage {
    redis: Redis,
    a: ServerProcess,
    b: ServerProcess,
    store: Store,
    user_id: UserId,
    user_no: String,
    voucher: String,
    on_b: Socket,
    client: reqwest::Client,
    _temps: Vec<tempfile::TempDir>,
}

impl Outage {
    /// Two nodes on `kind`'s store, a user with 25 coins and a socket on B that has heard
    /// of them.
    async fn start(kind: StoreKind) -> Self {
        let redis = Redis::start().await;
        let mut env = vec![("AMORA_REDIS__URL", redis.url())];
        let (a, b, store, temps) = match kind {
            // One data folder: the SQLite file in it is the shared store.
            StoreKind::Sqlite => {
                let (temp, dir) = data_dir();
                let a = ServerProcess::start(&dir, &env).await;
                let b = ServerProcess::start(&dir, &env).await;
                (a, b, shared_store(&dir), vec![temp])
            }
            // A folder each; only the keyspace (and Redis) is shared, as cql_cluster.rs runs.
            StoreKind::Cql => {
                let (node, keyspace) = (cql_node(), new_keyspace("bus"));
                env.extend(cql_env(&node, &keyspace));
                let ((temp_a, dir_a), (temp_b, dir_b)) = (data_dir(), data_dir());
                let a = ServerProcess::start(&dir_a, &env).await;
                let b = ServerProcess::start(&dir_b, &env).await;
                let store = CqlStore::connect(CqlSettings::local(&node, &keyspace)).await.unwrap().into_store();
                (a, b, store, vec![temp_a, temp_b])
            }
        };
        let (user_id, user_no, voucher) = make_user(&store, "Ines").await;
        let mut on_b = b.socket(&voucher).await;
        on_b.wait_for("hello", WAIT).await.expect("hello on B");
        let client = reqwest::Client::new();
        let (status, _) = a.admin_credit(&client, &user_no, 25, Some("opening")).await;
        assert_eq!(status, 200);
        on_b.wait_for_coin(25, WAIT).await.expect("a tokenCount of 25 on B");
        Self { redis, a, b, store, user_id, user_no, voucher, on_b, client, _temps: temps }
    }

    /// 50 credits of one coin through A, each applied although the bus is down.
    async fn credit_fifty(&self, prefix: &str) {
        for n in 0..50 {
            let (status, answer) =
                self.a.admin_credit(&self.client, &self.user_no, 1, Some(&format!("{prefix}-{n}"))).await;
            assert_eq!((status, answer["outcome"].clone()), (200, json!("applied")), "credits go on without the bus");
        }
    }

    /// The ledger's sum, checked against the stored balance.
    async fn ledger_balance(&self) -> i64 {
        let rows = self.store.ledger.rows(&self.user_id).await.unwrap();
        let sum: i64 = rows.iter().map(|row| row.delta.units()).sum();
        let balance = self.store.users.by_id(&self.user_id).await.unwrap().unwrap().coin;
        assert_eq!(balance.units(), sum, "balance = sum of the ledger rows");
        sum
    }

    async fn coin_on_b(&self) -> Value {
        let b = TestApp::remote(self.b.url(""), self.store.clone());
        b.user_info_as(&self.voucher).await.data["coin"].clone()
    }

    /// B's `getUserInfo` shows `expected` within the stated bound (plus slack).
    async fn b_shows(&self, expected: i64, when: &str) {
        let deadline = Instant::now() + STATED_BOUND + SLACK;
        loop {
            let coin = self.coin_on_b().await;
            if coin == json!(expected) {
                return;
            }
            assert!(Instant::now() < deadline, "{when}: B's getUserInfo shows {coin}, the ledger {expected}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Reads what B's socket has so far, without waiting for more.
    async fn drain_b(&mut self) -> Vec<Value> {
        let mut events = Vec::new();
        while let Some(event) = self.on_b.next_event(Duration::from_millis(200)).await {
            events.push(event);
        }
        events
    }

    /// B's socket gets a `tokenCount` of `expected` within the stated bound (plus slack)
    /// from `since`.
    async fn b_socket_hears(&mut self, expected: i64, since: Instant) {
        let deadline = since + STATED_BOUND + SLACK;
        let mut heard = Vec::new();
        while Instant::now() < deadline {
            let Some(event) = self.on_b.next_event(deadline.saturating_duration_since(Instant::now())).await else {
                break;
            };
            if event["event"] == "tokenCount" && event["data"]["coin"] == expected {
                return;
            }
            heard.push(event);
        }
        panic!("B's socket got no tokenCount of {expected} within the bound after the bus returned; heard {heard:?}");
    }
}

/// `/readyz` within a probe's patience: its status and body, or a panic if it took longer.
async fn probe(node: &ServerProcess) -> (u16, String) {
    let client = reqwest::Client::builder().timeout(PROBE_TIMEOUT).build().unwrap();
    let started = Instant::now();
    let response =
        client.get(node.url("/readyz")).send().await.unwrap_or_else(|e| {
            panic!("/readyz did not answer within {PROBE_TIMEOUT:?} ({:?}): {e}", started.elapsed())
        });
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

#[actix_rt::test]
async fn a_node_catches_up_with_the_ledger_after_redis_was_killed() {
    killed(StoreKind::Sqlite).await;
}

#[actix_rt::test]
async fn a_node_catches_up_with_the_ledger_after_redis_was_killed_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    killed(StoreKind::Cql).await;
}

#[actix_rt::test]
async fn a_node_catches_up_with_the_ledger_after_redis_was_frozen() {
    frozen(StoreKind::Sqlite).await;
}

#[actix_rt::test]
async fn a_node_catches_up_with_the_ledger_after_redis_was_frozen_on_cql() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    frozen(StoreKind::Cql).await;
}

/// Redis killed while credits go through A, then started again.
async fn killed(kind: StoreKind) {
    let mut outage = Outage::start(kind).await;

    outage.redis.kill();
    outage.credit_fifty("killed").await;
    assert_eq!(outage.ledger_balance().await, 75);
    // B's socket hears it from the store, unasked, while the bus is down.
    outage.b_socket_hears(75, Instant::now()).await;
    // While the bus is down B does not trust what it holds for longer than the bound.
    outage.b_shows(75, "Redis down").await;

    // What B's socket heard during the outage is read now, so what follows came after.
    outage.drain_b().await;
    outage.redis.restart().await;
    let returned = Instant::now();
    outage.b_socket_hears(75, returned).await;
    outage.b_shows(75, "Redis back").await;
    assert_eq!(outage.ledger_balance().await, 75);

    // The bus carries news again: a credit on A reaches B's socket as before.
    outage.a.wait_ready(WAIT).await;
    outage.b.wait_ready(WAIT).await;
    let (status, _) = outage.a.admin_credit(&outage.client, &outage.user_no, 5, Some("after")).await;
    assert_eq!(status, 200);
    let since = Instant::now();
    outage.b_socket_hears(80, since).await;
}

/// Redis frozen with SIGSTOP while credits go through A, then continued.
async fn frozen(kind: StoreKind) {
    let mut outage = Outage::start(kind).await;

    outage.redis.pause();
    // Each probe answers within a second; within a few the bus is reported down by name.
    let deadline = Instant::now() + WAIT;
    for node in [&outage.a, &outage.b] {
        loop {
            let (status, body) = probe(node).await;
            if status == 503 {
                assert!(body.contains("event bus"), "/readyz names the failed dependency: {body}");
                break;
            }
            assert!(Instant::now() < deadline, "/readyz kept answering {status} with Redis frozen");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    outage.credit_fifty("frozen").await;
    assert_eq!(outage.ledger_balance().await, 75);
    outage.b_socket_hears(75, Instant::now()).await;
    outage.b_shows(75, "Redis frozen").await;
    let (status, body) = probe(&outage.b).await;
    assert_eq!(status, 503, "still frozen: {body}");

    outage.drain_b().await;
    outage.redis.resume();
    let returned = Instant::now();
    outage.b_socket_hears(75, returned).await;
    outage.b_shows(75, "Redis running again").await;
    assert_eq!(outage.ledger_balance().await, 75);
    outage.a.wait_ready(WAIT).await;
    outage.b.wait_ready(WAIT).await;
    let (status, _) = outage.a.admin_credit(&outage.client, &outage.user_no, 5, Some("after")).await;
    assert_eq!(status, 200);
    outage.b_socket_hears(80, Instant::now()).await;
}

/// Issue 35: a node answers sessions from memory only while the bus is healthy. With Redis
/// frozen, a sign-out on node A (its notice cannot reach B) is refused on node B within the
/// stated bound: B stops trusting what it holds once the bus is reported down, and reads
/// the store (docs/security.md "Sessions held in memory").
#[actix_rt::test]
async fn a_session_ended_while_redis_is_frozen_is_refused_on_the_other_node() {
    let outage = Outage::start(StoreKind::Sqlite).await;
    let (on_a, on_b) = (
        TestApp::remote(outage.a.url(""), outage.store.clone()),
        TestApp::remote(outage.b.url(""), outage.store.clone()),
    );
    // B has seen the session (the socket and this request).
    assert_eq!(on_b.user_info_as(&outage.voucher).await.data["userNo"], json!(outage.user_no));

    outage.redis.pause();
    let ended = Instant::now();
    assert_eq!(on_a.sign_out(&outage.voucher).await.code, 200);
    println!("the sign-out on node A answered after {} ms", ended.elapsed().as_millis());
    loop {
        if on_b.user_info_as(&outage.voucher).await.data.is_null() {
            break;
        }
        assert!(ended.elapsed() < STATED_BOUND + SLACK, "node B signed the ended session in for {:?}", ended.elapsed());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!(
        "with Redis frozen, a sign-out on node A held on node B {} ms after it was sent",
        ended.elapsed().as_millis()
    );
    outage.redis.resume();
}
