//! Embedder specifications as users write them (`--embedder SPEC`), and the cosine matrix.
//!
//! `hash` or `hash:DIM` (default; DIM from 16 to [`HashingEmbedder::MAX_DIM`]), `minilm` (directory from `$COLONY_MINILM_DIR`) or
//! `minilm:DIR`, `fastembed:NAME` (cargo feature `fastembed`), `remote:URL#MODEL`.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use colony_env_api::clip;
use ndarray::Array2;

#[cfg(feature = "minilm")]
use super::MiniLmEmbedder;
use super::{EmbedError, Embedder, HashingEmbedder, RemoteEmbedder};
use crate::ApiKey;

/// A parsed `--embedder` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedderSpec {
    /// Feature hashing with this many dimensions.
    Hash(usize),
    /// all-MiniLM-L6-v2 from a directory (`None`: `$COLONY_MINILM_DIR`).
    MiniLm(Option<PathBuf>),
    /// A fastembed model by name (or a local ONNX directory).
    FastEmbed(String),
    /// A remote `/v1/embeddings` endpoint and model.
    Remote {
        /// Base URL, e.g. `http://127.0.0.1:8000/v1`.
        base_url: String,
        /// Model name sent to the server.
        model: String,
    },
}

impl Default for EmbedderSpec {
    fn default() -> Self {
        Self::Hash(HashingEmbedder::DEFAULT_DIM)
    }
}

impl FromStr for EmbedderSpec {
    type Err = EmbedError;

    fn from_str(s: &str) -> Result<Self, EmbedError> {
        let (kind, arg) = match s.split_once(':') {
            Some((k, a)) => (k, Some(a)),
            None => (s, None),
        };
        // Quote at most a short prefix of the spec: a huge value is never echoed whole.
        let bad = |m: &str| EmbedError::Config(format!("--embedder {:?}: {m}", clip(s)));
        match (kind, arg) {
            ("hash", None) => Ok(Self::default()),
            ("hash", Some(d)) => match d.parse::<usize>() {
                Ok(d) if (HashingEmbedder::MIN_DIM..=HashingEmbedder::MAX_DIM).contains(&d) => {
                    Ok(Self::Hash(d))
                }
                _ => Err(bad(&format!(
                    "the dimension after `hash:` must be an integer from {} to {}",
                    HashingEmbedder::MIN_DIM,
                    HashingEmbedder::MAX_DIM
                ))),
            },
            ("minilm", None) => Ok(Self::MiniLm(None)),
            ("minilm", Some(dir)) if !dir.is_empty() => Ok(Self::MiniLm(Some(dir.into()))),
            ("fastembed", Some(name)) if !name.is_empty() => Ok(Self::FastEmbed(name.into())),
            ("remote", Some(rest)) => match rest.rsplit_once('#') {
                Some((url, model)) if !url.is_empty() && !model.is_empty() => Ok(Self::Remote {
                    base_url: url.into(),
                    model: model.into(),
                }),
                _ => Err(bad(
                    "expected remote:URL#MODEL, e.g. remote:http://127.0.0.1:8000/v1#bge-small",
                )),
            },
            _ => Err(bad(
                "expected hash, hash:DIM, minilm, minilm:DIR, fastembed:NAME or remote:URL#MODEL",
            )),
        }
    }
}

impl EmbedderSpec {
    /// Builds the embedder; `api_key` is used by remote endpoints that need one.
    pub async fn build(&self, api_key: Option<ApiKey>) -> Result<Arc<dyn Embedder>, EmbedError> {
        Ok(match self {
            Self::Hash(dim) => Arc::new(HashingEmbedder::new(*dim)),
            #[cfg(feature = "minilm")]
            Self::MiniLm(Some(dir)) => Arc::new(MiniLmEmbedder::load(dir)?),
            #[cfg(feature = "minilm")]
            Self::MiniLm(None) => Arc::new(MiniLmEmbedder::from_env()?),
            #[cfg(not(feature = "minilm"))]
            Self::MiniLm(_) => {
                return Err(EmbedError::Config(
                    "minilm: colony was built without its `minilm` cargo feature (rebuild with \
                     `--features full`)"
                        .into(),
                ))
            }
            Self::Remote { base_url, model } => {
                Arc::new(RemoteEmbedder::connect(base_url, model, api_key).await?)
            }
            Self::FastEmbed(name) => fastembed_backend(name)?,
        })
    }
}

#[cfg(feature = "fastembed")]
fn fastembed_backend(name: &str) -> Result<Arc<dyn Embedder>, EmbedError> {
    Ok(Arc::new(super::fastembed::FastEmbedder::load(name)?))
}

#[cfg(not(feature = "fastembed"))]
fn fastembed_backend(name: &str) -> Result<Arc<dyn Embedder>, EmbedError> {
    Err(EmbedError::Config(format!(
        "fastembed:{name}: this colony was built without the `fastembed` cargo feature \
         (cargo build --release --features fastembed)"
    )))
}

/// Pairwise cosine similarities of unit rows (zero rows give 0).
pub fn cosine_matrix(unit_rows: &Array2<f32>) -> Array2<f32> {
    unit_rows.dot(&unit_rows.t())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form_and_rejects_bad_ones() {
        assert_eq!(
            "hash".parse::<EmbedderSpec>().unwrap(),
            EmbedderSpec::Hash(512)
        );
        assert_eq!(
            "hash:64".parse::<EmbedderSpec>().unwrap(),
            EmbedderSpec::Hash(64)
        );
        assert_eq!(
            "minilm:/m".parse::<EmbedderSpec>().unwrap(),
            EmbedderSpec::MiniLm(Some("/m".into()))
        );
        assert_eq!(
            "remote:http://h:1/v1#e5".parse::<EmbedderSpec>().unwrap(),
            EmbedderSpec::Remote {
                base_url: "http://h:1/v1".into(),
                model: "e5".into()
            }
        );
        for bad in [
            "",
            "hash:4",
            "hash:x",
            "hash:65537",
            "hash:1000000000",
            "hash:99999999999999999999999999",
            "minilm:",
            "remote:http://h/v1",
            "bert",
            "fastembed:",
        ] {
            let err = bad.parse::<EmbedderSpec>().unwrap_err().to_string();
            assert!(err.contains("--embedder"), "{bad}: {err}");
        }
        assert_eq!(
            "hash:65536".parse::<EmbedderSpec>().unwrap(),
            EmbedderSpec::Hash(HashingEmbedder::MAX_DIM)
        );
        let huge = format!("bert{}", "x".repeat(100_000));
        let err = huge.parse::<EmbedderSpec>().unwrap_err().to_string();
        assert!(err.len() < 400 && err.contains('…'), "{err}");
    }
}
