//! `amora [CONFIG]` serves Amora with `config/default.toml`, overridden by CONFIG and by
//! `AMORA_*` environment variables. `amora admin …` calls the operator API of a running
//! server, so that changes flow through its actors and event bus like any other.

use std::path::PathBuf;

use amora_server::admin;
use amora_server::observability::init_logging;
use amora_server::settings::Settings;
use amora_server::startup::Application;
use clap::{Parser, Subcommand};

/// mimalloc rather than glibc's malloc: password hashing takes 19 MiB a time on the
/// blocking threads, and glibc kept those blocks in its per-thread arenas once its mmap
/// threshold had grown: 500 sign-ins left the process at 2.7 GiB resident, against
/// 115 MiB with memory handed back (scripts/load-test scale, BENCHMARKS.md).
/// The `system-allocator` feature keeps glibc's malloc instead, so that a heap profiler
/// that hooks malloc (heaptrack) sees every allocation with its call site (BENCHMARKS.md
/// "Memory per idle socket").
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use serde_json::Value;

#[derive(Parser)]
#[command(
    name = "amora",
    version,
    about = "Amora, the AI companion chat server",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// A TOML file overriding config/default.toml.
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Operator actions on a running server (needs `admin.token`).
    Admin {
        #[command(flatten)]
        target: AdminTarget,
        #[command(subcommand)]
        action: AdminAction,
    },
}

#[derive(clap::Args)]
struct AdminTarget {
    /// The server's address; default http://127.0.0.1:<http.port>.
    #[arg(long, global = true)]
    url: Option<String>,
    /// The admin token; default `admin.token` from the configuration (AMORA_ADMIN__TOKEN).
    #[arg(long, global = true)]
    token: Option<String>,
    /// A configuration file to read the port and token from.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
}

#[derive(Subcommand)]
enum AdminAction {
    /// Credits (or, with a negative amount, debits) coins: `amora admin credit 12345678 500`.
    Credit {
        /// The user's ID (userNo) or email.
        user: String,
        /// Coin units; negative to debit.
        #[arg(allow_hyphen_values = true)]
        coins: i64,
        #[arg(long)]
        reason: Option<String>,
        /// Idempotency id: repeating a call with the same id changes nothing.
        #[arg(long)]
        txn_id: Option<String>,
    },
    /// Sets the VIP type (0 free, above 0 paid): `amora admin set-vip a@b.com 1`.
    SetVip { user: String, vip_type: i64 },
    /// Suspends an account: its sessions end and its sockets close on every node, and it
    /// cannot sign in until unsuspended: `amora admin suspend 12345678`.
    Suspend { user: String },
    /// Lifts a suspension: `amora admin unsuspend 12345678`.
    Unsuspend { user: String },
    /// Creates an account: `amora admin create-user ann@example.com --password s3cret1`.
    CreateUser {
        email: String,
        #[arg(long)]
        name: Option<String>,
        /// Lets the user sign in with the printed userNo and this password.
        #[arg(long)]
        password: Option<String>,
    },
    /// Creates an operator of the console (issue 33) and prints its one-time password and
    /// the `otpauth://` address to add to an authenticator app (shown once):
    /// `amora admin create-operator ann@example.com --role admin`.
    CreateOperator {
        email: String,
        /// `admin` (everything) or `moderator` (queues and suspensions).
        #[arg(long)]
        role: String,
    },
    /// Lists the console's operators: `amora admin operators`.
    Operators,
    /// Disables an operator; its sessions end: `amora admin disable-operator ann@example.com`.
    DisableOperator { email: String },
    /// Blog posts: `amora admin blog publish post.md`.
    Blog {
        #[command(subcommand)]
        action: BlogAction,
    },
    /// The newest reports of characters and replies: `amora admin reports --limit 20`.
    Reports {
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// A user's orders, newest first: `amora admin orders 12345678 --limit 20`.
    Orders {
        user: String,
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// Refunds a paid order at its processor and takes its coins back: `amora admin refund ord_…`.
    Refund { order_id: String },
    /// Ends a user's plans now (grant one with `set-vip`): `amora admin end-plan 12345678`.
    EndPlan { user: String },
    /// Hides or shows a character, and reviews created ones: `amora admin character hide gf-001`,
    /// `amora admin character review`, `... approve ID`, `... reject ID --reason TEXT`.
    Character {
        #[command(subcommand)]
        action: CharacterAction,
    },
    /// Removes a user's image: `amora admin image remove --feed-id 1763…` (from the public
    /// feed) or `amora admin image remove --user 12345678 --image-id 1763…`.
    Image {
        #[command(subcommand)]
        action: ImageAction,
    },
}

#[derive(Subcommand)]
enum ImageAction {
    /// The image, its feed entry and its bytes are gone.
    Remove {
        #[arg(long, conflicts_with_all = ["user", "image_id"], required_unless_present = "image_id")]
        feed_id: Option<String>,
        #[arg(long, requires = "image_id")]
        user: Option<String>,
        #[arg(long, requires = "user")]
        image_id: Option<String>,
    },
}

#[derive(Subcommand)]
enum BlogAction {
    /// Publishes (or replaces) a post from a Markdown file with front matter
    /// (key, title, description, date YYYY-MM-DD, cover).
    Publish { file: PathBuf },
    /// Takes a post down by its key.
    Unpublish { key: String },
}

#[derive(Subcommand)]
enum CharacterAction {
    /// Hidden: out of the catalogue and chat lists, its page answers 404, nobody can chat with it.
    Hide { character_id: String },
    /// Back in the catalogue as it was.
    Unhide { character_id: String },
    /// Created characters waiting for review (public asked for), oldest first.
    Review {
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// Makes a character in review public: it enters its gender's catalogue.
    Approve { character_id: String },
    /// Refuses to make a character in review public; its creator sees the reason.
    Reject {
        character_id: String,
        /// 1 to 300 characters, shown to the creator in My AI.
        #[arg(long)]
        reason: String,
    },
}

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Admin { target, action }) => call_admin(target, action).await,
        None => serve(cli.config).await,
    }
}

