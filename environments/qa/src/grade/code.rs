//! Extracting a completion from a model's reply to a code item (docs/design/sandbox.md §4).
//!
//! Decision: the first fenced code block (```` ```python ````, ```` ``` ```` or ```` ```py ````)
//! that defines the entry point, else the first fenced block, else the whole reply as it is
//! (a completion model's raw continuation). The official harness appends the completion to
//! the prompt, so a block holding the whole function redefines it and one holding only the
//! body completes it; both run as the model wrote them.

/// The completion of `output` for a function named `entry_point`.
pub fn extract_completion(output: &str, entry_point: &str) -> String {
    let blocks = fenced_blocks(output);
    let defines = format!("def {entry_point}(");
    blocks
        .iter()
        .find(|b| b.contains(&defines))
        .or_else(|| blocks.first())
        .map_or_else(|| output.to_string(), |b| b.to_string())
}

/// The contents of every complete fenced block, in order.
fn fenced_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        match (&mut current, fence) {
            (None, true) => current = Some(Vec::new()),
            (Some(lines), true) => {
                let mut block = lines.join("\n");
                block.push('\n');
                blocks.push(block);
                current = None;
            }
            (Some(lines), false) => lines.push(line),
            (None, false) => {}
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::extract_completion;

    #[test]
    fn prefers_the_block_defining_the_entry_point() {
        let reply = "Here:\n```\nimport math\n```\nand\n```python\ndef f(x):\n    return x\n```\n";
        assert_eq!(extract_completion(reply, "f"), "def f(x):\n    return x\n");
        assert_eq!(extract_completion(reply, "g"), "import math\n");
        assert_eq!(extract_completion("    return x\n", "f"), "    return x\n");
        // An unterminated fence is not a block: the reply is taken raw.
        assert_eq!(extract_completion("```python\nx", "f"), "```python\nx");
    }
}
