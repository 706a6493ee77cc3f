//! Tag parsing of framework replies (docs/design/frameworks.md §14.1): `<action>…</action>`, with
//! the closing tag written either as `</TAG>` or as a repeated `<TAG>` (the paper's examples use
//! both), case-insensitive tag names.

use std::collections::BTreeMap;

/// The trimmed content of the first `<tag>` in `text`, ended by `</tag>`, a repeated `<tag>`,
/// or the end of the text; `None` when the tag is absent or empty (§14.1: "not given").
pub fn tag_content(text: &str, tag: &str) -> Option<String> {
    TagText::new(text).get(tag)
}

/// Longest tag name looked at (`<…>` spans longer than this are not tags).
const MAX_TAG_LEN: usize = 64;

/// A reply prepared for many tag lookups ([`tag_content`] per tag): it is case-folded and
/// scanned for `<…>` tags once, so looking up every agent's tags in a plan costs one pass
/// over the reply, not one per agent and name form.
#[derive(Debug, Clone)]
pub struct TagText<'a> {
    text: &'a str,
    /// Byte offsets of each `<name>` (name lowercased; `/name` for closing tags), ascending.
    tags: BTreeMap<String, Vec<usize>>,
}

impl<'a> TagText<'a> {
    /// Prepares `text`.
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut tags: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut i = 0;
        while let Some(off) = bytes[i..].iter().position(|&b| b == b'<') {
            let at = i + off;
            let rest = &bytes[at + 1..bytes.len().min(at + 2 + MAX_TAG_LEN)];
            // The span must close before another `<`; text[at+1..at+1+len] is then whole
            // characters because `<` and `>` are ASCII.
            if let Some(len) = rest.iter().position(|&b| b == b'>' || b == b'<') {
                if rest[len] == b'>' {
                    let name = text[at + 1..at + 1 + len].to_ascii_lowercase();
                    tags.entry(name).or_default().push(at);
                }
            }
            i = at + 1;
        }
        Self { text, tags }
    }

    /// [`tag_content`] of `tag` in the prepared text.
    pub fn get(&self, tag: &str) -> Option<String> {
        let tag = tag.to_ascii_lowercase();
        let opens = self.tags.get(&tag)?;
        let start = opens.first()? + tag.len() + 2;
        let after = |positions: Option<&Vec<usize>>| {
            positions.and_then(|p| p.iter().copied().find(|&q| q >= start))
        };
        let end = [after(self.tags.get(&format!("/{tag}"))), after(Some(opens))]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(self.text.len());
        let content = self.text[start..end].trim();
        (!content.is_empty()).then(|| content.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_closing_forms_case_and_absence() {
        assert_eq!(
            tag_content(
                "<reasoning>x</reasoning><action> move to (3, 4) </action>",
                "action"
            )
            .as_deref(),
            Some("move to (3, 4)")
        );
        assert_eq!(
            tag_content("<ACTION>cut all trees<ACTION>", "action").as_deref(),
            Some("cut all trees")
        );
        assert_eq!(
            tag_content("<action>fly north", "action").as_deref(),
            Some("fly north")
        );
        assert_eq!(tag_content("<action>  </action>", "action"), None);
        assert_eq!(tag_content("no tags", "action"), None);
    }

    #[test]
    fn one_scan_answers_like_a_search_per_tag() {
        let text =
            "<<Action>>go <AGENT 1-action>a<AGENT 1-action> é<agent_2-ACTION> b </agent_2-action>\
                    <action>second</action> <x <y> <open";
        let t = TagText::new(text);
        assert_eq!(
            t.get("action").as_deref(),
            Some(">go <AGENT 1-action>a<AGENT 1-action> é<agent_2-ACTION> b </agent_2-action>")
        );
        assert_eq!(t.get("AGENT 1-action").as_deref(), Some("a"));
        assert_eq!(t.get("agent_2-action").as_deref(), Some("b"));
        assert_eq!(t.get("y").as_deref(), Some("<open"));
        assert_eq!(t.get("open"), None);
        assert_eq!(t.get("missing"), None);
    }
}
