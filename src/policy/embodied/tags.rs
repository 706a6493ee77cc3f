//! Tag parsing of framework replies (CREW-Wildfire spec §14.1): `<action>…</action>`, with the
//! closing tag written either as `</TAG>` or as a repeated `<TAG>` (the paper's examples use
//! both), case-insensitive tag names.

/// The trimmed content of the first `<tag>` in `text`, ended by `</tag>`, a repeated `<tag>`,
/// or the end of the text; `None` when the tag is absent or empty (§14.1: "not given").
pub fn tag_content(text: &str, tag: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let open = format!("<{}>", tag.to_ascii_lowercase());
    let close = format!("</{}>", tag.to_ascii_lowercase());
    let start = lower.find(&open)? + open.len();
    let rest = &lower[start..];
    let end = [rest.find(&close), rest.find(&open)]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
    // Lowercasing ASCII keeps byte offsets, so they index the original text.
    let content = text[start..start + end].trim();
    (!content.is_empty()).then(|| content.to_string())
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
}
