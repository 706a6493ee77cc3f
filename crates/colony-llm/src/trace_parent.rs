//! [`TraceParent`]: the trace context a model call belongs to, carried with its request from
//! the task that asks (a policy) to the agent task that calls the model, so a tracing layer
//! above (colony-eval's OpenTelemetry export) can link the call to its step, item or episode.
//!
//! Decision: the carrier is opaque (`Any`), and the capture is a hook the tracing layer
//! installs while it traces ([`set_capture`]), so the models, runtime and policy floors name
//! no tracing library. Without a hook nothing is captured and a request carries nothing. It is
//! never serialized, never part of a replay key, and two requests differing only in it are
//! equal.

use std::any::Any;
use std::sync::{Arc, RwLock};

/// An opaque trace context (see the module docs).
#[derive(Clone, Default)]
pub struct TraceParent(Option<Arc<dyn Any + Send + Sync>>);

impl TraceParent {
    /// A carrier of `context`.
    pub fn new<T: Any + Send + Sync>(context: T) -> Self {
        Self(Some(Arc::new(context)))
    }

    /// The carried context, if it is a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.as_deref().and_then(|c| c.downcast_ref::<T>())
    }
}

impl std::fmt::Debug for TraceParent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "TraceParent(set)"
        } else {
            "TraceParent(none)"
        })
    }
}

impl PartialEq for TraceParent {
    /// Always equal: the trace context is not part of what a request asks.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The capture hook (see [`set_capture`]).
type Capture = fn() -> TraceParent;

static CAPTURE: RwLock<Option<Capture>> = RwLock::new(None);

/// Installs (or with `None` removes) the function that captures the current trace context.
pub fn set_capture(capture: Option<Capture>) {
    *CAPTURE.write().unwrap_or_else(|p| p.into_inner()) = capture;
}

/// The current trace context, as the installed hook captures it (empty without one).
pub fn capture() -> TraceParent {
    let hook = *CAPTURE.read().unwrap_or_else(|p| p.into_inner());
    hook.map_or_else(TraceParent::default, |f| f())
}
