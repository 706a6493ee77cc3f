//! Cells, primitive actions, directions and block faces (docs/design/cube.md §1, §9.1).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A grid cell `(row, col)`; signed so that neighbours of border cells can be represented.
pub type Cell = (i32, i32);

/// A primitive action (design §9.1): `STAY=0, UP=1, DOWN=2, LEFT=3, RIGHT=4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Prim {
    /// Do not move.
    Stay = 0,
    /// Row − 1.
    Up = 1,
    /// Row + 1.
    Down = 2,
    /// Col − 1.
    Left = 3,
    /// Col + 1.
    Right = 4,
}

impl Prim {
    /// All five, in code order.
    pub const ALL: [Prim; 5] = [Prim::Stay, Prim::Up, Prim::Down, Prim::Left, Prim::Right];
    /// The push directions in the resolution order of design §5.2.
    pub const MOVES: [Prim; 4] = [Prim::Up, Prim::Down, Prim::Left, Prim::Right];

    /// The action of integer code `code`; values outside `0..=4` are `STAY` (design §5).
    pub fn from_code(code: i64) -> Prim {
        match code {
            1 => Prim::Up,
            2 => Prim::Down,
            3 => Prim::Left,
            4 => Prim::Right,
            _ => Prim::Stay,
        }
    }

    /// `(d_row, d_col)` of the move.
    pub fn delta(self) -> Cell {
        match self {
            Prim::Stay => (0, 0),
            Prim::Up => (-1, 0),
            Prim::Down => (1, 0),
            Prim::Left => (0, -1),
            Prim::Right => (0, 1),
        }
    }

    /// Upper-case name (`UP`), as in history entries.
    pub fn name(self) -> &'static str {
        match self {
            Prim::Stay => "STAY",
            Prim::Up => "UP",
            Prim::Down => "DOWN",
            Prim::Left => "LEFT",
            Prim::Right => "RIGHT",
        }
    }

    /// The opposite direction (`STAY` stays).
    pub fn opposite(self) -> Prim {
        match self {
            Prim::Stay => Prim::Stay,
            Prim::Up => Prim::Down,
            Prim::Down => Prim::Up,
            Prim::Left => Prim::Right,
            Prim::Right => Prim::Left,
        }
    }
}

impl fmt::Display for Prim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Prim {
    type Err = colony_env_api::UnknownName;
    /// Accepts names (case-insensitive) and integer codes.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if let Ok(code) = t.parse::<i64>() {
            return Ok(Prim::from_code(code));
        }
        match t.to_ascii_lowercase().as_str() {
            "stay" => Ok(Prim::Stay),
            "up" => Ok(Prim::Up),
            "down" => Ok(Prim::Down),
            "left" => Ok(Prim::Left),
            "right" => Ok(Prim::Right),
            _ => Err(colony_env_api::UnknownName::new(
                "primitive",
                t,
                "STAY, UP, DOWN, LEFT, RIGHT or 0-4",
            )),
        }
    }
}

/// A face (side) of a block (design §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Face {
    /// Column `c − 1` side.
    Left,
    /// Column `c + w` side.
    Right,
    /// Row `r − 1` side.
    Top,
    /// Row `r + w` side.
    Bottom,
}

impl Face {
    /// All faces in the inference order of design §9.2 (`left, right, top, bottom`).
    pub const ALL: [Face; 4] = [Face::Left, Face::Right, Face::Top, Face::Bottom];

    /// Direction a push from this face moves the block (`left → RIGHT`, …).
    pub fn push_direction(self) -> Prim {
        match self {
            Face::Left => Prim::Right,
            Face::Right => Prim::Left,
            Face::Top => Prim::Down,
            Face::Bottom => Prim::Up,
        }
    }

    /// Direction pointing away from the block (`left → LEFT`, …).
    pub fn outward_normal(self) -> Prim {
        self.push_direction().opposite()
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Face::Left => "left",
            Face::Right => "right",
            Face::Top => "top",
            Face::Bottom => "bottom",
        }
    }
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Face {
    type Err = colony_env_api::UnknownName;
    /// Case-insensitive; `up` = `top`, `down` = `bottom`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "left" => Ok(Face::Left),
            "right" => Ok(Face::Right),
            "top" | "up" => Ok(Face::Top),
            "bottom" | "down" => Ok(Face::Bottom),
            _ => Err(colony_env_api::UnknownName::new(
                "face",
                s,
                "left, right, top or bottom",
            )),
        }
    }
}

/// `a + d`.
pub fn add(a: Cell, d: Cell) -> Cell {
    (a.0 + d.0, a.1 + d.1)
}

/// `a − d`.
pub fn sub(a: Cell, d: Cell) -> Cell {
    (a.0 - d.0, a.1 - d.1)
}
