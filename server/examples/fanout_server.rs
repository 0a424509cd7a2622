//! The fan-out benchmark's Amora (issue 19, `scripts/bench-sockets`): the real server, as
//! `amora` runs it (the settings of `config/default.toml`, a CONFIG file, `AMORA_*`
//! overrides), plus a publisher that sends `tokenCount` events through the node's event
//! bus, the way the server's own code announces a balance change.
//!
//! `fanout_server [CONFIG] --control 127.0.0.1:PORT`
//!
//! The publisher listens apart from the application (its routes are the application's
//! own): `POST /fanout {"users":[…],"rate":N,"seconds":S}` publishes N events a second,
//! round-robin over the users (user ids, as `hello` names them), for S seconds, and answers
//! `{"published","failed"}` when done. Each event's `coin` is its publish time in µs since
//! the epoch, from which the client reads publish → receive latency. The centrifuge peer
//! (load-tests/peers/centrifuge) serves the same request, so ws-scale drives both alike.
//!
//! Two such processes with the same `redis.url` (and one store: scripts/bench-sockets
//! gives both the same SQLite file) are two nodes; an event published on one reaches the
//! user's sockets on both.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use actix_web::{App, HttpResponse, HttpServer, web};
use amora_actors::Node;
use amora_actors::bus::EventBus;
use amora_actors::wire::events::ServerEvent;
use amora_domain::account::UserId;
use amora_domain::money::Coins;
use amora_server::observability::init_logging;
use amora_server::settings::Settings;
use amora_server::startup::Application;
use serde::Deserialize;

/// As `amora` runs: its memory behaviour is part of what is measured.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Deserialize)]
struct FanoutRequest {
    users: Vec<String>,
    rate: u32,
    seconds: f64,
}

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    let mut config = None;
    let mut control = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--control" => control = args.next(),
            _ if config.is_none() && !arg.starts_with('-') => config = Some(std::path::PathBuf::from(arg)),
            other => anyhow::bail!("unknown argument {other}: fanout_server [CONFIG] --control HOST:PORT"),
        }
    }
    let control = control.ok_or_else(|| anyhow::anyhow!("--control HOST:PORT is needed"))?;

    let settings = Settings::load(config.as_deref())?;
    init_logging(&settings.log);
    let application = Application::build(settings).await?;
    let node = application.node();
    let publisher = HttpServer::new(move || {
        App::new().app_data(web::Data::new(node.clone())).route("/fanout", web::post().to(fanout))
    })
    // One worker: the publisher is one paced loop, and the server's own workers keep the
    // other cores.
    .workers(1)
    .bind(control.as_str())?
    .run();
    tracing::info!(%control, "fan-out publisher listening");
    let (served, _) = tokio::join!(application.run_until_stopped(), publisher);
    served?;
    Ok(())
}

async fn fanout(node: web::Data<Node>, request: web::Json<FanoutRequest>) -> HttpResponse {
    let users: Result<Vec<UserId>, _> = request.users.iter().map(|id| UserId::parse(id)).collect();
    let Ok(users) = users else {
        return HttpResponse::BadRequest().body("users must be user ids");
    };
    if users.is_empty() || request.rate == 0 || request.seconds <= 0.0 {
        return HttpResponse::BadRequest().body(r#"POST {"users":[…],"rate":N,"seconds":S}"#);
    }
    let published = publish(&node.bus, &users, request.rate, request.seconds).await;
    HttpResponse::Ok().json(serde_json::json!({ "published": published, "failed": 0 }))
}

/// Paced by the clock rather than a timer per event (a timer cannot fire every 200 µs):
/// each millisecond publishes whatever the rate says is due by now. A publish is stamped
/// just before it goes to the bus, so time spent in the bus (Redis included) is measured.
async fn publish(bus: &EventBus, users: &[UserId], rate: u32, seconds: f64) -> u64 {
    let total = (f64::from(rate) * seconds) as u64;
    let start = Instant::now();
    let mut published = 0u64;
    while published < total {
        let due = total.min((start.elapsed().as_secs_f64() * f64::from(rate)) as u64 + 1);
        while published < due {
            let user = &users[(published % users.len() as u64) as usize];
            bus.publish(user, ServerEvent::TokenCount { coin: Coins::stored(now_micros()) }).await;
            published += 1;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    published
}

fn now_micros() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64)
}
