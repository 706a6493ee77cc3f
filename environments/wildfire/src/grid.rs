//! The cell grid: static terrain layers and the dynamic fire, tree and wetness state
//! (docs/design/wildfire.md §3).

use serde::{Deserialize, Serialize};

/// A cell coordinate `(x, y)`: column, row (§1).
pub type Cell = (i32, i32);

/// Fire state of a cell (§5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fire {
    /// No fuel: never burns.
    #[serde(rename = "u")]
    Unburnable,
    /// Has fuel.
    #[serde(rename = "b")]
    Burnable,
    /// Fire has reached the cell; contents still intact.
    #[serde(rename = "i")]
    Ignited,
    /// Burning; contents destroyed.
    #[serde(rename = "f")]
    OnFire,
    /// Dying down, still hot.
    #[serde(rename = "e")]
    Extinguishing,
    /// Burnt out or put out; safe, never burns again.
    #[serde(rename = "x")]
    Extinguished,
}

/// Why a §16 map notation is invalid (see `Grid::from_notation`), with the position of the
/// fault; one-line messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotationError {
    /// A row's length differs from the number of rows.
    #[error("row {row} has {cells} cells, expected {expected}")]
    RowLength {
        /// The row (0 = top).
        row: usize,
        /// Its length in bytes.
        cells: usize,
        /// The number of rows.
        expected: usize,
    },
    /// A cell character outside the notation.
    #[error("cell ({x}, {y}): unknown character {found:?}")]
    UnknownCell {
        /// Column.
        x: usize,
        /// Row.
        y: usize,
        /// The character found.
        found: char,
    },
}

impl Fire {
    /// Lethal for ground agents and civilians (§5.1).
    pub fn is_lethal(self) -> bool {
        matches!(self, Fire::Ignited | Fire::OnFire | Fire::Extinguishing)
    }

    /// Fire active: `Ignited` or `OnFire`.
    pub fn is_burning(self) -> bool {
        matches!(self, Fire::Ignited | Fire::OnFire)
    }

    /// Touched by fire at some point (`Ignited` … `Extinguished`), as the scout count sees it.
    pub fn is_fire_seen(self) -> bool {
        !matches!(self, Fire::Unburnable | Fire::Burnable)
    }
}

/// Ground type (§3, §4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Land {
    /// Rock (class 0).
    #[serde(rename = "r")]
    Rock,
    /// Brush (class 1).
    #[serde(rename = ".")]
    Brush,
    /// Light forest (class 2, 1 tree).
    #[serde(rename = "1")]
    LightForest,
    /// Medium forest (class 3, 2 trees).
    #[serde(rename = "2")]
    MediumForest,
    /// Dense forest (class 4, 3 trees).
    #[serde(rename = "3")]
    DenseForest,
    /// Water source (placed by level setup).
    #[serde(rename = "w")]
    Water,
}

/// Wetness of a freshly watered cell, in fire ticks (§2 drying time).
pub const WET_TICKS: u8 = 25;

/// The map: one entry per cell in row-major order (`index = y * size + x`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    /// Map side `S`.
    pub size: usize,
    /// Elevation in `[0, 1]`.
    pub elevation: Vec<f64>,
    /// Moisture in `[0.4, 0.8]`.
    pub moisture: Vec<f64>,
    /// Wind x component in `[−10, 10]`.
    pub wind_x: Vec<f64>,
    /// Wind y component in `[−10, 10]`.
    pub wind_y: Vec<f64>,
    /// Ground type.
    pub land: Vec<Land>,
    /// Trees per cell (0–3).
    pub trees: Vec<u8>,
    /// Intact building.
    pub building: Vec<bool>,
    /// Fire state.
    pub fire: Vec<Fire>,
    /// `OnFire` cells that still spread in the next tick.
    pub spread_pending: Vec<bool>,
    /// Ticks spent `Extinguishing`.
    pub ext_timer: Vec<u8>,
    /// Fire ticks of wetness left (0 = dry).
    pub wet: Vec<u8>,
    /// Cells whose fire state changed since the last fire tick ended (the official
    /// `prev_state != state`), read by the in-place update of [`crate::config::Rules::Paper`];
    /// empty in states saved before it existed (then no cell is fresh).
    #[serde(default)]
    pub fresh: Vec<bool>,
}

