//! fastembed backend (cargo feature `fastembed`): ONNX sentence-embedding models.
//!
//! `fastembed:NAME` takes either a model fastembed knows (its code, e.g.
//! `sentence-transformers/all-MiniLM-L6-v2`, or its enum name, e.g. `AllMiniLML6V2`), fetched
//! from the Hugging Face hub on first use, or a local directory holding `model.onnx`,
//! `tokenizer.json`, `config.json`, `special_tokens_map.json` and `tokenizer_config.json`
//! (mean pooling). ONNX Runtime is loaded at run time from `ORT_DYLIB_PATH` (the PyPI
//! `onnxruntime` wheel contains `libonnxruntime.so`); nothing is downloaded at build time.
//! This cannot run in colony's offline CI (no model hub), where it is only compiled.

use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use fastembed::{
    EmbeddingModel, InitOptionsUserDefined, Pooling, TextEmbedding, TextInitOptions,
    TokenizerFiles, UserDefinedEmbeddingModel,
};
use ndarray::Array2;

use super::{l2_normalize_rows, EmbedError, Embedder};

/// A fastembed text-embedding model.
#[derive(Clone)]
pub struct FastEmbedder {
    model: Arc<Mutex<TextEmbedding>>,
    dim: usize,
    id: String,
}

impl std::fmt::Debug for FastEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FastEmbedder")
            .field("id", &self.id)
            .finish()
    }
}

fn err(name: &str, e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Model {
        model: format!("fastembed:{name}"),
        message: e.to_string(),
    }
}

impl FastEmbedder {
    /// Loads `name`: a local ONNX directory or a model fastembed knows.
    pub fn load(name: &str) -> Result<Self, EmbedError> {
        let dir = Path::new(name);
        let model = if dir.is_dir() {
            let read = |f: &str| {
                std::fs::read(dir.join(f)).map_err(|_| EmbedError::MissingFile {
                    dir: name.to_string(),
                    file: f.to_string(),
                })
            };
            let files = TokenizerFiles {
                tokenizer_file: read("tokenizer.json")?,
                config_file: read("config.json")?,
                special_tokens_map_file: read("special_tokens_map.json")?,
                tokenizer_config_file: read("tokenizer_config.json")?,
            };
            let user = UserDefinedEmbeddingModel::new(read("model.onnx")?, files)
                .with_pooling(Pooling::Mean);
            TextEmbedding::try_new_from_user_defined(user, InitOptionsUserDefined::default())
                .map_err(|e| err(name, e))?
        } else {
            let known = TextEmbedding::list_supported_models();
            let info =
                known
                    .iter()
                    .find(|m| m.model_code == name || format!("{:?}", m.model) == name)
                    .ok_or_else(|| {
                        EmbedError::Config(format!(
                        "fastembed:{name}: not a directory and not a fastembed model; known: {}",
                        known.iter().map(|m| m.model_code.as_str()).collect::<Vec<_>>().join(", ")
                    ))
                    })?;
            let model: EmbeddingModel = info.model.clone();
            TextEmbedding::try_new(TextInitOptions::new(model)).map_err(|e| err(name, e))?
        };
        let mut model = model;
        let probe = model
            .embed(["dimension probe"], None)
            .map_err(|e| err(name, e))?;
        let dim = probe.first().map_or(0, Vec::len);
        Ok(Self {
            model: Arc::new(Mutex::new(model)),
            dim,
            id: format!("fastembed:{name}"),
        })
    }

    /// Embeds on the calling thread.
    pub fn embed_sync(&self, texts: &[String]) -> Result<Array2<f32>, EmbedError> {
        let vectors = {
            let mut model = self.model.lock().unwrap_or_else(|p| p.into_inner());
            model.embed(texts, None).map_err(|e| err(&self.id, e))?
        };
        let mut out = Array2::<f32>::zeros((texts.len(), self.dim));
        for (i, v) in vectors.iter().enumerate() {
            out.row_mut(i)
                .assign(&ndarray::ArrayView1::from(v.as_slice()));
        }
        l2_normalize_rows(&mut out);
        Ok(out)
    }
}

#[async_trait]
impl Embedder for FastEmbedder {
    async fn embed(&self, texts: &[String]) -> Result<Array2<f32>, EmbedError> {
        let this = self.clone();
        let texts = texts.to_vec();
        tokio::task::spawn_blocking(move || this.embed_sync(&texts))
            .await
            .map_err(|e| err(&self.id, e))?
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn id(&self) -> &str {
        &self.id
    }
}
