//! [`AgentId`]: the name of an agent in a team.
//!
//! Ids are cheap to clone (a shared `str`), ordered by their text so every per-agent map and
//! the transcript come out in a deterministic order, and serialize as plain strings.

use std::borrow::Borrow;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The unique, ordered name of an agent within a team (e.g. `"agent_07"`).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AgentId(Arc<str>);

impl AgentId {
    /// An id with the given text.
    pub fn new(id: impl AsRef<str>) -> Self {
        Self(Arc::from(id.as_ref()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl AsRef<str> for AgentId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for AgentId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for AgentId {
    fn from(s: &str) -> Self {
        Self::new(s)
    }
}

impl From<String> for AgentId {
    fn from(s: String) -> Self {
        Self(Arc::from(s))
    }
}

impl From<&String> for AgentId {
    fn from(s: &String) -> Self {
        Self::new(s)
    }
}

impl From<&AgentId> for AgentId {
    fn from(id: &AgentId) -> Self {
        id.clone()
    }
}

impl PartialEq<str> for AgentId {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for AgentId {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl Serialize for AgentId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for AgentId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_order_by_text_and_round_trip_as_strings() {
        let mut ids = vec![AgentId::from("b"), AgentId::from("a"), AgentId::from("a2")];
        ids.sort();
        assert_eq!(ids, vec!["a", "a2", "b"]);
        let json = serde_json::to_string(&ids).unwrap();
        assert_eq!(json, r#"["a","a2","b"]"#);
        let back: Vec<AgentId> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ids);
    }
}
