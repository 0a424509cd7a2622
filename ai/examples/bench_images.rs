//! Benchmark of the embedded illustrator: time to the first image and images per minute
//! at 768x1024 through the `ImageModel` trait, as a markdown table for BENCHMARKS.md.
//!
//! ```sh
//! cargo run --release -p amora-ai --example bench_images -- --images 24
//! ```
//!
//! The images cycle through every scene, outfit, pose and style so that the figure is an
//! average over what users ask for; one row per style shows what the filters cost.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use amora_ai::image::illustrator::{self, Illustrator};
use amora_ai::image::{ImageModel, ImageRequest, Subject};
use clap::Parser;
use tokio::sync::mpsc;

#[derive(Parser)]
struct Args {
    /// Images per measured series.
    #[arg(long, default_value_t = 24)]
    images: usize,
    /// Images drawn at once (the node's image workers).
    #[arg(long, default_value_t = 2)]
    parallel: usize,
    #[arg(long, default_value_t = 768)]
    width: u32,
    #[arg(long, default_value_t = 1024)]
    height: u32,
}

fn request(n: usize, width: u32, height: u32, style: Option<&str>) -> ImageRequest {
    let pick = |keys: Vec<&'static str>, k: usize| keys[k % keys.len()].to_owned();
    let scenes: Vec<_> = illustrator::scene_keys().collect();
    let outfits: Vec<_> = illustrator::outfit_keys().collect();
    let poses: Vec<_> = illustrator::pose_keys().collect();
    let styles: Vec<_> = illustrator::style_keys().collect();
    ImageRequest {
        prompt: format!("benchmark image {n}"),
        negative_prompt: String::new(),
        seed: n as u64 * 7919,
        width,
        height,
        subject: Some(Subject {
            gender: (n % 2) as u8,
            look: [n as u8, (n / 2) as u8, (n / 3) as u8, 1, 2, (n / 5) as u8],
        }),
        scene: Some(pick(scenes, n)),
        outfit: Some(pick(outfits, n / 3)),
        pose: Some(pick(poses, n / 2)),
        style: Some(style.map_or_else(|| pick(styles, n / 5), str::to_owned)),
        nsfw: true,
        variant: 0,
    }
}

async fn one(model: &Arc<Illustrator>, request: ImageRequest) -> (Duration, usize) {
    let (tx, _rx) = mpsc::unbounded_channel();
    let started = Instant::now();
    let image = model.generate(request, tx).await.unwrap();
    (started.elapsed(), image.bytes.len())
}

/// Draws `count` images, `parallel` at a time; answers the wall time and the mean size.
async fn series(
    model: &Arc<Illustrator>,
    args: &Args,
    parallel: usize,
    count: usize,
    style: Option<&str>,
) -> (Duration, usize) {
    let started = Instant::now();
    let mut bytes = 0;
    let mut next = 0;
    while next < count {
        let batch: Vec<_> = (next..(next + parallel).min(count))
            .map(|n| {
                let model = model.clone();
                let request = request(n, args.width, args.height, style);
                tokio::spawn(async move { one(&model, request).await })
            })
            .collect();
        for task in batch {
            bytes += task.await.unwrap().1;
        }
        next += parallel;
    }
    (started.elapsed(), bytes / count.max(1))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = Args::parse();
    let model = Arc::new(Illustrator);
    // The very first image of the process: nothing warmed up.
    let (first, first_bytes) = one(&model, request(0, args.width, args.height, None)).await;
    println!("time to first image: {} ms ({} KiB)", first.as_millis(), first_bytes / 1024);
    println!();
    println!("| series | images | in parallel | wall time | per image | images/minute | mean PNG |");
    println!("|---|---|---|---|---|---|---|");
    let mut rows: Vec<(String, Option<&str>)> = vec![("all presets, mixed styles".into(), None)];
    rows.extend(illustrator::style_keys().map(|s| (format!("style `{s}`"), Some(s))));
    for (label, style) in rows {
        for parallel in [1, args.parallel] {
            let count = if style.is_some() { (args.images / 3).max(parallel) } else { args.images };
            let (wall, bytes) = series(&model, &args, parallel, count, style).await;
            let per = wall / count as u32;
            println!(
                "| {label} | {count} | {parallel} | {:.1} s | {} ms | {:.1} | {} KiB |",
                wall.as_secs_f64(),
                per.as_millis(),
                count as f64 * 60.0 / wall.as_secs_f64(),
                bytes / 1024
            );
            if args.parallel == 1 {
                break;
            }
        }
    }
}
