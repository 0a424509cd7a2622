//! A node whose CQL store stops answering (issue 36, "Cassandra paused"). The node reaches
//! Cassandra through a pausable TCP relay on loopback: paused, the relay forwards no byte
//! in either direction but keeps every connection open, which is what a SIGSTOPped
//! Cassandra looks like to the driver (the shared test Cassandra cannot be stopped). While
//! paused, an operator credit answers 503 with `Retry-After` and a user's call that reads
//! the store answers the envelope's "try again", each within the node's store request
//! timeout (plus slack); after the relay resumes, the same `txnId` applies at most once and
//! the balance equals the ledger's sum.

use std::time::{Duration, Instant};

use amora_domain::account::UserId;
use amora_store::Store;
use amora_store::cql::{CqlSettings, CqlStore};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::cluster::{ServerProcess, data_dir, make_user};
use crate::cql_cluster::{cql_env, cql_node, new_keyspace};
use crate::creation::cql_available;
use crate::helpers::TestApp;

/// The node's `store.scylla.request_timeout_ms`: short, so that the test is.
const STORE_TIMEOUT: Duration = Duration::from_millis(1_500);
/// What a loaded two-core test machine adds to the timeout before the answer arrives.
const SLACK: Duration = Duration::from_secs(3);
const WAIT: Duration = Duration::from_secs(30);

/// A TCP relay from a loopback port to `upstream` that can stop and resume forwarding.
struct PausableRelay {
    port: u16,
    paused: watch::Sender<bool>,
}

impl PausableRelay {
    async fn start(upstream: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (paused, _) = watch::channel(false);
        let gate = paused.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let gate = gate.clone();
                tokio::spawn(async move {
                    // A connection made while paused waits for the resume before it goes on.
                    let Ok(server) = TcpStream::connect(&upstream).await else { return };
                    let (client_read, client_write) = client.into_split();
                    let (server_read, server_write) = server.into_split();
                    tokio::spawn(forward(client_read, server_write, gate.subscribe()));
                    tokio::spawn(forward(server_read, client_write, gate.subscribe()));
                });
            }
        });
        Self { port, paused }
    }

    fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn pause(&self) {
        self.paused.send_replace(true);
    }

    fn resume(&self) {
        self.paused.send_replace(false);
    }
}

/// Copies `from` to `to`, holding every byte while the gate says paused; ends when either
/// side closes.
async fn forward(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut paused: watch::Receiver<bool>,
) {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        if paused.wait_for(|paused| !paused).await.is_err() {
            return;
        }
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(read) => read,
        };
        // Bytes read just before a pause are held too, so nothing crosses while paused.
        if paused.wait_for(|paused| !paused).await.is_err() {
            return;
        }
        if to.write_all(&buffer[..read]).await.is_err() {
            return;
        }
    }
}

/// The balance and the ledger's sum agree; returns the sum.
async fn ledger_balance(store: &Store, user_id: &UserId) -> i64 {
    let rows = store.ledger.rows(user_id).await.unwrap();
    let sum: i64 = rows.iter().map(|row| row.delta.units()).sum();
    let balance = store.users.by_id(user_id).await.unwrap().unwrap().coin;
    assert_eq!(balance.units(), sum, "balance = sum of the ledger rows");
    sum
}

