//! Draws one picture with the embedded illustrator into a PNG file, to look at what a
//! preset combination gives:
//!
//! ```sh
//! cargo run -p amora-ai --example draw_image -- out.png --scene beach --outfit summer-dress --pose standing --style watercolor
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use amora_ai::image::illustrator::draw_png;
use amora_ai::image::{ImageRequest, Subject};
use clap::Parser;

#[derive(Parser)]
struct Args {
    out: std::path::PathBuf,
    #[arg(long)]
    scene: Option<String>,
    #[arg(long)]
    outfit: Option<String>,
    #[arg(long)]
    pose: Option<String>,
    #[arg(long)]
    style: Option<String>,
    #[arg(long, default_value = "")]
    prompt: String,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// 0 woman, 1 man.
    #[arg(long, default_value_t = 0)]
    gender: u8,
    /// Skin, hair colour, hair style, eyes, backdrop, accessory.
    #[arg(long, num_args = 6, default_values_t = [1u8, 1, 1, 2, 2, 1])]
    look: Vec<u8>,
    #[arg(long, default_value_t = 768)]
    width: u32,
    #[arg(long, default_value_t = 1024)]
    height: u32,
    #[arg(long)]
    nsfw: bool,
}

fn main() {
    let args = Args::parse();
    let look: [u8; 6] = args.look.try_into().unwrap();
    let request = ImageRequest {
        prompt: args.prompt,
        negative_prompt: String::new(),
        seed: args.seed,
        width: args.width,
        height: args.height,
        subject: Some(Subject { gender: args.gender, look }),
        scene: args.scene,
        outfit: args.outfit,
        pose: args.pose,
        style: args.style,
        nsfw: args.nsfw,
        variant: 0,
    };
    let image = draw_png(&request).unwrap();
    std::fs::write(&args.out, image.bytes).unwrap();
    println!("{} {}x{}", args.out.display(), image.width, image.height);
}
