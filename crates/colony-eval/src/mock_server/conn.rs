//! The accept loop: each TCP connection is served by hyper in its own task, racing a
//! per-connection drop signal and the server's shutdown signal.
//!
//! Why not `axum::serve`: the "drop" fault must close a connection without sending anything,
//! and shutdown must abort stalled requests instead of waiting for them. Both come from owning
//! the connection future: dropping it closes the socket and drops the handler mid-request.
//!
//! hyper enforces the header-read timeout (it needs a timer, hence [`TokioTimer`]): a client
//! that trickles its headers, or leaves a keep-alive connection idle, is disconnected when the
//! timeout passes, so slow or dead clients cannot pile up open connections. The same timeout
//! bounds the time a request's body may take to arrive ([`DeadlineBody`]: a client declaring
//! `Content-Length: 1e9` and sending one byte gets 400 and is disconnected), and at most
//! [`MAX_CONNECTIONS`] connections are served at once (more are closed on accept), so
//! stalled clients cannot exhaust file descriptors.

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

/// Most connections served at once; a connection accepted beyond it is closed at once.
pub const MAX_CONNECTIONS: usize = 512;

/// A request body that fails once `deadline` has passed since the request arrived.
struct DeadlineBody {
    inner: axum::body::Body,
    deadline: std::pin::Pin<Box<tokio::time::Sleep>>,
    limit: Duration,
}

impl http_body::Body for DeadlineBody {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        use std::future::Future;
        let this = self.get_mut();
        if this.deadline.as_mut().poll(cx).is_ready() {
            let message = format!("request body not received within {:?}", this.limit);
            return std::task::Poll::Ready(Some(Err(axum::Error::new(message))));
        }
        std::pin::Pin::new(&mut this.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

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
                Ok((stream, _peer)) if connections.len() >= MAX_CONNECTIONS => {
                    tracing::warn!(limit = MAX_CONNECTIONS, "mock server: connection limit reached; closing a new connection");
                    drop(stream);
                }
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
    let body_limit = header_read_timeout;
    let service = router.map_request(move |request: Request<Incoming>| {
        let (mut parts, body) = request.into_parts();
        parts.extensions.insert(conn_drop.clone());
        let body = axum::body::Body::new(body);
        let body = match body_limit {
            Some(limit) => axum::body::Body::new(DeadlineBody {
                inner: body,
                deadline: Box::pin(tokio::time::sleep(limit)),
                limit,
            }),
            None => body,
        };
        Request::from_parts(parts, body)
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
