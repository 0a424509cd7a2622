//! Fault injection (issue 28): the real `amora` binary is killed with SIGKILL while it
//! holds paid work, restarted on the same data, and the money is checked; one scenario, run
//! once on each store (a persistent SQLite data dir; a CQL keyspace of its own at
//! `AMORA_CQL_NODE`, kept across the restarts with the node's data dir). First life: two
//! image jobs of 4 (the loopback image service answers one image and holds the next), a
//! voice play (the loopback speech service holds it) and a streamed reply paid with a free
//! message (the loopback chat service streams one piece and holds the rest). Second life: a
//! burst of signed NOWPayments notifications for three orders. Each kill waits for an
//! observable state (the request reached the fake, the first image is in the gallery, the
//! first `chatDelta` came, the first notification was answered), never for a sleep. After
//! each restart: balance = ledger sum, every debit has its outcome or its refund, once;
//! nothing is credited twice; two more restarts change nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use actix_web::{App, HttpResponse, HttpServer, web};
use amora_domain::account::UserId;
use amora_domain::character::CharacterId;
use amora_domain::chat::{EntryId, Speaker};
use amora_domain::payment::OrderId;
use amora_store::cql::{CqlSettings, CqlStore};
use amora_store::{Store, StoredMessage, VoiceClipKey, VoiceClipState};
use base64::Engine;
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::chat::{FREE_CHARACTER, send};
use crate::cluster::{ServerProcess, Socket, data_dir, make_user, shared_store};
use crate::cql_cluster::{cql_env, cql_node, new_keyspace};
use crate::fakes::chat_api::ChatApiFake;
use crate::fakes::loopback;
use crate::fakes::nowpayments::NowPaymentsFake;
use crate::fakes::speech::SpeechFake;
use crate::helpers::TestApp;

const WAIT: Duration = Duration::from_secs(60);
const LEASE_SECS: &str = "1";
const PICTURE_COIN: i64 = 20;
const VOICE_COIN: i64 = 2;

/// A loopback Stable Diffusion WebUI (`/sdapi/v1`) that answers its first image and holds
/// every later request open, so a job is killed with one image made and one at the backend.
struct HoldingImages {
    base: String,
    calls: Arc<AtomicUsize>,
}

struct ImagesState {
    png: String,
    calls: Arc<AtomicUsize>,
}

async fn txt2img(state: web::Data<ImagesState>, body: web::Json<Value>) -> HttpResponse {
    let call = state.calls.fetch_add(1, Ordering::SeqCst);
    if call > 0 {
        // Held until the server that asked is killed (or the test ends).
        std::future::pending::<()>().await;
    }
    HttpResponse::Ok().json(json!({ "images": [state.png], "parameters": body.into_inner(), "info": "{}" }))
}

async fn sd_progress() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "progress": 0.5, "eta_relative": 1.0, "state": {}, "current_image": null }))
}

impl HoldingImages {
    async fn start() -> Self {
        let png = base64::engine::general_purpose::STANDARD.encode(crate::images::illustration().await);
        let calls = Arc::new(AtomicUsize::new(0));
        let state = web::Data::new(ImagesState { png, calls: calls.clone() });
        let (listener, base) = loopback();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .route("/sdapi/v1/txt2img", web::post().to(txt2img))
                .route("/sdapi/v1/progress", web::get().to(sd_progress))
        })
        .workers(2)
        .listen(listener)
        .unwrap();
        actix_rt::spawn(server.run());
        Self { base, calls }
    }
}

/// A loopback OpenAI-compatible speech service that takes every request and never answers.
struct HoldingSpeech {
    base_url: String,
    requests: Arc<AtomicUsize>,
}

async fn held_speech(requests: web::Data<Arc<AtomicUsize>>) -> HttpResponse {
    requests.fetch_add(1, Ordering::SeqCst);
    std::future::pending::<()>().await;
    HttpResponse::InternalServerError().finish()
}

