//! The one way colony builds HTTP clients: TLS through rustls with the `ring` crypto
//! provider.
//!
//! Decision (lean builds): reqwest's default rustls provider is aws-lc-rs, whose
//! C library build dominated a cold build on two cores; `ring` is smaller and needs no
//! CMake. reqwest is built with `rustls-no-provider`, so the provider must be installed for
//! the process before the first client exists; every client is made here, which guarantees
//! it (tests and benchmarks included).

use std::sync::Once;

/// Installs the process's TLS provider (once): for a client another crate builds (the
/// OpenTelemetry exporter's), which must exist after it.
pub fn ensure_tls_provider() {
    static PROVIDER: Once = Once::new();
    PROVIDER.call_once(|| {
        // Err means another provider is already the process default: that one serves.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A reqwest client builder with the process's TLS provider installed.
pub fn client_builder() -> reqwest::ClientBuilder {
    ensure_tls_provider();
    reqwest::Client::builder()
}

/// A plain client (defaults of [`client_builder`]); `None` only if TLS cannot initialise.
pub fn client() -> Result<reqwest::Client, reqwest::Error> {
    client_builder().build()
}
