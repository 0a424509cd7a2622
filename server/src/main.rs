//! `amora [CONFIG]`: serves Amora with `config/default.toml`, overridden by CONFIG and by
//! `AMORA_*` environment variables.

use std::path::PathBuf;

use amora_server::observability::init_logging;
use amora_server::settings::Settings;
use amora_server::startup::Application;
use clap::Parser;

#[derive(Parser)]
#[command(name = "amora", version, about = "Amora, the AI companion chat server")]
struct Cli {
    /// A TOML file overriding config/default.toml.
    config: Option<PathBuf>,
}

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let settings = Settings::load(cli.config.as_deref())?;
    init_logging(&settings.log);
    let application = Application::build(settings).await?;
    application.run_until_stopped().await?;
    tracing::info!("stopped");
    Ok(())
}