async fn serve(config: Option<PathBuf>) -> anyhow::Result<()> {
    let settings = Settings::load(config.as_deref())?;
    init_logging(&settings.log);
    let application = Application::build(settings).await?;
    application.run_until_stopped().await?;
    tracing::info!("stopped");
    Ok(())
}

async fn call_admin(target: AdminTarget, action: AdminAction) -> anyhow::Result<()> {
    let settings = Settings::load(target.config.as_deref())?;
    let url = target.url.unwrap_or_else(|| format!("http://127.0.0.1:{}", settings.http.port));
    let token = target.token.unwrap_or(settings.admin.token);
    anyhow::ensure!(!token.is_empty(), "no admin token: pass --token or set admin.token (AMORA_ADMIN__TOKEN)");
    // Each call sends the server's own request type (`amora_server::admin`), as a JSON body
    // (POST) or as the query (GET), so a field renamed there is renamed here.
    let call = match action {
        AdminAction::Credit { user, coins, reason, txn_id } => {
            Call::post("credit", admin::CreditRequest { user, coins, reason, txn_id })
        }
        AdminAction::SetVip { user, vip_type } => Call::post("setVip", admin::SetVipRequest { user, vip_type }),
        AdminAction::Suspend { user } => Call::post("suspend", admin::UserRequest { user }),
        AdminAction::Unsuspend { user } => Call::post("unsuspend", admin::UserRequest { user }),
        AdminAction::CreateUser { email, name, password } => {
            Call::post("createUser", admin::CreateUserRequest { email, user_name: name, password })
        }
        AdminAction::Blog { action: BlogAction::Publish { file } } => {
            let text =
                std::fs::read_to_string(&file).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
            Call::post("blog/publish", admin::content::PublishRequest { file: text, publish_at: None })
        }
        AdminAction::Blog { action: BlogAction::Unpublish { key } } => {
            Call::post("blog/unpublish", admin::content::KeyRequest { key })
        }
        AdminAction::Reports { limit } => Call::get("reports", admin::content::ReportsQuery { limit: Some(limit) }),
        AdminAction::Orders { user, limit } => {
            Call::post("orders", admin::payments::UserRequest { user, limit: Some(limit) })
        }
        AdminAction::Refund { order_id } => Call::post("refund", admin::payments::RefundRequest { order_id }),
        AdminAction::EndPlan { user } => Call::post("endPlan", admin::payments::UserRequest { user, limit: None }),
        AdminAction::Character { action: CharacterAction::Hide { character_id } } => {
            Call::post("character/hide", admin::content::CharacterRequest { character_id })
        }
        AdminAction::Character { action: CharacterAction::Unhide { character_id } } => {
            Call::post("character/unhide", admin::content::CharacterRequest { character_id })
        }
        AdminAction::Character { action: CharacterAction::Review { limit } } => {
            Call::get("character/review", admin::review::QueueQuery { limit: Some(limit) })
        }
        AdminAction::Character { action: CharacterAction::Approve { character_id } } => {
            Call::post("character/approve", admin::review::ApproveRequest { character_id })
        }
        AdminAction::Character { action: CharacterAction::Reject { character_id, reason } } => {
            Call::post("character/reject", admin::review::RejectRequest { character_id, reason })
        }
        AdminAction::Image { action: ImageAction::Remove { feed_id, user, image_id } } => {
            Call::post("image/remove", admin::content::RemoveImageRequest { feed_id, user, image_id })
        }
        AdminAction::CreateOperator { email, role } => {
            Call::post("operators/create", admin::operator::accounts::CreateOperatorRequest { email, role })
        }
        AdminAction::Operators => Call::get("operators", serde_json::json!({})),
        AdminAction::DisableOperator { email } => {
            Call::post("operators/disable", admin::operator::accounts::OperatorEmailRequest { email })
        }
    }?;
    let client = reqwest::Client::new();
    let address = format!("{}/lust/admin/{}", url.trim_end_matches('/'), call.path);
    let request = match call.method {
        Method::Post => client.post(address).json(&call.fields),
        Method::Get => client.get(address).query(&call.fields),
    };
    let response = request.bearer_auth(token).send().await?;
    let status = response.status();
    let answer: Value = response.json().await.unwrap_or(Value::Null);
    println!("{}", serde_json::to_string_pretty(&answer)?);
    anyhow::ensure!(status.is_success(), "the server answered {status}");
    Ok(())
}

/// One operator call: where it goes, how, and its request as JSON (the body of a POST, the
/// query of a GET).
struct Call {
    path: &'static str,
    method: Method,
    fields: Value,
}

enum Method {
    Get,
    Post,
}

impl Call {
    fn post(path: &'static str, request: impl serde::Serialize) -> anyhow::Result<Self> {
        Ok(Self { path, method: Method::Post, fields: serde_json::to_value(request)? })
    }

    /// A query has no null: an absent field is left out.
    fn get(path: &'static str, query: impl serde::Serialize) -> anyhow::Result<Self> {
        let mut fields = serde_json::to_value(query)?;
        if let Value::Object(map) = &mut fields {
            map.retain(|_, value| !value.is_null());
        }
        Ok(Self { path, method: Method::Get, fields })
    }
}
