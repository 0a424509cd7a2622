//! Builds the application from settings: opens the store, seeds the catalogue, binds the
//! listener and assembles the routes. `main` and the tests start the server the same way.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_http::{HttpService, KeepAlive, h1};
use actix_service::{IntoServiceFactory, ServiceFactoryExt, fn_service, map_config};
use actix_web::dev::{AppConfig, Server};
use actix_web::middleware::{DefaultHeaders, from_fn};
use actix_web::{App, web};
use actix_web_prom::{PrometheusMetrics, PrometheusMetricsBuilder};
use amora_actors::conversations::ViewerRules;
use amora_actors::registry::RegistryLimits;
use amora_actors::{ImageParts, Node, NodeSettings};
use amora_store::Store;
use amora_store::cql::CqlStore;
use amora_store::embedded::EmbeddedStore;
use tokio::net::TcpStream;
use tracing_actix_web::TracingLogger;

use crate::auth::bot_check::BotCheck;
use crate::auth::mail::Mailer;
use crate::auth::oauth::IdentityProviders;
use crate::chat::socket;
use crate::content::seo::Site;
use crate::envelope::middleware::envelope;
use crate::payments::gateway::Gateway;
use crate::rate_limit::Limiters;
use crate::request_log::RedactingRootSpan;
use crate::settings::{Settings, StoreKind};
use crate::state::AppState;
use crate::web::{request_limits, spa};

pub struct Application {
    port: u16,
    server: Server,
    store: Store,
    node: Node,
}

impl Application {
    /// Opens everything and binds the port; the server runs once `run_until_stopped` is awaited.
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        let store = open_store(&settings).await?;
        // Before anything makes an image's address (`amora_store::media_url`).
        amora_store::load_media_url_key(store.media.as_ref()).await?;
        amora_actors::seeding::seed_catalogue(&store).await?;
        crate::content::blog::ensure_seeded(&store).await?;
        if !settings.http.static_dir.join("index.html").is_file() {
            tracing::warn!(dir = %settings.http.static_dir.display(), "the frontend is not built; pages will say so");
        }

        let listener = TcpListener::bind((settings.http.host.as_str(), settings.http.port))?;
        let port = listener.local_addr()?.port();
        let prices = settings.web.prices()?;
        let node_settings = NodeSettings {
            limits: RegistryLimits {
                max_users: settings.actors.max_users.max(1),
                max_characters: settings.actors.max_characters.max(1),
                idle_after: Duration::from_secs(settings.actors.idle_secs),
                cool_after: Duration::from_secs(settings.actors.cool_secs),
                memory_budget: (settings.actors.memory_budget_mib > 0)
                    .then(|| settings.actors.memory_budget_mib * 1024 * 1024),
                max_sockets_per_user: settings.realtime.max_sockets_per_user.max(1),
            },
            chat: settings.chat.clone(),
            viewer_rules: ViewerRules { established_after_secs: settings.accounts.established_after_secs },
            catalogue: settings.catalogue.to_catalogue()?,
            images: ImageParts {
                model: amora_actors::ai::image::build(&settings.image.model)?,
                settings: settings.image.clone(),
                cost_per_image: prices.image,
            },
            // The second layer when `[moderation.classifier]` configures one; its errors are
            // refusals (`on_error = "allow"` is a wrapper that answers none).
            moderation: amora_actors::moderation::ModerationParts {
                classifier: settings.moderation.classifier()?,
                on_classifier_error: amora_actors::moderation::ClassifierFailure::Refuse,
            },
        };
        let redis_url = (!settings.redis.url.is_empty()).then_some(settings.redis.url.as_str());
        let node = Node::start(store.clone(), node_settings, redis_url).await?;
        tracing::info!(bus = node.bus.mode(), "actors and event bus started");
        // Debits of a stopped node whose outcome never came are settled (issue 28): this
        // run's lease is written before it serves, then renewed while it runs.
        let recovery = amora_actors::pending::Recovery::new(
            store.clone(),
            node.bus.clone(),
            node.registry.clone(),
            Duration::from_secs(settings.actors.lease_secs),
        );
        recovery.renew().await?;
        actix_web::rt::spawn(recovery.run());
        if !settings.admin.token.is_empty() {
            tracing::info!("the operator API is on at /lust/admin");
        }
        let mailer = Mailer::from_settings(&settings)?;
        let payments = Gateway::build(&settings, node.clone(), mailer.clone())?;
        tracing::info!(routes = ?payments.routes().iter().map(|r| r.code()).collect::<Vec<_>>(), "payment routes");
        if let Some(warning) = sandbox_warning(&settings) {
            tracing::warn!("{warning}");
        }
        if let Some(pages) = payments.sandbox_pages() {
            // Test checkouts nobody finished expire, as a processor's would.
            actix_web::rt::spawn(async move {
                let mut every = tokio::time::interval(Duration::from_secs(60));
                loop {
                    every.tick().await;
                    pages.sweep_expired().await;
                }
            });
        }
        let voice_model =
            amora_actors::voice::build_model(&settings.voice.model).map_err(|e| anyhow::anyhow!("voice model: {e}"))?;
        let voices = amora_actors::voice::Voices::new(
            voice_model,
            store.clone(),
            &node,
            settings.voice.to_actors(prices.voice_clip),
        );
        let recogniser = amora_actors::ai::transcription::build(&settings.call.transcription)
            .map_err(|e| anyhow::anyhow!("call.transcription: {e}"))?;
        let calls =
            amora_actors::calls::Calls::new(node.clone(), voices.clone(), recogniser, settings.call.to_actors());
        let state = AppState {
            payments,
            voices,
            calls,
            node: node.clone(),
            socket_permits: Arc::new(tokio::sync::Semaphore::new(settings.realtime.max_sockets_per_node.max(1))),
            limits: Limiters::from_settings(
                &settings.limits,
                settings.http.trusted_proxies().map_err(anyhow::Error::msg)?,
            ),
            mailer,
            bot_check: BotCheck::from_settings(&settings.bot_check)?,
            identity: IdentityProviders::from_settings(&settings.oauth)?,
            store: store.clone(),
            site: Arc::new(Site::new(settings.http.static_dir.clone(), &settings.http.public_base_url)),
            portraits: Arc::new(crate::creation::portrait::Previews::default()),
            settings: Arc::new(settings.clone()),
        };
        let metrics = PrometheusMetricsBuilder::new("amora")
            .endpoint(crate::admin::METRICS_PATH)
            .build()
            .map_err(|e| anyhow::anyhow!("metrics: {e}"))?;
        state.node.chat.metrics().register(&metrics.registry)?;
        state.node.billing.metrics().register(&metrics.registry)?;
        state.node.images.metrics().register(&metrics.registry)?;

