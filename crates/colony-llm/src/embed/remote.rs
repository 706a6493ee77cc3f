//! Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint (vLLM, TEI, Ollama, OpenAI,
//! `colony serve-mock`), through the spine's client: the same retries, deadline, concurrency
//! limit and key handling as chat calls.

use async_trait::async_trait;
use ndarray::Array2;

use super::{l2_normalize_rows, EmbedError, Embedder};
use crate::{ApiKey, ClientSettings, EndpointSettings, OpenAiClient};

/// Texts per request.
const BATCH: usize = 64;

/// A remote embedder. Rows are L2-normalized here (servers differ on whether they normalize).
#[derive(Debug)]
pub struct RemoteEmbedder {
    client: OpenAiClient,
    dim: usize,
    id: String,
}

impl RemoteEmbedder {
    /// Connects to `base_url` for `model` and learns the dimension with one probe request.
    pub async fn connect(
        base_url: &str,
        model: &str,
        api_key: Option<ApiKey>,
    ) -> Result<Self, EmbedError> {
        let endpoint = EndpointSettings {
            api_key,
            ..EndpointSettings::new(base_url)
        };
        let client = OpenAiClient::new(ClientSettings::new(model), vec![endpoint])?;
        Self::from_client(client).await
    }

    /// Wraps a configured client (its model name is the embedding model).
    pub async fn from_client(client: OpenAiClient) -> Result<Self, EmbedError> {
        let (probe, _) = client.embeddings(&["dimension probe".to_string()]).await?;
        let dim = probe.first().map_or(0, Vec::len);
        if dim == 0 {
            return Err(EmbedError::Config(format!(
                "{}: the server returned an empty embedding",
                client.base_urls().join(", ")
            )));
        }
        let id = format!(
            "remote:{}#{}",
            client.base_urls().join(","),
            client.settings().model
        );
        Ok(Self { client, dim, id })
    }
}

#[async_trait]
impl Embedder for RemoteEmbedder {
    async fn embed(&self, texts: &[String]) -> Result<Array2<f32>, EmbedError> {
        let mut out = Array2::<f32>::zeros((texts.len(), self.dim));
        for (b, chunk) in texts.chunks(BATCH).enumerate() {
            let (vectors, _) = self.client.embeddings(chunk).await?;
            for (i, v) in vectors.iter().enumerate() {
                if v.len() != self.dim {
                    return Err(EmbedError::Config(format!(
                        "{}: embedding of dimension {} after {} at first",
                        self.id,
                        v.len(),
                        self.dim
                    )));
                }
                out.row_mut(b * BATCH + i)
                    .assign(&ndarray::ArrayView1::from(v));
            }
        }
        l2_normalize_rows(&mut out);
        Ok(out)
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn id(&self) -> &str {
        &self.id
    }
}
