//! Publishes through the event bus of one node and times the events' arrival on a
//! second node sharing the same Redis (BENCHMARKS.md, "The event bus over Redis").
//!
//! `bus_bench REDIS_URL [--tasks N] [--events M]`
//!
//! N tasks publish M `tokenCount` events each, as fast as their publishes return (the way
//! many actors announce at once: replies streaming, balances changing). Each event carries
//! its publish time; the second node's inbox reads it on arrival. Prints the publishes a
//! second, the time one publish call takes (p50, p99) and publish → arrival on the other
//! node (p50, p99).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use amora_actors::bus::{BusMessage, Delivery, EventBus};
use amora_actors::wire::events::ServerEvent;
use amora_domain::account::UserId;
use amora_domain::money::Coins;

#[actix_rt::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let url = args.next().ok_or_else(|| anyhow::anyhow!("bus_bench REDIS_URL [--tasks N] [--events M]"))?;
    let (mut tasks, mut events) = (64usize, 500usize);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|v| v.parse().ok());
        match (arg.as_str(), value) {
            ("--tasks", Some(n)) => tasks = n,
            ("--events", Some(n)) => events = n,
            _ => anyhow::bail!("unknown or incomplete argument {arg}"),
        }
    }

    let (sender, mut own_inbox) = EventBus::with_redis(&url)?;
    let (receiver, mut inbox) = EventBus::with_redis(&url)?;
    let ready = Instant::now();
    while !(sender.is_healthy() && receiver.is_healthy()) {
        anyhow::ensure!(ready.elapsed() < Duration::from_secs(10), "Redis at {url} did not answer");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The publishing node delivers its own events locally too; nobody reads them here.
    tokio::spawn(async move { while own_inbox.recv().await.is_some() {} });

    let total = tasks * events;
    let arrivals = tokio::spawn(async move {
        let mut latencies = Vec::with_capacity(total);
        while latencies.len() < total {
            let Ok(Some(delivery)) = tokio::time::timeout(Duration::from_secs(10), inbox.recv()).await else {
                break;
            };
            if let Delivery::ToUser { message: BusMessage::Event(frame), .. } = delivery {
                let event: serde_json::Value = serde_json::from_str(frame.as_str()).unwrap_or_default();
                if let Some(sent) = event["data"]["coin"].as_i64() {
                    latencies.push(now_micros() - sent);
                }
            }
        }
        latencies
    });

    let users = (0..tasks).map(|task| UserId::parse(&format!("u{task:016}"))).collect::<Result<Vec<_>, _>>()?;
    let started = Instant::now();
    let publishers: Vec<_> = users
        .into_iter()
        .map(|user| {
            let bus = sender.clone();
            tokio::spawn(async move {
                let mut calls = Vec::with_capacity(events);
                for _ in 0..events {
                    let call = Instant::now();
                    bus.publish(&user, ServerEvent::TokenCount { coin: Coins::stored(now_micros()) }).await;
                    calls.push(call.elapsed().as_micros() as i64);
                }
                calls
            })
        })
        .collect();
    let mut calls = Vec::with_capacity(total);
    for publisher in publishers {
        calls.extend(publisher.await?);
    }
    let publishing = started.elapsed();
    let mut latencies = arrivals.await?;
    println!(
        "bus_bench tasks={tasks} events={total} publishes_per_s={:.0} call_p50_us={} call_p99_us={} arrived={} arrival_p50_us={} arrival_p99_us={}",
        total as f64 / publishing.as_secs_f64(),
        percentile(&mut calls, 0.50),
        percentile(&mut calls, 0.99),
        latencies.len(),
        percentile(&mut latencies, 0.50),
        percentile(&mut latencies, 0.99),
    );
    Ok(())
}

fn percentile(values: &mut [i64], p: f64) -> i64 {
    if values.is_empty() {
        return 0;
    }
    values.sort_unstable();
    values[((values.len() - 1) as f64 * p).round() as usize]
}

fn now_micros() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as i64)
}