impl HoldingSpeech {
    fn start() -> Self {
        let requests = Arc::new(AtomicUsize::new(0));
        let data = web::Data::new(requests.clone());
        let (listener, base) = loopback();
        let server = HttpServer::new(move || {
            App::new().app_data(data.clone()).route("/v1/audio/speech", web::post().to(held_speech))
        })
        .workers(1)
        .listen(listener)
        .unwrap()
        .run();
        actix_rt::spawn(server);
        Self { base_url: format!("{base}/v1"), requests }
    }
}

/// Waits until `$done` (an expression that may await) holds, polling; a hang guard only,
/// never a timing assertion.
macro_rules! until {
    ($what:expr, $done:expr) => {{
        let deadline = Instant::now() + WAIT;
        while !$done {
            assert!(Instant::now() < deadline, "never came: {}", $what);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }};
}

/// The user's ledger as (txn id, delta), after checking that the balance is its sum.
async fn ledger(store: &Store, user: &UserId) -> Vec<(String, i64)> {
    let rows = store.ledger.rows(user).await.unwrap();
    let sum: i64 = rows.iter().map(|row| row.delta.units()).sum();
    let balance = store.users.by_id(user).await.unwrap().unwrap().coin.units();
    assert_eq!(balance, sum, "balance = sum of the ledger rows of {user}");
    let mut rows: Vec<(String, i64)> =
        rows.iter().map(|row| (row.txn_id.as_str().to_owned(), row.delta.units())).collect();
    rows.sort();
    rows
}

fn with_prefix(rows: &[(String, i64)], prefix: &str) -> Vec<(String, i64)> {
    rows.iter().filter(|(txn, _)| txn.starts_with(prefix)).cloned().collect()
}

async fn pending_rows(store: &Store) -> usize {
    store.pending.pending_debits(1_000).await.unwrap().len()
}

/// Waits until the restarted node has settled every pending debit of the killed one.
async fn settled(store: &Store) {
    until!("the pending debits settled", pending_rows(store).await == 0);
}

fn today() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64 / 86_400
}

async fn socket(server: &ServerProcess, voucher: &str) -> Socket {
    let mut socket = server.socket(voucher).await;
    socket.wait_for("hello", WAIT).await.expect("hello");
    socket
}

/// Everything the test checks across restarts: every user's sorted ledger.
async fn books(store: &Store, users: &[&UserId]) -> Vec<Vec<(String, i64)>> {
    let mut all = Vec::new();
    for user in users {
        all.push(ledger(store, user).await);
    }
    all
}

/// What the node keeps across kills: its data dir (whatever the store, the node keeps files
/// there) and, on CQL, its keyspace. Every start of the scenario's node finds both again.
struct Data {
    _temp: tempfile::TempDir,
    dir: std::path::PathBuf,
    /// The store settings of every start; empty on SQLite (the data dir holds the file).
    store_env: Vec<(&'static str, String)>,
    /// The CQL server and keyspace, when the node runs on CQL.
    cql: Option<(String, String)>,
}

impl Data {
    fn sqlite() -> Self {
        let (_temp, dir) = data_dir();
        Self { _temp, dir, store_env: Vec::new(), cql: None }
    }

    /// A keyspace of its own on the CQL server at `AMORA_CQL_NODE`.
    fn cql() -> Self {
        let (_temp, dir) = data_dir();
        let (node, keyspace) = (cql_node(), new_keyspace("faults"));
        Self { _temp, dir, store_env: cql_env(&node, &keyspace), cql: Some((node, keyspace)) }
    }

