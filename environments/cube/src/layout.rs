//! The ASCII notation of docs/design/cube.md §11 (render and parse) and JSON layout files.
//!
//! `.` floor, `G` goal-column floor, digits agents, lowercase letters blocks (`a` = block 0);
//! an optional first-line column ruler and optional row labels (undrawn rows are empty).

use std::collections::BTreeMap;

use crate::config::Layout;
use crate::geometry::Cell;
use crate::world::{Block, Occupant, World};
use crate::CubeError;

/// Renders the world in the §11 notation with a column ruler and row labels. Agents with an
/// index ≥ 10 are drawn as `@`, blocks with an id ≥ 26 as `#`.
pub fn render(world: &World) -> String {
    let k = world.k;
    let lw = (k - 1).max(1).to_string().len();
    let mut s = " ".repeat(lw + 2);
    s.extend((0..k).map(|c| char::from(b'0' + (c % 10) as u8)));
    s.push('\n');
    for r in 0..k {
        s.push_str(&format!("{r:>lw$}  "));
        for c in 0..k {
            s.push(match world.at((r, c)) {
                Occupant::Agent(i) if i < 10 => char::from(b'0' + i as u8),
                Occupant::Agent(_) => '@',
                Occupant::Block(id) if id < 26 => char::from(b'a' + id as u8),
                Occupant::Block(_) => '#',
                Occupant::Empty if c == k - 1 => 'G',
                Occupant::Empty => '.',
            });
        }
        s.push('\n');
    }
    s
}

fn is_ruler(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty()
        && t.chars()
            .enumerate()
            .all(|(i, ch)| ch.to_digit(10) == Some((i % 10) as u32))
        && t.len() > 1
}

/// Parses a layout: JSON (`{"grid_size", "agents": [[r, c], …], "blocks": [{"id", "weight",
/// "row", "col"}, …]}`, which a state file also satisfies) or the ASCII notation.
pub fn parse_layout(text: &str) -> Result<Layout, CubeError> {
    let t = text.trim_start();
    if t.starts_with('{') {
        return serde_json::from_str(t)
            .map_err(|e| CubeError::invalid("layout", &format!("JSON layout: {e}")));
    }
    parse_ascii(text)
}

/// Parses the ASCII notation of design §11.
pub fn parse_ascii(text: &str) -> Result<Layout, CubeError> {
    let mut lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let mut width = None;
    if let Some(&(_, first)) = lines.first() {
        if is_ruler(first) {
            width = Some(first.trim().len());
            lines.remove(0);
        }
    }
    let mut rows: Vec<(i32, usize, String)> = Vec::new();
    for (seq, &(lineno, line)) in lines.iter().enumerate() {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let (row, content) = match tokens.as_slice() {
            [content] => (seq as i32, *content),
            [label, content] if label.chars().all(|c| c.is_ascii_digit()) => {
                let r = label.parse::<i32>().map_err(|e| {
                    CubeError::invalid(&format!("layout line {}", lineno + 1), &e.to_string())
                })?;
                (r, *content)
            }
            _ => {
                return Err(CubeError::invalid(
                    &format!("layout line {}", lineno + 1),
                    "expected an optional row number and one row of cells",
                ))
            }
        };
        rows.push((row, lineno + 1, content.to_string()));
    }
    let k = match width {
        Some(w) => w,
        None => rows.first().map(|r| r.2.chars().count()).unwrap_or(0),
    };
    if k == 0 {
        return Err(CubeError::invalid("layout", "no grid rows"));
    }
    let mut agents: BTreeMap<usize, Cell> = BTreeMap::new();
    let mut block_cells: BTreeMap<u32, Vec<Cell>> = BTreeMap::new();
    for (row, lineno, content) in &rows {
        let field = format!("layout line {lineno}");
        if content.chars().count() != k {
            return Err(CubeError::invalid(
                &field,
                &format!("row has {} cells, expected {k}", content.chars().count()),
            ));
        }
        if *row < 0 || *row >= k as i32 {
            return Err(CubeError::invalid(
                &field,
                &format!("row {row} outside a {k}×{k} grid"),
            ));
        }
        for (c, ch) in content.chars().enumerate() {
            let cell = (*row, c as i32);
            match ch {
                '.' | 'G' => {}
                '0'..='9' => {
                    let i = ch as usize - '0' as usize;
                    if agents.insert(i, cell).is_some() {
                        return Err(CubeError::invalid(
                            &field,
                            &format!("agent {i} drawn twice"),
                        ));
                    }
                }
                'a'..='z' => block_cells
                    .entry(ch as u32 - 'a' as u32)
                    .or_default()
                    .push(cell),
                other => {
                    return Err(CubeError::invalid(
                        &field,
                        &format!("unknown cell {other:?} at column {c}; use . G 0-9 a-z"),
                    ))
                }
            }
        }
    }
    let n = agents.len();
    if let Some((i, _)) = agents.iter().enumerate().find(|(pos, (i, _))| *pos != **i) {
        return Err(CubeError::invalid(
            "layout",
            &format!("agent {i} is missing (agents must be numbered 0..{n})"),
        ));
    }
    let mut blocks = Vec::new();
    for (id, cells) in block_cells {
        let letter = char::from(b'a' + id as u8);
        let r0 = cells.iter().map(|c| c.0).min().unwrap_or(0);
        let c0 = cells.iter().map(|c| c.1).min().unwrap_or(0);
        let r1 = cells.iter().map(|c| c.0).max().unwrap_or(0);
        let c1 = cells.iter().map(|c| c.1).max().unwrap_or(0);
        let w = r1 - r0 + 1;
        if c1 - c0 + 1 != w || cells.len() != (w * w) as usize {
            return Err(CubeError::invalid(
                &format!("layout block {letter}"),
                "cells do not form a filled square",
            ));
        }
        blocks.push(Block {
            id,
            weight: w as u32,
            row: r0,
            col: c0,
        });
    }
    Ok(Layout {
        grid_size: k as u32,
        blocks,
        agents: agents.into_values().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_round_trip_with_ruler_and_labels() {
        let text = "   01234567\n0  .......G\n1  .0aab..G\n2  21aa...G\n3  .......G\n";
        let l = parse_ascii(text).unwrap();
        assert_eq!(l.grid_size, 8);
        assert_eq!(l.agents, vec![(1, 1), (2, 1), (2, 0)]);
        assert_eq!(l.blocks.len(), 2);
        assert_eq!(
            (l.blocks[0].weight, l.blocks[0].row, l.blocks[0].col),
            (2, 1, 2)
        );
        let w = World::new(8, l.agents.clone(), l.blocks.clone()).unwrap();
        let again = parse_ascii(&render(&w)).unwrap();
        assert_eq!(again, l);
    }

    #[test]
    fn bad_layouts_name_the_line() {
        let err = parse_ascii("012\n.?.\n").unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        let err = parse_ascii("aa.\na..\n...\n").unwrap_err().to_string();
        assert!(err.contains("block a"), "{err}");
        let err = parse_ascii("1..\n...\n...\n").unwrap_err().to_string();
        assert!(err.contains("agent 0"), "{err}");
    }
}
