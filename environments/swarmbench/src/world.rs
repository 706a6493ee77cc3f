//! The grid and the objects on it ("meshes"): positions, shapes, masses, the character map and
//! the occupancy map (docs/design/swarmbench.md §1–2, §4.7).

use serde::{Deserialize, Serialize};

/// A cell `(i, j)`: row (down), column (right); may lie off the map.
pub type Cell = (i32, i32);

/// Sentinel for "no object" in the occupancy map.
pub const EMPTY: u32 = u32::MAX;

/// What an object is (design §2); decides symbol conventions and whether it has an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MeshKind {
    /// An agent (1×1, mass 1, pushes with force 2).
    Agent,
    /// A wall object (static).
    Wall,
    /// A pushable block (the Transport box, generic blocks).
    Block,
    /// The Pursuit prey.
    Prey,
    /// The Foraging food (static).
    Food,
}

/// One object: anchor, occupied cells with their symbols, mass and flags (design §1–2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mesh {
    /// Name (`Agent_3`, `wall`, `box`, …).
    pub id: String,
    /// Kind of object.
    pub kind: MeshKind,
    /// Top-left anchor of the shape.
    pub pos: Cell,
    /// Occupied offsets `(r, c)` from the anchor, each with its map symbol.
    pub cells: Vec<(i32, i32, char)>,
    /// Mass (design §2: `floor(sqrt(area))` unless fixed).
    pub mass: i64,
    /// Static objects never move.
    pub is_static: bool,
    /// False once no cell is on the map (design §4.3: gone for good).
    pub present: bool,
}

/// Integer square root (floor), for the mass rule of design §2.
pub fn isqrt(n: i64) -> i64 {
    if n <= 0 {
        return 0;
    }
    let mut x = (n as f64).sqrt() as i64;
    while x * x > n {
        x -= 1;
    }
    while (x + 1) * (x + 1) <= n {
        x += 1;
    }
    x
}

impl Mesh {
    /// A mesh from shape rows (`.` = not part of the object), mass by the area rule.
    pub fn from_rows(id: &str, kind: MeshKind, pos: Cell, rows: &[&str], is_static: bool) -> Self {
        let mut cells = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for (c, ch) in row.chars().enumerate() {
                if ch != '.' {
                    cells.push((r as i32, c as i32, ch));
                }
            }
        }
        let mass = isqrt(cells.len() as i64);
        Self {
            id: id.to_string(),
            kind,
            pos,
            cells,
            mass,
            is_static,
            present: true,
        }
    }

    /// A 1×1 mesh.
    pub fn single(id: &str, kind: MeshKind, pos: Cell, symbol: char, is_static: bool) -> Self {
        Self {
            id: id.to_string(),
            kind,
            pos,
            cells: vec![(0, 0, symbol)],
            mass: 1,
            is_static,
            present: true,
        }
    }

    /// Absolute cells with their symbols.
    pub fn abs_cells(&self) -> impl Iterator<Item = (Cell, char)> + '_ {
        let (pi, pj) = self.pos;
        self.cells
            .iter()
            .map(move |&(r, c, ch)| ((pi + r, pj + c), ch))
    }

    /// The shape as rows of characters (`.` for empty), as in the physics JSON format.
    pub fn shape_rows(&self) -> Vec<String> {
        let rows = self.cells.iter().map(|c| c.0).max().map_or(0, |m| m + 1);
        let cols = self.cells.iter().map(|c| c.1).max().map_or(0, |m| m + 1);
        let mut grid = vec![vec!['.'; cols as usize]; rows as usize];
        for &(r, c, ch) in &self.cells {
            grid[r as usize][c as usize] = ch;
        }
        grid.into_iter().map(|r| r.into_iter().collect()).collect()
    }
}

/// The map: size, objects, character map and occupancy map (design §1).
#[derive(Debug, Clone, PartialEq)]
pub struct World {
    /// Rows.
    pub height: i32,
    /// Columns.
    pub width: i32,
    /// Every object, in creation order (agents first, by index, in the five tasks).
    pub meshes: Vec<Mesh>,
    sym: Vec<u8>,
    occ: Vec<u32>,
}

impl World {
    /// An empty map.
    pub fn new(height: i32, width: i32) -> Self {
        let n = (height.max(0) * width.max(0)) as usize;
        Self {
            height,
            width,
            meshes: Vec::new(),
            sym: vec![b'.'; n],
            occ: vec![EMPTY; n],
        }
    }

