//! An agent's k×k view of the map and its exact text rendering
//! (docs/design/swarmbench.md §10.1–10.2).

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::world::{Cell, MeshKind, World};

/// One cell of a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ViewCell {
    /// Off the map: `*`.
    Off,
    /// A map symbol (`.`, `W`, `B`, `P`, `F`, `N`).
    Sym(char),
    /// An agent: its id, with `$` when its map symbol is not `A`.
    Agent {
        /// Agent index.
        id: u32,
        /// Drawn as `$id`.
        dollar: bool,
    },
}

impl ViewCell {
    /// The cell text as logged (ids, `$`ids, symbols; no `Y`).
    pub fn text(self) -> String {
        match self {
            ViewCell::Off => "*".into(),
            ViewCell::Sym(c) => c.to_string(),
            ViewCell::Agent { id, dollar } => {
                if dollar {
                    format!("${id}")
                } else {
                    id.to_string()
                }
            }
        }
    }

    /// Parses a logged cell text back.
    pub fn parse(s: &str) -> Option<Self> {
        if s == "*" {
            return Some(ViewCell::Off);
        }
        if let Some(rest) = s.strip_prefix('$') {
            return rest
                .parse()
                .ok()
                .map(|id| ViewCell::Agent { id, dollar: true });
        }
        if let Ok(id) = s.parse() {
            return Some(ViewCell::Agent { id, dollar: false });
        }
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Some(ViewCell::Sym(c)),
            _ => None,
        }
    }
}

/// A rectangular view: its top-left global cell, size and cells (row-major).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// Global cell of the view's top-left corner.
    pub origin: Cell,
    /// Rows.
    pub rows: i32,
    /// Columns.
    pub cols: i32,
    /// The observer's own cell inside the view (shown as `Y` in prompts), if any.
    pub own: Option<(i32, i32)>,
    /// Cells, row-major.
    pub cells: Vec<ViewCell>,
}

/// Mesh index → agent index (for drawing ids).
pub fn cell_at(world: &World, agent_of_mesh: &[u32], c: Cell) -> ViewCell {
    if !world.on_map(c) {
        return ViewCell::Off;
    }
    match world.occupant(c) {
        Some(k) if world.meshes[k].kind == MeshKind::Agent => {
            let id = agent_of_mesh.get(k).copied().unwrap_or(u32::MAX);
            ViewCell::Agent {
                id,
                dollar: world.symbol(c) != 'A',
            }
        }
        _ => ViewCell::Sym(world.symbol(c)),
    }
}

/// The k×k view around `center` (offsets −k/2 … k−1−k/2, Q31), filling `out`.
pub fn local_view(world: &World, agent_of_mesh: &[u32], center: Cell, k: i32, out: &mut View) {
    let h = k / 2;
    out.origin = (center.0 - h, center.1 - h);
    out.rows = k;
    out.cols = k;
    out.own = Some((h, h));
    out.cells.clear();
    for a in 0..k {
        for b in 0..k {
            out.cells.push(cell_at(
                world,
                agent_of_mesh,
                (center.0 - h + a, center.1 - h + b),
            ));
        }
    }
}

/// The whole map as a view (the commander's global view, appendix L.3).
pub fn global_view(world: &World, agent_of_mesh: &[u32], center: Cell, out: &mut View) {
    out.origin = (0, 0);
    out.rows = world.height;
    out.cols = world.width;
    out.own = world.on_map(center).then_some(center);
    out.cells.clear();
    for i in 0..world.height {
        for j in 0..world.width {
            out.cells.push(cell_at(world, agent_of_mesh, (i, j)));
        }
    }
}

impl View {
    /// An empty view (to fill).
    pub fn empty() -> Self {
        Self {
            origin: (0, 0),
            rows: 0,
            cols: 0,
            own: None,
            cells: Vec::new(),
        }
    }

    /// The view's rows as logged: cell texts, no `Y` (design §12.3).
    pub fn rows_text(&self) -> Vec<Vec<String>> {
        self.cells
            .chunks(self.cols.max(1) as usize)
            .map(|r| r.iter().map(|c| c.text()).collect())
            .collect()
    }

    /// The exact prompt text (design §10.2): header of column numbers in width 3 joined by
    /// spaces, then per row the row number in width 3, two spaces, and each cell left-aligned
    /// in width 4; the observer's cell is `Y`.
    pub fn render(&self) -> String {
        let mut s = String::with_capacity((self.rows as usize + 1) * (self.cols as usize * 4 + 6));
        s.push_str("   ");
        for b in 0..self.cols {
            if b > 0 {
                s.push(' ');
            }
            let _ = write!(s, "{:>3}", self.origin.1 + b);
        }
        s.push('\n');
        for a in 0..self.rows {
            let _ = write!(s, "{:>3}  ", self.origin.0 + a);
            for b in 0..self.cols {
                let cell = self.cells[(a * self.cols + b) as usize];
                if self.own == Some((a, b)) {
                    s.push_str("Y   ");
                } else {
                    let _ = write!(s, "{:<4}", cell.text());
                }
            }
            s.push('\n');
        }
        s
    }
}
