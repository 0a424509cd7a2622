//! Amora's HTTP server: routing, the encrypted envelope, the static app, health and
//! metrics. `startup::Application` is the whole server; `main` only reads the command line.
//! A feature is a folder (`auth`, `chat`, `images`, `voice`, `payments`, `creation`,
//! `content`, `telemetry`, `admin`) holding its routes, enveloped or not, and its wiring;
//! `api`, `envelope`, `web` and `router` are the transport they share.

pub mod admin;
pub mod api;
pub mod api_types;
pub mod auth;
pub mod chat;
pub mod client_address;
pub mod content;
pub mod creation;
pub mod envelope;
pub mod images;
pub mod observability;
pub mod payments;
pub mod rate_limit;
pub mod request_log;
pub mod router;
pub mod settings;
pub mod startup;
pub mod state;
pub mod telemetry;
pub mod voice;
pub mod web;