        let server = serve(&settings, state, metrics, listener)?;
        tracing::info!(port, "amora is listening");
        Ok(Self { port, server, store, node })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The store the application runs on; tests inspect it.
    pub fn store(&self) -> Store {
        self.store.clone()
    }

    /// The node's actors and event bus: the fan-out benchmark (`examples/fanout_server.rs`)
    /// publishes through `node().bus` as the server's own code does.
    pub fn node(&self) -> Node {
        self.node.clone()
    }

    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}

/// What start-up says when the sandbox pays on a deployment served over https: it credits
/// coins and plans for test checkouts that move no money (on by `auto` while no real route
/// is configured), which on a public site means free coins for anyone (issue 28). Local
/// http installs are development, where that is the point.
pub fn sandbox_warning(settings: &Settings) -> Option<String> {
    if !settings.payments.sandbox_enabled() || !settings.http.served_over_https() {
        return None;
    }
    Some(format!(
        "the payment sandbox is on ({}) at {}, an https site: anyone signed in gets coins and plans from test \
         checkouts that move no money. Configure a real payment route, or set payments.sandbox.enabled = \"off\"",
        match settings.payments.sandbox.enabled {
            crate::payments::sandbox::SandboxMode::Auto => "payments.sandbox.enabled = auto and no real route",
            _ => "payments.sandbox.enabled = on",
        },
        settings.http.public_base_url,
    ))
}