impl Grid {
    /// A flat map of brush (elevation 0, moisture 0.6, wind `(1, 0)`), the §16 default.
    pub fn flat(size: usize) -> Self {
        let n = size * size;
        Self {
            size,
            elevation: vec![0.0; n],
            moisture: vec![0.6; n],
            wind_x: vec![1.0; n],
            wind_y: vec![0.0; n],
            land: vec![Land::Brush; n],
            trees: vec![0; n],
            building: vec![false; n],
            fire: vec![Fire::Unburnable; n],
            spread_pending: vec![false; n],
            ext_timer: vec![0; n],
            wet: vec![0; n],
            fresh: vec![false; n],
        }
    }

    /// A map from the §16 notation: rows top to bottom, `r` rock, `.` brush, `1`–`3` forest,
    /// `w` water, `H` building; burnability per §4.5.
    pub fn from_notation(rows: &[&str]) -> Result<Self, NotationError> {
        let size = rows.len();
        let mut g = Self::flat(size);
        for (y, row) in rows.iter().enumerate() {
            if row.chars().count() != size {
                return Err(NotationError::RowLength {
                    row: y,
                    cells: row.len(),
                    expected: size,
                });
            }
            for (x, ch) in row.chars().enumerate() {
                let i = y * size + x;
                let (land, trees) = match ch {
                    'r' => (Land::Rock, 0),
                    '.' => (Land::Brush, 0),
                    '1' => (Land::LightForest, 1),
                    '2' => (Land::MediumForest, 2),
                    '3' => (Land::DenseForest, 3),
                    'w' => (Land::Water, 0),
                    'H' => {
                        g.building[i] = true;
                        (Land::Rock, 0)
                    }
                    other => return Err(NotationError::UnknownCell { x, y, found: other }),
                };
                g.land[i] = land;
                g.trees[i] = trees;
            }
        }
        g.init_burnability();
        Ok(g)
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.size * self.size
    }

    /// Whether the map has no cells.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Whether `(x, y)` lies on the map.
    pub fn contains(&self, (x, y): Cell) -> bool {
        x >= 0 && y >= 0 && (x as usize) < self.size && (y as usize) < self.size
    }

    /// Row-major index of an in-map cell.
    pub fn idx(&self, (x, y): Cell) -> usize {
        y as usize * self.size + x as usize
    }

    /// The cell of a row-major index.
    pub fn cell(&self, i: usize) -> Cell {
        ((i % self.size) as i32, (i / self.size) as i32)
    }

    /// Sets every cell `Burnable` if it has trees or lies within Chebyshev 2 of a building,
    /// `Unburnable` otherwise (§4.5).
    pub fn init_burnability(&mut self) {
        let s = self.size as i32;
        let mut near_building = vec![false; self.len()];
        for i in 0..self.len() {
            if !self.building[i] {
                continue;
            }
            let (x, y) = self.cell(i);
            for ny in (y - 2).max(0)..=(y + 2).min(s - 1) {
                for nx in (x - 2).max(0)..=(x + 2).min(s - 1) {
                    near_building[(ny * s + nx) as usize] = true;
                }
            }
        }
        for (i, &near) in near_building.iter().enumerate() {
            let burnable = self.land[i] != Land::Water && (self.trees[i] > 0 || near);
            self.fire[i] = if burnable {
                Fire::Burnable
            } else {
                Fire::Unburnable
            };
        }
    }

    /// Makes a cell dense forest: 3 trees, no building, `Burnable` (§12.2 forcing).
    pub fn make_dense(&mut self, c: Cell) {
        let i = self.idx(c);
        self.land[i] = Land::DenseForest;
        self.trees[i] = 3;
        self.building[i] = false;
        self.fire[i] = Fire::Burnable;
    }

    /// Turns a cell into a water source: land water, no trees or building, `Unburnable`.
    pub fn make_water(&mut self, c: Cell) {
        let i = self.idx(c);
        self.land[i] = Land::Water;
        self.trees[i] = 0;
        self.building[i] = false;
        self.fire[i] = Fire::Unburnable;
    }
}
