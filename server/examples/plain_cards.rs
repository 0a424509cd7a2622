//! The peer of the encrypted `getCharacterList` benchmark (issue 19): a plain actix-web
//! server, the same actix-web as ours, answering the same 30 cards as plain JSON. What it
//! leaves out is exactly what ours adds on top of the listing: the envelope (decrypting the
//! request, encrypting the answer), the session lookup and our middleware (logs, metrics,
//! headers). What it keeps is the listing itself: it opens the data directory the real
//! server uses and asks the store through the same call (`CharacterRepo::list_cards`,
//! gender 0, page 1 of 30, as a newly signed-in viewer sees it), so the ratio measures our
//! HTTP path, not two different databases.
//!
//! ```sh
//! cargo run --release -p amora-server --example plain_cards -- --data-dir DIR [--port 8090]
//!     [--workers 2] [--source store|memory] [--page-size 30]
//! ```
//!
//! `--source memory` reads the page once at start-up and answers it from memory (serialised
//! per request, as a handler would): the upper bound of a plain handler on this machine.
//! Routes: `POST /cards` and `GET /cards`, both `{"code":200,"msg":"success","success":true,
//! "data":[cards]}` (the plaintext our envelope carries), and `GET /readyz`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;

use actix_web::{App, HttpResponse, HttpServer, web};
use amora_domain::character::CharacterCard;
use amora_domain::gender::Gender;
use amora_domain::paging::PageRequest;
use amora_domain::viewer::Viewer;
use amora_store::Store;
use amora_store::embedded::EmbeddedStore;
use serde::Serialize;

const USAGE: &str =
    "usage: plain_cards --data-dir DIR [--port N] [--workers N] [--source store|memory] [--page-size N]";

struct Options {
    data_dir: PathBuf,
    port: u16,
    workers: usize,
    memory: bool,
    page_size: i64,
}

fn options() -> Options {
    let mut args = std::env::args().skip(1);
    let (mut data_dir, mut port, mut workers, mut memory, mut page_size) = (None, 8090, 0, false, 30);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value; {USAGE}"));
        match arg.as_str() {
            "--data-dir" => data_dir = Some(PathBuf::from(value())),
            "--port" => port = value().parse().expect(USAGE),
            "--workers" => workers = value().parse().expect(USAGE),
            "--page-size" => page_size = value().parse().expect(USAGE),
            "--source" => {
                memory = match value().as_str() {
                    "store" => false,
                    "memory" => true,
                    _ => panic!("{USAGE}"),
                }
            }
            _ => panic!("{USAGE}"),
        }
    }
    // 0 = one per core, as the real server's `http.workers`.
    let workers = if workers == 0 { std::thread::available_parallelism().map_or(2, |n| n.get()) } else { workers };
    Options { data_dir: data_dir.expect(USAGE), port, workers, memory, page_size }
}

/// Where the cards come from: the store on every request, or one page read at start-up.
#[derive(Clone)]
enum Source {
    // Boxed: the store handle is a few hundred bytes, the memory variant one pointer.
    Store(Box<Store>, PageRequest),
    Memory(Arc<Vec<CharacterCard>>),
}

/// The real handler's call for `{pageNo:1, pageSize:30, gender:0}` from a user signed in a
/// moment ago (a new account: restricted characters are not listed).
async fn list(store: &Store, page: PageRequest) -> Result<Vec<CharacterCard>, String> {
    store.characters.list_cards(Gender::Girls, Viewer::NewUser, page).await.map_err(|e| e.to_string())
}

/// The same success shape as our plaintext answer (`ApiReply`), serialised straight from
/// the cards as a plain handler would.
#[derive(Serialize)]
struct Reply<'a> {
    code: u16,
    msg: &'static str,
    success: bool,
    data: &'a [CharacterCard],
}

async fn cards(source: web::Data<Source>) -> HttpResponse {
    let listed;
    let cards: &[CharacterCard] = match source.get_ref() {
        Source::Memory(cards) => cards,
        Source::Store(store, page) => match list(store, *page).await {
            Ok(cards) => {
                listed = cards;
                &listed
            }
            Err(error) => return HttpResponse::InternalServerError().body(error),
        },
    };
    HttpResponse::Ok().json(Reply { code: 200, msg: "success", success: true, data: cards })
}

async fn ready() -> HttpResponse {
    HttpResponse::Ok().finish()
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let options = options();
    let data_dir = options.data_dir.clone();
    // The real server's data directory, opened as it opens it (off the async threads).
    let store = tokio::task::spawn_blocking(move || EmbeddedStore::open(&data_dir))
        .await
        .expect("the store task")
        .unwrap_or_else(|e| panic!("cannot open the store in {}: {e}", options.data_dir.display()))
        .into_store();
    let page = PageRequest::parse(1, options.page_size).expect("--page-size from 1 to 60");
    // Checked once here so that a run on an unseeded directory stops at once.
    let first = list(&store, page).await.expect("the first page");
    let count = first.len();
    let source = if options.memory { Source::Memory(Arc::new(first)) } else { Source::Store(Box::new(store), page) };
    println!(
        "plain_cards: {count} cards from {} on 127.0.0.1:{} with {} workers",
        if options.memory { "memory" } else { "the store" },
        options.port,
        options.workers
    );
    let source = web::Data::new(source);
    HttpServer::new(move || {
        App::new()
            .app_data(source.clone())
            .route("/cards", web::post().to(cards))
            .route("/cards", web::get().to(cards))
            .route("/readyz", web::get().to(ready))
    })
    .workers(options.workers)
    .bind(("127.0.0.1", options.port))?
    .run()
    .await
}