    /// Starts the node on this data with the scenario's settings `env`.
    async fn start(&self, env: &[(&'static str, String)]) -> ServerProcess {
        let all: Vec<(&str, String)> = self.store_env.iter().chain(env).cloned().collect();
        ServerProcess::start(&self.dir, &all).await
    }

    /// The test's own handle on the node's store, opened after the first start made it.
    async fn store(&self) -> Store {
        match &self.cql {
            None => shared_store(&self.dir),
            Some((node, keyspace)) => CqlStore::connect(CqlSettings::local(node, keyspace)).await.unwrap().into_store(),
        }
    }

    /// Kills the node (SIGKILL: `Child::kill`) and starts it again on the same data.
    async fn restart(&self, server: ServerProcess, env: &[(&'static str, String)]) -> ServerProcess {
        drop(server);
        self.start(env).await
    }
}

#[actix_rt::test]
async fn sigkill_mid_image_job_voice_play_streamed_reply_and_webhook_burst_loses_and_doubles_nothing_on_sqlite() {
    scenario(Data::sqlite()).await;
}

#[actix_rt::test]
async fn sigkill_mid_image_job_voice_play_streamed_reply_and_webhook_burst_loses_and_doubles_nothing_on_cql() {
    scenario(Data::cql()).await;
}

/// The scenario the module comment describes, on the store `data` names.
async fn scenario(data: Data) {
    let client = reqwest::Client::new();
    let images = HoldingImages::start().await;
    let held_voice = HoldingSpeech::start();
    // The first piece is longer than the start a reply holds back (docs/api.md "Held back,
    // then checked"), so it is sent at once; the next never comes before the kill.
    let chat = ChatApiFake::start_with(
        &["Once upon a time, in a harbour town at the very edge of the map, there", " lived", " a sailor"],
        Duration::from_secs(3_600),
    )
    .await;
    let nowpayments = NowPaymentsFake::start().await;
    let np = nowpayments.settings();
    let common = |voice_base: &str| -> Vec<(&'static str, String)> {
        vec![
            ("AMORA_ACTORS__LEASE_SECS", LEASE_SECS.to_owned()),
            ("AMORA_IMAGE__MODEL__BACKEND", "sdwebui".to_owned()),
            ("AMORA_IMAGE__MODEL__SDWEBUI__BASE_URL", images.base.clone()),
            ("AMORA_VOICE__MODEL__KIND", "openai".to_owned()),
            ("AMORA_VOICE__MODEL__OPENAI__BASE_URL", voice_base.to_owned()),
            ("AMORA_VOICE__MODEL__OPENAI__MODEL", "tts-1".to_owned()),
            ("AMORA_CHAT__MODEL__KIND", "openai".to_owned()),
            ("AMORA_CHAT__MODEL__OPENAI__BASE_URL", chat.base_url.clone()),
            ("AMORA_CHAT__MODEL__OPENAI__MODEL", "any".to_owned()),
            ("AMORA_PAYMENTS__NOWPAYMENTS__API_KEY", np.api_key.clone()),
            ("AMORA_PAYMENTS__NOWPAYMENTS__IPN_SECRET", np.ipn_secret.clone()),
            ("AMORA_PAYMENTS__NOWPAYMENTS__BASE_URL", np.base_url.clone()),
        ]
    };
    let first_env = common(&held_voice.base_url);
    let server = data.start(&first_env).await;
    let store = data.store().await;

    // (a) Two image jobs of 4 from a user with 200 coins.
    let (painter, painter_no, painter_voucher) = make_user(&store, "Painter").await;
    assert_eq!(server.admin_credit(&client, &painter_no, 200, Some("grant-painter")).await.0, 200);
    let app = TestApp::remote(server.url(""), store.clone());
    let mut jobs = Vec::new();
    for _ in 0..2 {
        let (envelope, _) = app
            .post_api_as(Some(&painter_voucher), "/user/v1/image/generate", json!({ "scene": "beach", "count": 4 }))
            .await;
        assert_eq!(envelope.code, 200, "{}", envelope.msg);
        let ids: Vec<i64> = envelope.data["imageIds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| id.as_str().unwrap().parse().unwrap())
            .collect();
        assert_eq!(ids.len(), 4);
        jobs.push(ids);
    }
    // Killed once the first image is stored and the second is at the backend.
    until!(
        "the first image stored and the second asked for",
        images.calls.load(Ordering::SeqCst) >= 2
            && !store.gallery.list(&painter, None, None, 10).await.unwrap().is_empty()
    );

    // (b) A voice play held at the speech service.
    let (listener, listener_no, listener_voucher) = make_user(&store, "Listener").await;
    assert_eq!(server.admin_credit(&client, &listener_no, 10, Some("grant-listener")).await.0, 200);
    let girl = CharacterId::parse(FREE_CHARACTER).unwrap();
    let message_id = EntryId::new(1_700_000_000_000_000, 7);
    let said = StoredMessage {
        message_id,
        speaker: Speaker::Character,
        content: "The sea is calm tonight. Shall we walk?".into(),
        image: None,
    };
    store.conversations.append(&listener, &girl, said).await.unwrap();
    let play = json!({ "characterId": FREE_CHARACTER, "messageId": message_id.to_string() });
    let held_play = {
        let (app, voucher, play) =
            (TestApp::remote(server.url(""), store.clone()), listener_voucher.clone(), play.clone());
        // Its answer never comes: the node dies while the service holds the first part.
        actix_rt::spawn(async move {
            let _ = app.post_api_as(Some(&voucher), "/user/v1/voice/speak", play).await;
        })
    };
    until!("the speech service asked", held_voice.requests.load(Ordering::SeqCst) >= 1);

    // (c) A reply paid with a free message, killed after its first streamed piece.
    let (chatter, _, chatter_voucher) = make_user(&store, "Chatter").await;
    let mut chat_socket = socket(&server, &chatter_voucher).await;
    send(&mut chat_socket, FREE_CHARACTER, "Tell me a story.").await;
    chat_socket.wait_for("chatDelta", WAIT).await.expect("the reply's first piece");
    assert_eq!(store.message_credits.used(&chatter, today()).await.unwrap(), 1, "the free message was taken");

    // Every debit in flight is in the journal: two jobs, one play, one reply.
    let mut kinds: Vec<String> =
        store.pending.pending_debits(100).await.unwrap().into_iter().map(|row| row.kind).collect();
    kinds.sort();
    assert_eq!(kinds, ["images", "images", "reply", "voice"]);
    let painter_before = ledger(&store, &painter).await;
    assert_eq!(with_prefix(&painter_before, "image:").iter().map(|(_, d)| d).sum::<i64>(), -8 * PICTURE_COIN);
    assert_eq!(
        with_prefix(&ledger(&store, &listener).await, "voice:"),
        vec![(format!("voice:{listener}:{}", message_id.raw()), -VOICE_COIN)]
    );

    // Killed; restarted with a speech service that answers.
    let speech = SpeechFake::start();
    let second_env = common(&speech.base_url);
    held_play.abort();
    drop(chat_socket);
    let server = data.restart(server, &second_env).await;
    settled(&store).await;

    // (a) Every debited image is made or refunded, once.
    let made: Vec<i64> = store
        .gallery
        .list(&painter, None, None, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|image| image.image_id.raw())
        .collect();
    assert_eq!(made.len(), 1, "one image was made before the kill");
    let rows = ledger(&store, &painter).await;
    let refunds = with_prefix(&rows, "image-refund:");
    let mut expected: Vec<(String, i64)> = jobs
        .iter()
        .flatten()
        .filter(|id| !made.contains(id))
        .map(|id| (format!("image-refund:{id}"), PICTURE_COIN))
        .collect();
    expected.sort();
    assert_eq!(refunds, expected, "each image not made is refunded by its own row, once");
    assert_eq!(rows.iter().map(|(_, d)| d).sum::<i64>(), 200 - PICTURE_COIN, "one image paid for");

    // (b) The play that died is refunded and failed; the next one is charged once.
    let rows = ledger(&store, &listener).await;
    assert_eq!(
        with_prefix(&rows, "voice-refund:"),
        vec![(format!("voice-refund:{listener}:{}", message_id.raw()), VOICE_COIN)]
    );
    let app = TestApp::remote(server.url(""), store.clone());
    for _ in 0..3 {
        let (envelope, _) = app.post_api_as(Some(&listener_voucher), "/user/v1/voice/speak", play.clone()).await;
        assert_eq!(envelope.code, 200, "{}", envelope.msg);
    }
    // Its later parts are spoken in the background: the clip is whole before the next kill.
    let clip = VoiceClipKey { user_id: listener.clone(), character_id: girl.clone(), message_id };
    until!(
        "the clip spoken whole",
        store.voice_clips.clip(&clip).await.unwrap().is_some_and(|c| c.state == VoiceClipState::Complete)
    );
    let rows = ledger(&store, &listener).await;
    assert_eq!(rows.iter().map(|(_, d)| d).sum::<i64>(), 10 - VOICE_COIN, "the message's voice is paid once");
    assert_eq!(with_prefix(&rows, "voice:").len(), 2, "the dead attempt and the one that spoke");

    // (c) The user's message stays; the free message that paid for the lost reply is back.
    assert_eq!(store.message_credits.used(&chatter, today()).await.unwrap(), 0, "the free message is given back");
    let kept = store.conversations.messages(&chatter, &girl, None, 10).await.unwrap();
    assert!(kept.iter().any(|m| m.speaker == Speaker::User && m.content == "Tell me a story."), "{kept:?}");

    // (d) A burst of signed notifications for three paid orders, killed after the first answer.
    let (buyer, _, buyer_voucher) = make_user(&store, "Buyer").await;
    let mut invoices = Vec::new();
    for _ in 0..3 {
        let (envelope, _) = app
            .post_api_as(Some(&buyer_voucher), "/user/v1/pay/nowPaymentsInvoice", json!({ "productId": "coin_1" }))
            .await;
        assert_eq!(envelope.code, 200, "{}", envelope.msg);
        let order_id = envelope.data["orderId"].as_str().unwrap().to_owned();
        let order = store.orders.get(&OrderId::parse(&order_id).unwrap()).await.unwrap().unwrap();
        invoices.push((order_id, order.provider_ref.unwrap()));
    }
    let notify_path = |invoice: &str| {
        let url = nowpayments.invoice(invoice).ipn_callback_url;
        url[url.find("/lust/").unwrap()..].to_owned()
    };
    let answered = Arc::new(Notify::new());
    let mut burst = Vec::new();
    for round in 0..20 {
        for (_, invoice) in &invoices {
            let url = server.url(&notify_path(invoice));
            let body = nowpayments.ipn_body(invoice, "finished");
            let signature = NowPaymentsFake::sign_with(&np.ipn_secret, &body);
            let (client, answered) = (client.clone(), answered.clone());
            burst.push(actix_rt::spawn(async move {
                let sent = client.post(url).header("x-nowpayments-sig", signature).body(body).send().await;
                if sent.is_ok_and(|response| response.status() == 200) {
                    answered.notify_one();
                }
                round
            }));
        }
    }
    answered.notified().await;
    let server = data.restart(server, &second_env).await;
    for task in burst {
        let _ = task.await;
    }
    settled(&store).await;
    // The processor sends again what it never heard answered; each order credits once.
    for (_, invoice) in &invoices {
        for _ in 0..3 {
            let url = server.url(&notify_path(invoice));
            let body = nowpayments.ipn_body(invoice, "finished");
            let signature = NowPaymentsFake::sign_with(&np.ipn_secret, &body);
            let status = client.post(url).header("x-nowpayments-sig", signature).body(body).send().await.unwrap();
            assert_eq!(status.status(), 200);
        }
    }
    let rows = ledger(&store, &buyer).await;
    assert_eq!(rows.len(), 3, "one row per order: {rows:?}");
    for (order_id, _) in &invoices {
        let row = rows.iter().find(|(txn, _)| txn == &format!("order:{order_id}"));
        assert!(row.is_some_and(|(_, coins)| *coins > 0 && *coins == rows[0].1), "{rows:?}");
    }

    // Recovery is idempotent: two more kills and restarts change nothing.
    let users = [&painter, &listener, &chatter, &buyer];
    let before = books(&store, &users).await;
    let credits_before = store.message_credits.used(&chatter, today()).await.unwrap();
    let server = data.restart(server, &second_env).await;
    settled(&store).await;
    let server = data.restart(server, &second_env).await;
    settled(&store).await;
    // The spoken message replays free after the restarts.
    let app = TestApp::remote(server.url(""), store.clone());
    let (envelope, _) = app.post_api_as(Some(&listener_voucher), "/user/v1/voice/speak", play).await;
    assert_eq!(envelope.code, 200, "{}", envelope.msg);
    assert_eq!(books(&store, &users).await, before, "no ledger row moved across two more restarts");
    assert_eq!(store.message_credits.used(&chatter, today()).await.unwrap(), credits_before);
    drop(server);
}
