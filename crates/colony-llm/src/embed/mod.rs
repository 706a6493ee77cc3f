//! Text embeddings: the [`Embedder`] trait and its backends.
//!
//! SelfOrg scores agents by cosine similarity of response embeddings (all-MiniLM-L6-v2 in the
//! paper), SwarmSys matches agents to events in embedding space, SwarmBench measures message
//! homogeneity, and `colony serve-mock` answers `/v1/embeddings`. Backends:
//!
//! - [`HashingEmbedder`] (`hash`, the default): deterministic feature hashing, no files.
//! - `MiniLmEmbedder` (`minilm:DIR`, cargo feature `minilm`, on by default): the real
//!   all-MiniLM-L6-v2 in pure Rust (candle), from a local sentence-transformers directory
//!   (`colony embed fetch-minilm`).
//! - [`RemoteEmbedder`] (`remote:URL#MODEL`): `/v1/embeddings` of an OpenAI-compatible server.
//! - `FastEmbedder` (`fastembed:NAME`, cargo feature `fastembed`): ONNX models via fastembed.
//!
//! The trait is async so remote backends fit; CPU-heavy local backends run their work on the
//! blocking pool (STYLE.md) and also offer a synchronous `embed_sync`.

#[cfg(feature = "fastembed")]
mod fastembed;
mod hashing;
#[cfg(feature = "minilm")]
mod minilm;
mod remote;
mod spec;

#[cfg(feature = "fastembed")]
pub use fastembed::FastEmbedder;
pub use hashing::HashingEmbedder;
#[cfg(feature = "minilm")]
pub use minilm::MiniLmEmbedder;

/// Environment variable naming the model directory when `--embedder minilm` has no `:DIR`.
pub const MINILM_DIR_ENV: &str = "COLONY_MINILM_DIR";
pub use remote::RemoteEmbedder;
pub use spec::{cosine_matrix, EmbedderSpec};

use async_trait::async_trait;
use ndarray::Array2;
use thiserror::Error;

use crate::ModelError;

/// Errors of embedding backends.
#[derive(Debug, Error)]
pub enum EmbedError {
    /// The backend could not be configured (bad spec, bad dimension, …).
    #[error("embedder configuration: {0}")]
    Config(String),
    /// A model directory lacks a file.
    #[error("model directory {dir} has no {file} (install it with `colony embed fetch-minilm --dir {dir}`)")]
    MissingFile {
        /// The directory.
        dir: String,
        /// The missing file, relative to the directory.
        file: String,
    },
    /// The model failed to load or run.
    #[error("{model}: {message}")]
    Model {
        /// Which model.
        model: String,
        /// What failed.
        message: String,
    },
    /// A remote embeddings call failed.
    #[error(transparent)]
    Remote(#[from] ModelError),
}

/// Turns texts into L2-normalized vectors, one row per text.
#[async_trait]
pub trait Embedder: Send + Sync {
    /// Embeds `texts`; row `i` is the unit vector of `texts[i]`. Batching happens inside.
    /// (What empty text maps to is the backend's: hashing gives the zero vector, MiniLM the
    /// vector of `[CLS] [SEP]`, as sentence-transformers does.)
    async fn embed(&self, texts: &[String]) -> Result<Array2<f32>, EmbedError>;
    /// Vector dimension.
    fn dim(&self) -> usize;
    /// A stable id naming the backend and its settings (used in caches and reports).
    fn id(&self) -> &str;
    /// The longest input the encoder reads, in tokens, when it is known (text beyond it is
    /// truncated); `None` for encoders without a limit or that do not report one. SwarmSys
    /// picks its competence instruction by it (docs/design/swarmsys.md §2.4).
    fn max_input_tokens(&self) -> Option<usize> {
        None
    }
}

/// The embedder used when none is configured: [`HashingEmbedder`] with 512 dimensions.
pub fn default_embedder() -> HashingEmbedder {
    HashingEmbedder::new(HashingEmbedder::DEFAULT_DIM)
}

/// Scales each row of `m` to unit length in place (zero rows stay zero).
pub fn l2_normalize_rows(m: &mut Array2<f32>) {
    for mut row in m.rows_mut() {
        let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            row.mapv_inplace(|x| x / norm);
        }
    }
}
