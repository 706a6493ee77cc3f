//! all-MiniLM-L6-v2 in pure Rust: candle's BERT plus the HuggingFace tokenizer.
//!
//! Exactly what sentence-transformers does for this model: tokenize with truncation at 256
//! word pieces (the model's `max_seq_length`) and padding to the longest text of the batch,
//! run BERT, mean-pool the last hidden states over the attention mask, L2-normalize
//! (`2_Normalize`). The `tokenizer.json` shipped with the model fixes padding and truncation at
//! 128; both are overridden here, as sentence-transformers does.
//!
//! Texts are sorted by length and run in batches of [`MiniLmEmbedder::BATCH`], so padding
//! stays small; padding is masked, so a text's vector does not depend on its batch.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use ndarray::Array2;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::{EmbedError, Embedder};

pub use super::MINILM_DIR_ENV;

/// Files a sentence-transformers directory must have for this backend.
const REQUIRED: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

struct Inner {
    model: BertModel,
    tokenizer: Tokenizer,
    dim: usize,
}

/// The all-MiniLM-L6-v2 sentence embedder (384 dimensions), loaded from a local directory.
#[derive(Clone)]
pub struct MiniLmEmbedder {
    inner: Arc<Inner>,
    id: String,
    dir: PathBuf,
}

impl std::fmt::Debug for MiniLmEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLmEmbedder")
            .field("dir", &self.dir)
            .finish()
    }
}

fn model_err(dir: &Path, e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Model {
        model: format!("minilm:{}", dir.display()),
        message: e.to_string(),
    }
}

impl MiniLmEmbedder {
    /// Texts per forward pass.
    pub const BATCH: usize = 32;
    /// Truncation length in word pieces (sentence-transformers' `max_seq_length`).
    pub const MAX_TOKENS: usize = 256;

    /// Loads the model from a sentence-transformers directory; a missing file is an error
    /// naming it.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let shown = dir.display().to_string();
        for file in REQUIRED {
            if !dir.join(file).is_file() {
                return Err(EmbedError::MissingFile {
                    dir: shown,
                    file: file.to_string(),
                });
            }
        }
        let config_text = std::fs::read_to_string(dir.join("config.json"))
            .map_err(|e| model_err(dir, format!("config.json: {e}")))?;
        let config: Config = serde_json::from_str(&config_text)
            .map_err(|e| model_err(dir, format!("config.json: {e}")))?;
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| model_err(dir, format!("tokenizer.json: {e}")))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..PaddingParams::default()
        }));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: Self::MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| model_err(dir, format!("tokenizer truncation: {e}")))?;
        let weights = dir.join("model.safetensors");
        // SAFETY-free alternative: read the file into memory instead of mmapping it
        // (the workspace forbids `unsafe`); 90 MB, read once per process.
        let bytes = std::fs::read(&weights)
            .map_err(|e| model_err(dir, format!("model.safetensors: {e}")))?;
        let vb = VarBuilder::from_buffered_safetensors(bytes, DType::F32, &Device::Cpu)
            .map_err(|e| model_err(dir, format!("model.safetensors: {e}")))?;
        let model = BertModel::load(vb, &config)
            .map_err(|e| model_err(dir, format!("model.safetensors: {e}")))?;
        Ok(Self {
            inner: Arc::new(Inner {
                model,
                tokenizer,
                dim: config.hidden_size,
            }),
            id: "all-MiniLM-L6-v2".to_string(),
            dir: dir.to_path_buf(),
        })
    }

    /// Loads from `$COLONY_MINILM_DIR`.
    pub fn from_env() -> Result<Self, EmbedError> {
        let dir = std::env::var_os(MINILM_DIR_ENV).ok_or_else(|| {
            EmbedError::Config(format!(
                "no MiniLM directory: use --embedder minilm:DIR or set {MINILM_DIR_ENV} \
                 (install it with `colony embed fetch-minilm`)"
            ))
        })?;
        Self::load(Path::new(&dir))
    }

    /// The model directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Embeds `texts` on the calling thread.
    pub fn embed_sync(&self, texts: &[String]) -> Result<Array2<f32>, EmbedError> {
        let dim = self.inner.dim;
        let mut out = Array2::<f32>::zeros((texts.len(), dim));
        // Longest first, so each batch pads to similar lengths.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
        for chunk in order.chunks(Self::BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
            let vectors = self.forward(&batch)?;
            for (row, &i) in chunk.iter().enumerate() {
                out.row_mut(i).assign(&ndarray::ArrayView1::from(
                    &vectors[row * dim..(row + 1) * dim],
                ));
            }
        }
        Ok(out)
    }

    /// One forward pass: mean-pooled, normalized vectors, flattened row-major.
    fn forward(&self, batch: &[&str]) -> Result<Vec<f32>, EmbedError> {
        let err = |e: &dyn std::fmt::Display| model_err(&self.dir, e);
        let inner = &self.inner;
        let encodings = inner
            .tokenizer
            .encode_batch(batch.to_vec(), true)
            .map_err(|e| err(&e))?;
        let n = encodings.len();
        let t = encodings.first().map_or(0, |e| e.get_ids().len());
        let mut ids = Vec::with_capacity(n * t);
        let mut mask = Vec::with_capacity(n * t);
        for e in &encodings {
            ids.extend_from_slice(e.get_ids());
            mask.extend_from_slice(e.get_attention_mask());
        }
        let dev = Device::Cpu;
        let ids = Tensor::from_vec(ids, (n, t), &dev).map_err(|e| err(&e))?;
        let mask = Tensor::from_vec(mask, (n, t), &dev).map_err(|e| err(&e))?;
        let type_ids = ids.zeros_like().map_err(|e| err(&e))?;
        let hidden = inner
            .model
            .forward(&ids, &type_ids, Some(&mask))
            .map_err(|e| err(&e))?;
        let pooled = (|| {
            let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
            let summed = hidden.broadcast_mul(&m)?.sum(1)?;
            let counts = m.sum(1)?.clamp(1e-9f32, f32::MAX)?;
            let mean = summed.broadcast_div(&counts)?;
            let norms = mean
                .sqr()?
                .sum_keepdim(1)?
                .sqrt()?
                .clamp(1e-12f32, f32::MAX)?;
            mean.broadcast_div(&norms)?.flatten_all()?.to_vec1::<f32>()
        })()
        .map_err(|e| err(&e))?;
        Ok(pooled)
    }
}

#[async_trait]
impl Embedder for MiniLmEmbedder {
    async fn embed(&self, texts: &[String]) -> Result<Array2<f32>, EmbedError> {
        if texts.is_empty() {
            return Ok(Array2::zeros((0, self.inner.dim)));
        }
        let this = self.clone();
        let texts = texts.to_vec();
        tokio::task::spawn_blocking(move || this.embed_sync(&texts))
            .await
            .map_err(|e| model_err(&self.dir, format!("embedding task failed: {e}")))?
    }
    fn dim(&self) -> usize {
        self.inner.dim
    }
    fn id(&self) -> &str {
        &self.id
    }
    fn max_input_tokens(&self) -> Option<usize> {
        Some(Self::MAX_TOKENS)
    }
}
