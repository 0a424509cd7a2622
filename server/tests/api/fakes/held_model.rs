//! A loopback OpenAI-compatible model (`POST /v1/chat/completions`, streamed) whose answers
//! wait until the test lets them go, one at a time or all at once: a reply or an extraction
//! can be held at the model for as long as a test needs, so what happens meanwhile is
//! checked without timing. Every request is answered "Hello." once released.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{Mutex, mpsc, watch};

pub struct HeldModel {
    /// `http://127.0.0.1:PORT/v1`, for the OpenAI provider's `base_url`.
    pub base: String,
    arrived: Mutex<mpsc::UnboundedReceiver<()>>,
    /// How many requests have come (the n-th request is number n).
    requests: Arc<AtomicUsize>,
    /// How many requests may be answered: request number n waits until this is n or more.
    released: watch::Sender<usize>,
}

impl HeldModel {
    pub async fn start() -> Self {
        let (arrive, arrived) = mpsc::unbounded_channel::<()>();
        let (released, watcher) = watch::channel(0usize);
        let requests = Arc::new(AtomicUsize::new(0));
        let counter = requests.clone();
        let server = actix_web::HttpServer::new(move || {
            let (arrive, watcher, counter) = (arrive.clone(), watcher.clone(), counter.clone());
            actix_web::App::new().route(
                "/v1/chat/completions",
                actix_web::web::post().to(move || {
                    let (arrive, mut watcher) = (arrive.clone(), watcher.clone());
                    let number = counter.fetch_add(1, Ordering::SeqCst) + 1;
                    async move {
                        let _ = arrive.send(());
                        let _ = watcher.wait_for(|released| *released >= number).await;
                        let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello.\"}}]}\n\n\
                                    data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
                                    data: [DONE]\n\n";
                        actix_web::HttpResponse::Ok().content_type("text/event-stream").body(body)
                    }
                }),
            )
        })
        .workers(1)
        .bind(("127.0.0.1", 0))
        .unwrap();
        let port = server.addrs()[0].port();
        actix_rt::spawn(server.run());
        Self { base: format!("http://127.0.0.1:{port}/v1"), arrived: Mutex::new(arrived), requests, released }
    }

    /// Waits until one more request is asked of the model (and held there).
    pub async fn a_request_is_held(&self, within: Duration) {
        let arrived = tokio::time::timeout(within, self.arrived.lock().await.recv()).await;
        assert!(matches!(arrived, Ok(Some(()))), "no request reached the model");
    }

    /// Lets the oldest held request be answered.
    pub fn release_one(&self) {
        self.released.send_modify(|released| *released += 1);
    }

    /// Lets every request, held or to come, be answered.
    pub fn release_all(&self) {
        self.released.send_modify(|released| *released = usize::MAX);
    }

    /// How many requests have reached the model so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}
