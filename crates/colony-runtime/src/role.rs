//! Role cards: an agent's name, system prompt and default sampling, kept as data in TOML.
//!
//! Role prompts are data (docs/design/reasoning.md §0.1), so they live in `roles/*.toml` where
//! their hash can go into a run manifest, not in code. Unknown keys are rejected so a typo in a
//! card is an error naming the file instead of a silently ignored setting. The format is described
//! in `roles/README.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use colony_llm::{Sampling, SamplingKeys};

/// What an agent is: its role name, system prompt and default sampling parameters.
///
/// In TOML the sampling keys sit at the top level (`temperature`, `top_p`, `max_tokens`);
/// seeds and stop sequences are per call, not role-card keys (a card built in code may still
/// set them in [`RoleCard::sampling`], but they are not written back to TOML).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "RoleCardFile", into = "RoleCardFile")]
pub struct RoleCard {
    /// Role name (e.g. `"assistant"`, `"validator"`).
    pub name: String,
    /// System prompt sent first in every call of an agent with this role (empty = none).
    pub system_prompt: String,
    /// One-line human description of the role.
    pub description: String,
    /// Default sampling of this role's calls: it beats the command-line flags, `models.toml`
    /// and the built-in defaults, and per-call options beat it (see [`Sampling`]).
    pub sampling: Sampling,
    /// Role-specific settings a policy or environment reads (e.g. a Wildfire agent's capacity).
    pub params: BTreeMap<String, toml::Value>,
}

/// The TOML layout of a role card (flat sampling keys, unknown keys rejected).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoleCardFile {
    name: String,
    system_prompt: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    params: BTreeMap<String, toml::Value>,
}

impl From<RoleCardFile> for RoleCard {
    fn from(f: RoleCardFile) -> Self {
        Self {
            name: f.name,
            system_prompt: f.system_prompt,
            description: f.description,
            sampling: Sampling {
                temperature: f.temperature,
                top_p: f.top_p,
                max_tokens: f.max_tokens,
                ..Sampling::default()
            },
            params: f.params,
        }
    }
}

impl From<RoleCard> for RoleCardFile {
    fn from(c: RoleCard) -> Self {
        Self {
            name: c.name,
            system_prompt: c.system_prompt,
            description: c.description,
            temperature: c.sampling.temperature,
            top_p: c.sampling.top_p,
            max_tokens: c.sampling.max_tokens,
            params: c.params,
        }
    }
}

/// Why a role card could not be loaded.
#[derive(Debug, Error)]
pub enum RoleError {
    /// The file could not be read.
    #[error("role card {}: cannot read: {source}", .path.display())]
    Io {
        /// The card file.
        path: PathBuf,
        /// Underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML or does not match the role-card format.
    #[error("role card {}: {message}", .path.display())]
    Parse {
        /// The card file.
        path: PathBuf,
        /// The TOML parser's message (with line and column).
        message: String,
    },
    /// The card parsed but a field has an invalid value.
    #[error("role card {}: {message}", .path.display())]
    Invalid {
        /// The card file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl RoleCard {
    /// A card with a name and a system prompt and no sampling defaults.
    pub fn new(name: impl Into<String>, system_prompt: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            system_prompt: system_prompt.into(),
            description: String::new(),
            sampling: Sampling::default(),
            params: BTreeMap::new(),
        }
    }

    /// Reads and validates a card from a TOML file; errors name the file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, RoleError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| RoleError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Parses and validates a card from TOML text; `origin` names it in errors.
    pub fn parse(text: &str, origin: impl AsRef<Path>) -> Result<Self, RoleError> {
        let path = origin.as_ref();
        let card: RoleCard = toml::from_str(text).map_err(|e| {
            // One line with the line number, not toml's multi-line picture.
            let line = e.span().map_or(1, |s| {
                text.get(..s.start)
                    .map_or(1, |t| t.matches('\n').count() + 1)
            });
            RoleError::Parse {
                path: path.to_path_buf(),
                message: format!("line {line}: {}", e.message().replace('\n', " ").trim()),
            }
        })?;
        card.validate().map_err(|message| RoleError::Invalid {
            path: path.to_path_buf(),
            message,
        })?;
        Ok(card)
    }

    /// Loads every `*.toml` card of a directory, keyed (and ordered) by role name.
    pub fn load_dir(dir: impl AsRef<Path>) -> Result<BTreeMap<String, RoleCard>, RoleError> {
        let dir = dir.as_ref();
        let io_err = |source| RoleError::Io {
            path: dir.to_path_buf(),
            source,
        };
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io_err)? {
            let path = entry.map_err(io_err)?.path();
            if path.extension().is_some_and(|e| e == "toml") {
                paths.push(path);
            }
        }
        paths.sort();
        let mut cards = BTreeMap::new();
        for path in paths {
            let card = Self::load(&path)?;
            if cards.contains_key(&card.name) {
                let message = format!("role name {:?} is already used by another card", card.name);
                return Err(RoleError::Invalid { path, message });
            }
            cards.insert(card.name.clone(), card);
        }
        Ok(cards)
    }

    /// Checks field values; the message names the offending field.
    fn validate(&self) -> Result<(), String> {
        if self.name.trim().is_empty() {
            return Err("field `name` must not be empty".into());
        }
        self.sampling
            .validate(SamplingKeys::Keys)
            .map_err(|e| format!("field {e}"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_full_card() {
        let card = RoleCard::parse(
            "name = \"critic\"\nsystem_prompt = \"Be critical.\"\ntemperature = 0.2\n\
             max_tokens = 64\n[params]\nweight = 2\n",
            "critic.toml",
        )
        .unwrap();
        assert_eq!(card.name, "critic");
        assert_eq!(card.sampling.temperature, Some(0.2));
        assert_eq!(card.sampling.max_tokens, Some(64));
        assert_eq!(
            card.params.get("weight").and_then(|v| v.as_integer()),
            Some(2)
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_file_and_field() {
        let e = RoleCard::parse(
            "name = \"a\"\nsystem_prompt = \"\"\ntemprature = 1\n",
            "a.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("a.toml") && e.contains("temprature"), "{e}");
        let e = RoleCard::parse("name = \"\"\nsystem_prompt = \"x\"\n", "b.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("b.toml") && e.contains("`name`"), "{e}");
        let e = RoleCard::parse(
            "name = \"a\"\nsystem_prompt = \"x\"\ntemperature = 9.0\n",
            "c.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("c.toml") && e.contains("`temperature`"), "{e}");
    }

    #[test]
    fn the_shipped_assistant_card_loads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../roles/assistant.toml");
        let card = RoleCard::load(&path).unwrap();
        assert_eq!(card.name, "assistant");
        assert!(!card.system_prompt.is_empty());
    }
}