#[actix_rt::test]
async fn calls_answer_try_again_while_cassandra_is_paused_and_nothing_applies_twice() {
    if !cql_available() {
        eprintln!("skipped: AMORA_CQL_NODE is not set");
        return;
    }
    let node = cql_node();
    let keyspace = new_keyspace("pause");
    let relay = PausableRelay::start(node.clone()).await;
    let mut env = cql_env(&relay.address(), &keyspace);
    env.push(("AMORA_STORE__SCYLLA__REQUEST_TIMEOUT_MS", STORE_TIMEOUT.as_millis().to_string()));
    let (_temp, dir) = data_dir();
    let mut server = ServerProcess::start(&dir, &env).await;
    // The test's own handle goes straight to Cassandra, past the relay.
    let store = CqlStore::connect(CqlSettings::local(&node, &keyspace)).await.unwrap().into_store();
    let (user_id, user_no, voucher) = make_user(&store, "Petra").await;
    let client = reqwest::Client::new();
    let api = TestApp::remote(server.url(""), store.clone());
    assert_eq!(server.admin_credit(&client, &user_no, 10, Some("opening")).await.0, 200);
    assert_eq!(api.user_info_as(&voucher).await.data["coin"], 10);
    let mut socket = server.socket(&voucher).await;
    socket.wait_for("hello", WAIT).await.expect("hello");
    // A session the node has never read: the node holds the sessions it has read
    // (docs/security.md "Sessions held in memory"), so only this one must read the store.
    let (_, _, unseen) = make_user(&store, "Quentin").await;

    relay.pause();
    // The operator's credit: 503 with Retry-After, never 500, within the timeout.
    let started = Instant::now();
    let response = client
        .post(server.url("/lust/admin/credit"))
        .bearer_auth(crate::cluster::ADMIN_TOKEN)
        .json(&json!({ "user": user_no, "coins": 7, "txnId": "during-pause" }))
        .timeout(STORE_TIMEOUT + SLACK)
        .send()
        .await
        .unwrap_or_else(|e| panic!("the credit did not answer within the timeout ({:?}): {e}", started.elapsed()));
    let status = response.status().as_u16();
    let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    let body = response.text().await.unwrap();
    assert_eq!(status, 503, "a paused store is a temporary unavailability: {body}");
    eprintln!("figure: the operator credit answered {status} after {:?}", started.elapsed());
    assert!(retry_after.is_some(), "503 says when to try again");

    // A user's call that reads the store (a session not yet read): the envelope's try-again answer.
    let started = Instant::now();
    let info = tokio::time::timeout(STORE_TIMEOUT + SLACK, api.user_info_as(&unseen))
        .await
        .unwrap_or_else(|_| panic!("getUserInfo did not answer within the timeout ({:?})", started.elapsed()));
    assert_eq!((info.code, info.msg.as_str()), (50000, amora_actors::TRY_AGAIN), "{:?}", info.data);
    eprintln!("figure: getUserInfo answered try-again after {:?}", started.elapsed());
    assert_eq!(server.readiness().await, 503, "readiness says the store is away");

    // A message sent on the open socket: `chatError` with the same try-again text.
    let started = Instant::now();
    crate::chat::send(&mut socket, crate::chat::FREE_CHARACTER, "Are you there?").await;
    let mut heard = Vec::new();
    let error = loop {
        let event = socket
            .next_event(WAIT)
            .await
            .unwrap_or_else(|| panic!("no chatError while the store is away; heard {heard:?}"));
        if event["event"] == "chatError" {
            break event;
        }
        heard.push(event);
    };
    assert_eq!(
        (error["data"]["code"].clone(), error["data"]["msg"].clone()),
        (json!(50000), json!(amora_actors::TRY_AGAIN))
    );
    eprintln!("figure: chatSend answered chatError after {:?}", started.elapsed());

    relay.resume();
    server.wait_ready(WAIT).await;
    // The credit may or may not have reached Cassandra before the pause held it: re-sent,
    // it applies at most once.
    let (status, answer) = server.admin_credit(&client, &user_no, 7, Some("during-pause")).await;
    assert_eq!(status, 200, "{answer}");
    assert!(["applied", "replayed"].contains(&answer["outcome"].as_str().unwrap()), "{answer}");
    let (_, again) = server.admin_credit(&client, &user_no, 7, Some("during-pause")).await;
    assert_eq!(again["outcome"], "replayed");
    assert_eq!(ledger_balance(&store, &user_id).await, 17);
    assert_eq!(api.user_info_as(&voucher).await.data["coin"], 17);
}