    /// Whether a cell is on the map.
    #[inline]
    pub fn on_map(&self, (i, j): Cell) -> bool {
        i >= 0 && j >= 0 && i < self.height && j < self.width
    }

    #[inline]
    fn idx(&self, (i, j): Cell) -> usize {
        (i * self.width + j) as usize
    }

    /// The map symbol of a cell (`*` off the map, `.` empty).
    #[inline]
    pub fn symbol(&self, c: Cell) -> char {
        if self.on_map(c) {
            char::from(self.sym[self.idx(c)])
        } else {
            '*'
        }
    }

    /// The object occupying an on-map cell.
    #[inline]
    pub fn occupant(&self, c: Cell) -> Option<usize> {
        if !self.on_map(c) {
            return None;
        }
        let o = self.occ[self.idx(c)];
        (o != EMPTY).then_some(o as usize)
    }

    /// Whether an on-map cell is empty (`.`); off-map cells are not.
    #[inline]
    pub fn is_empty(&self, c: Cell) -> bool {
        self.on_map(c) && self.sym[self.idx(c)] == b'.'
    }

    /// Adds an object and draws it; returns its index.
    pub fn add(&mut self, mesh: Mesh) -> usize {
        let k = self.meshes.len();
        self.meshes.push(mesh);
        self.draw(k);
        k
    }

    /// Draws object `k`'s on-map cells; an object with none becomes absent (design §4.7).
    pub fn draw(&mut self, k: usize) {
        let mut any = false;
        let (pi, pj) = self.meshes[k].pos;
        for n in 0..self.meshes[k].cells.len() {
            let (r, c, ch) = self.meshes[k].cells[n];
            let cell = (pi + r, pj + c);
            if self.on_map(cell) {
                let x = self.idx(cell);
                self.sym[x] = ch as u8;
                self.occ[x] = k as u32;
                any = true;
            }
        }
        self.meshes[k].present = any;
    }

    /// Removes object `k`'s cells from the maps (it keeps its position).
    pub fn lift(&mut self, k: usize) {
        let (pi, pj) = self.meshes[k].pos;
        for n in 0..self.meshes[k].cells.len() {
            let (r, c, _) = self.meshes[k].cells[n];
            let cell = (pi + r, pj + c);
            if self.on_map(cell) {
                let x = self.idx(cell);
                if self.occ[x] == k as u32 {
                    self.sym[x] = b'.';
                    self.occ[x] = EMPTY;
                }
            }
        }
    }

    /// Sets every cell symbol of object `k` to `symbol` and redraws it (agents `A`/`a`).
    pub fn set_symbol(&mut self, k: usize, symbol: char) {
        for cell in &mut self.meshes[k].cells {
            cell.2 = symbol;
        }
        if self.meshes[k].present {
            self.draw(k);
        }
    }

    /// Removes object `k` from the map for good.
    pub fn remove(&mut self, k: usize) {
        self.lift(k);
        self.meshes[k].present = false;
    }

    /// Moves a present object to a new anchor (lift and redraw).
    pub fn move_to(&mut self, k: usize, pos: Cell) {
        self.lift(k);
        self.meshes[k].pos = pos;
        self.draw(k);
    }

    /// The map as rows of symbols.
    pub fn grid_rows(&self) -> Vec<String> {
        self.sym
            .chunks(self.width.max(1) as usize)
            .map(|r| r.iter().map(|&b| char::from(b)).collect())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mass_rule_is_floor_sqrt_of_area() {
        let m: Vec<i64> = [1, 3, 4, 8, 9, 15, 16, 24, 25].map(isqrt).to_vec();
        assert_eq!(m, vec![1, 1, 2, 2, 3, 3, 4, 4, 5]);
    }

    #[test]
    fn partly_off_map_objects_draw_only_their_on_map_cells() {
        let mut w = World::new(3, 3);
        let k = w.add(Mesh::from_rows(
            "b",
            MeshKind::Block,
            (2, 1),
            &["BB", "BB"],
            false,
        ));
        assert_eq!(w.grid_rows(), vec!["...", "...", ".BB"]);
        assert!(w.meshes[k].present);
        w.move_to(k, (3, 1));
        assert!(!w.meshes[k].present);
        assert_eq!(w.grid_rows(), vec!["...", "...", "..."]);
    }
}
