//! The accept loop: each TCP connection is served by hyper in its own task, racing a
//! per-connection drop signal and the server's shutdown signal.
//!
//! Why not `axum::serve`: the "drop" fault must close a connection without sending anything,
//! and shutdown must abort stalled requests instead of waiting for them. Both come from owning
//! the connection future: dropping it closes the socket and drops the handler mid-request.
//!
//! hyper enforces the header-read timeout (it needs a timer, hence [`TokioTimer`]): a client
//! that trickles its headers, or leaves a keep-alive connection idle, is disconnected when the
//! timeout passes, so slow or dead clients cannot pile up open connections.

use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use super::routes::ConnDrop;

/// Accepts connections until `shutdown` is cancelled, then aborts every open connection.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    router: Router,
    header_read_timeout: Option<Duration>,
    shutdown: CancellationToken,
) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    connections.spawn(serve_connection(
                        stream,
                        router.clone(),
                        header_read_timeout,
                        shutdown.clone(),
                    ));
                }
                Err(e) => {
                    // Typically EMFILE: back off instead of spinning.
                    tracing::warn!(error = %e, "mock server: accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            },
        }
    }
    drop(listener);
    connections.shutdown().await;
}

/// Serves one connection until it ends, a handler asks to drop it, or the server shuts down.
async fn serve_connection(
    stream: TcpStream,
    router: Router,
    header_read_timeout: Option<Duration>,
    shutdown: CancellationToken,
) {
    // Small SSE frames and JSON bodies should leave at once.
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "mock server: set_nodelay failed");
    }
    let drop_signal = CancellationToken::new();
    let conn_drop = ConnDrop(drop_signal.clone());
    let service = router.map_request(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(conn_drop.clone());
        request
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
    tokio::select! {
        result = connection => {
            if let Err(e) = result {
                tracing::debug!(error = %e, "mock server: connection ended with an error");
            }
        }
        // Dropping the connection future closes the socket without a response.
        _ = drop_signal.cancelled() => tracing::debug!("mock server: connection dropped (injected fault)"),
        _ = shutdown.cancelled() => {}
    }
}
