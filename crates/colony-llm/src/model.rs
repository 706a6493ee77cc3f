//! The [`ChatModel`] trait every model backend implements.

use std::sync::Arc;

use async_trait::async_trait;

use super::{ChatRequest, ChatResponse, ModelError};

/// Anything that answers chat requests: an HTTP endpoint, the simulated model, a replay cache.
///
/// `#[async_trait]` (boxed futures) because models are picked by name at run time and teams
/// hold several different ones behind `Arc<dyn ChatModel>` (heterogeneous teams).
#[async_trait]
pub trait ChatModel: Send + Sync {
    /// A stable id for this model (used in cache keys, transcripts and reports).
    fn id(&self) -> &str;

    /// Answers one request.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError>;

    /// Whether the answers come from the offline simulated model, not a real one: results
    /// and plots then carry the SIMULATION marking.
    fn simulated(&self) -> bool {
        false
    }

    /// Whether this model runs tools itself (a tool loop wraps it): a policy that would
    /// offer its own tools leaves such a model alone.
    fn offers_tools(&self) -> bool {
        false
    }
}

/// A shareable, type-erased model handle.
pub type SharedModel = Arc<dyn ChatModel>;

#[async_trait]
impl<M: ChatModel + ?Sized> ChatModel for Arc<M> {
    fn id(&self) -> &str {
        (**self).id()
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        (**self).chat(request).await
    }
    fn simulated(&self) -> bool {
        (**self).simulated()
    }
    fn offers_tools(&self) -> bool {
        (**self).offers_tools()
    }
}