/// The HTTP server, built as actix-web's `HttpServer` builds it (same defaults, timeouts and
/// graceful shutdown) plus an upgrade service, which `HttpServer` cannot install: requests
/// asking for a WebSocket are handed their connection (`socket::upgrade`), and the socket
/// then runs on it outside the HTTP/1 dispatcher and its buffers.
fn serve(
    settings: &Settings,
    state: AppState,
    metrics: PrometheusMetrics,
    listener: TcpListener,
) -> std::io::Result<Server> {
    let addr = listener.local_addr()?;
    let request_timeout = Duration::from_secs(settings.http.request_timeout_secs);
    let builder = actix_server::Server::build();
    let shutdown = builder.graceful_shutdown_signal();
    let server = builder
        .workers(match settings.http.workers {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n,
        })
        // SIGTERM and SIGINT stop accepting at once and give requests this long to finish.
        .shutdown_timeout(settings.http.shutdown_timeout_secs)
        .listen(format!("amora-{addr}"), listener, move || {
            let shutdown = shutdown.clone();
            let sockets = Arc::new(state.clone());
            let app = app(state.clone(), metrics.clone())
                .into_factory()
                .map_err(|error: actix_web::Error| error.error_response());
            HttpService::build()
                .graceful_shutdown_signal(move || {
                    let signal = shutdown.clone();
                    async move { signal.notified().await }
                })
                .keep_alive(KeepAlive::default())
                // Small writes go at once: a socket streams a reply as many small frames,
                // and with Nagle's algorithm on (the OS default, which actix keeps) one
                // written while the previous is unacknowledged waited for the client's
                // delayed ACK: 40 ms added to ~2% of chat turns (BENCHMARKS.md, "Two nodes").
                .tcp_nodelay(true)
                .client_request_timeout(request_timeout)
                .client_disconnect_timeout(Duration::from_secs(1))
                .h1_allow_half_closed(true)
                .local_addr(addr)
                .upgrade(fn_service(
                    move |(req, framed): (actix_http::Request, actix_codec::Framed<TcpStream, h1::Codec>)| {
                        socket::upgrade(sockets.clone(), req, framed)
                    },
                ))
                .finish(map_config(app, move |()| AppConfig::__priv_test_new(false, addr.to_string(), addr)))
                .tcp()
        })?
        .run();
    Ok(server)
}

async fn open_store(settings: &Settings) -> anyhow::Result<Store> {
    match settings.store.kind {
        StoreKind::Embedded => {
            let data_dir = settings.store.data_dir.clone();
            // Opening applies migrations, which blocks: keep it off the async threads.
            let store = tokio::task::spawn_blocking(move || EmbeddedStore::open(&data_dir)).await??;
            tracing::info!(path = %store.path().display(), "embedded store open");
            Ok(store.into_store())
        }
        StoreKind::Scylla => {
            let cql = settings.store.scylla.to_cql().map_err(anyhow::Error::msg)?;
            let nodes = cql.nodes.join(",");
            let store = CqlStore::connect(cql).await?;
            tracing::info!(%nodes, keyspace = store.keyspace(), "CQL store open, schema applied");
            Ok(store.into_store())
        }
    }
}

fn app(
    state: AppState,
    metrics: PrometheusMetrics,
) -> App<
    impl actix_web::dev::ServiceFactory<
        actix_web::dev::ServiceRequest,
        Config = (),
        Response = actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let sandbox_pages = state.payments.sandbox_pages();
    App::new()
        .wrap(from_fn(request_limits::bound_request))
        // The console's health desk reads the same registry (`admin::operator::desks`).
        .app_data(web::Data::new(metrics.registry.clone()))
        .wrap(metrics)
        // Outside the metrics middleware, which answers `/metrics` itself.
        .wrap(from_fn(crate::admin::require_token_for_metrics))
        .wrap(TracingLogger::<RedactingRootSpan>::new())
        .wrap(
            crate::web::DEFAULT_HEADERS
                .iter()
                .fold(DefaultHeaders::new(), |headers, &(name, value)| headers.add((name, value))),
        )
        .app_data(web::Data::new(state))
        .configure(crate::web::configure)
        .configure(crate::chat::configure_socket)
        // Payment processors' notifications and the buyer's returns: outside the envelope.
        .configure(|config| crate::payments::callbacks::configure(config, &sandbox_pages))
        .service(
            web::scope("/lust/admin")
                .wrap(from_fn(crate::admin::require_token))
                .configure(crate::admin::configure)
                .configure(crate::admin::content::configure)
                .configure(crate::admin::feed::configure)
                .configure(crate::admin::review::configure)
                .configure(crate::admin::payments::configure)
                .configure(crate::admin::configure_operator_accounts),
        )
        // The operator console's API (issue 33): the same handlers behind operator sessions,
        // roles and the audit log instead of the token (`admin::operator`).
        .service(
            web::scope("/lust/operator/api")
                .wrap(from_fn(crate::admin::operator::guard))
                .configure(crate::admin::operator::configure)
                .configure(crate::admin::configure)
                .configure(crate::admin::content::configure)
                .configure(crate::admin::feed::configure)
                .configure(crate::admin::review::configure)
                .configure(crate::admin::payments::configure),
        )
        // Reached by navigation (links, provider redirects), so outside the envelope, and
        // before the `/lust/api` scope, which would otherwise take them.
        .configure(crate::auth::configure_pages)
        .service(web::scope("/lust/api").wrap(from_fn(envelope)).configure(crate::router::configure))
        .default_service(web::to(spa::static_or_index))
}
