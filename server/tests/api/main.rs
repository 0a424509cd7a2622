//! Integration tests against the real server: one binary, one module per feature.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod accounts;
mod characters;
mod chat;
mod cluster;
mod codes;
mod content;
mod cql_cluster;
mod crosscheck;
mod envelope;
mod fakes;
mod helpers;
mod hosted;
mod nowpayments;
mod paypal;
mod realtime;
mod sandbox;
mod security;
mod seo;
mod shutdown;
mod site;
mod support;
mod telemetry;
mod vectors;
mod web_config;
mod zpay;
