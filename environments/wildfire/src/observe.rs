//! Observations (docs/design/wildfire.md §9): cell codes, the team's revealed map, the raw
//! per-agent observation and the ASCII minimap with the paper's legend.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::config::AgentKind;
use crate::grid::{Cell, Fire, Grid, Land};
use crate::state::WildfireState;

/// Code of an unrevealed or off-map cell.
pub const UNREVEALED: u8 = 0;
/// Code of a civilian (§9.1).
pub const CIVILIAN: u8 = 15;

/// The current code of a cell (§9.1 precedence: civilian > building > fire state > water >
/// wet/dry tree count).
pub fn cell_code(grid: &Grid, c: Cell, civilians: &HashSet<Cell>) -> u8 {
    if !grid.contains(c) {
        return UNREVEALED;
    }
    if !civilians.is_empty() && civilians.contains(&c) {
        return CIVILIAN;
    }
    let i = grid.idx(c);
    if grid.building[i] {
        return 14;
    }
    match grid.fire[i] {
        Fire::Ignited => 9,
        Fire::OnFire => 10,
        Fire::Extinguishing => 11,
        Fire::Extinguished => 12,
        _ if grid.land[i] == Land::Water => 13,
        _ if grid.wet[i] > 0 => 1 + grid.trees[i].min(3),
        _ => 5 + grid.trees[i].min(3),
    }
}

/// Cells holding a visible civilian (alive, not carried).
pub fn civilian_cells(s: &WildfireState) -> HashSet<Cell> {
    s.civilians
        .iter()
        .filter(|c| c.alive && c.carried_by.is_none())
        .map(|c| c.cell())
        .collect()
}

/// Refreshes the team map around every live agent (§9.1). Cells seen by several agents are
/// coded once (a visibility mask first), which matters with thousands of agents.
pub fn reveal(s: &mut WildfireState) {
    let civ = civilian_cells(s);
    let size = s.grid.size as i32;
    let mut visible = vec![false; s.grid.len()];
    for a in s.agents.iter().filter(|a| a.alive) {
        let (x, y) = a.cell();
        let r = a.kind.view_radius();
        let (x0, x1) = ((x - r).max(0), (x + r).min(size - 1));
        for ny in (y - r).max(0)..=(y + r).min(size - 1) {
            let row = (ny * size) as usize;
            visible[row + x0 as usize..=row + x1 as usize].fill(true);
        }
    }
    for (i, _) in visible.iter().enumerate().filter(|(_, v)| **v) {
        s.team_map[i] = cell_code(&s.grid, s.grid.cell(i), &civ);
    }
}

/// The `(2R+1)²` team-map codes around `centre`, rows top to bottom; off-map cells are 0.
pub fn window(s: &WildfireState, centre: Cell, r: i32) -> Vec<u8> {
    let side = (2 * r + 1) as usize;
    let size = s.grid.size as i32;
    let mut w = vec![UNREVEALED; side * side];
    let (x0, x1) = ((centre.0 - r).max(0), (centre.0 + r).min(size - 1));
    if x0 > x1 {
        return w;
    }
    for (k, y) in (centre.1 - r..=centre.1 + r).enumerate() {
        if !(0..size).contains(&y) {
            continue;
        }
        let src = (y * size) as usize;
        let dst = k * side + (x0 - (centre.0 - r)) as usize;
        let len = (x1 - x0 + 1) as usize;
        w[dst..dst + len].copy_from_slice(&s.team_map[src + x0 as usize..src + x0 as usize + len]);
    }
    w
}

/// The ASCII token of a code (§9.1 table).
pub fn token(code: u8) -> &'static str {
    const TOKENS: [&str; 16] = [
        "-", "'0'", "'1'", "'2'", "'3'", "0", "1", "2", "3", "i", "f", "e", "x", "w", "B", "C",
    ];
    TOKENS.get(code as usize).copied().unwrap_or("-")
}

/// Renders a square window of codes (`side × side`, row-major) as the §9.3 minimap: tokens
/// followed by commas, one line per row, the centre cell wrapped in asterisks.
pub fn render_window(codes: &[u8], side: usize) -> String {
    let mut out = String::with_capacity(codes.len() * 3);
    let centre = side / 2;
    for (row, line) in codes.chunks(side).enumerate() {
        for (col, &code) in line.iter().enumerate() {
            if row == centre && col == centre {
                out.push('*');
                out.push_str(token(code));
                out.push('*');
            } else {
                out.push_str(token(code));
            }
            out.push(',');
        }
        out.push('\n');
    }
    out
}

/// The minimap of an agent: its window of the team map (§9.3).
pub fn minimap(s: &WildfireState, agent: usize) -> String {
    let a = &s.agents[agent];
    let r = a.kind.minimap_radius();
    render_window(&window(s, a.cell(), r), (2 * r + 1) as usize)
}

/// The raw per-agent observation (§9.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentObservation {
    /// Agent id.
    pub id: u32,
    /// Agent type.
    #[serde(rename = "type")]
    pub kind: AgentKind,
    /// Not lost.
    pub alive: bool,
    /// Riding a helicopter.
    pub passenger: bool,
    /// Integer cell.
    pub position: Cell,
    /// Exact position.
    pub exact: (f64, f64),
    /// Status variables (§6.6).
    pub extra: [i32; 3],
    /// `(2R+1)²` team-map codes around the agent.
    pub window: Vec<u8>,
}

impl AgentObservation {
    /// The flat vector of the original layout (length 3728, §9.2).
    pub fn flat(&self) -> Vec<i32> {
        let mut v = Vec::with_capacity(3728);
        v.push(if self.alive { self.kind.code() } else { 5 });
        v.extend(self.window.iter().map(|&c| i32::from(c)));
        v.resize(1 + 61 * 61, -1);
        v.extend([0, self.position.0, self.position.1]);
        v.extend(self.extra);
        v
    }
}

/// The raw observation of agent index `i`.
pub fn observe_agent(s: &WildfireState, i: usize) -> AgentObservation {
    let a = &s.agents[i];
    AgentObservation {
        id: a.id,
        kind: a.kind,
        alive: a.alive,
        passenger: a.passenger_of.is_some(),
        position: a.cell(),
        exact: (a.px, a.py),
        extra: a.extra(),
        window: window(s, a.cell(), a.kind.minimap_radius()),
    }
}

/// The game-level observation (§9.2): level, task, targets, score components, fire state and
/// clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameObservation {
    /// Level id.
    pub level: String,
    /// Level type.
    pub kind: crate::config::LevelKind,
    /// Map side.
    pub map_size: usize,
    /// Task description (§11.4).
    pub task: String,
    /// Level targets (known ones are also in the task text).
    pub targets: crate::state::Targets,
    /// Current score (§12.3).
    pub score: f64,
    /// Score components.
    pub counters: crate::state::Counters,
    /// Rescued civilians.
    pub rescued: usize,
    /// Transported firefighters.
    pub transported: usize,
    /// Some cell is `Ignited` or `OnFire`.
    pub fire_active: bool,
    /// Step `t`.
    pub step: u32,
    /// Step limit.
    pub max_steps: u32,
}

/// The game-level observation of a state.
pub fn observe_game(s: &WildfireState) -> GameObservation {
    GameObservation {
        level: s.level.id.clone(),
        kind: s.level.kind,
        map_size: s.grid.size,
        task: crate::prompts::task_description(s),
        targets: s.targets.clone(),
        score: crate::sim::score(s),
        counters: s.counters.clone(),
        rescued: s.civilians.iter().filter(|c| c.rescued).count(),
        transported: s.transported.len(),
        fire_active: s.fire_active,
        step: s.step,
        max_steps: s.level.max_steps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// W10: the §9.3 example, exactly.
    #[test]
    fn renders_the_spec_example() {
        let codes = [
            0, 0, 5, 6, 6, 0, 7, 3, 6, 14, 5, 5, 8, 10, 9, 13, 5, 8, 11, 12, 0, 0, 15, 5, 5,
        ];
        let want = "-,-,0,1,1,\n-,2,'2',1,B,\n0,0,*3*,f,i,\nw,0,3,e,x,\n-,-,C,0,0,\n";
        assert_eq!(render_window(&codes, 5), want);
    }

    #[test]
    fn window_matches_a_cell_by_cell_reading() {
        let level = crate::config::find_level("cut_trees_sparse_small").unwrap();
        let mut s = crate::setup::new_episode(&level, 2).unwrap();
        for (i, c) in s.team_map.iter_mut().enumerate() {
            *c = (i % 16) as u8;
        }
        for centre in [(0, 0), (29, 29), (15, 3), (-5, 10), (40, 40), (3, 28)] {
            for r in [0, 2, 10, 25] {
                let mut naive = Vec::new();
                for y in centre.1 - r..=centre.1 + r {
                    for x in centre.0 - r..=centre.0 + r {
                        naive.push(if s.grid.contains((x, y)) {
                            s.team_map[s.grid.idx((x, y))]
                        } else {
                            UNREVEALED
                        });
                    }
                }
                assert_eq!(window(&s, centre, r), naive, "{centre:?} r {r}");
            }
        }
    }

    #[test]
    fn corner_window_marks_off_map_cells_unrevealed() {
        let level = crate::config::find_level("cut_trees_sparse_small").unwrap();
        let mut s = crate::setup::new_episode(&level, 1).unwrap();
        s.team_map.iter_mut().for_each(|c| *c = 5);
        let w = window(&s, (0, 0), 2);
        assert_eq!(w.iter().filter(|&&c| c == UNREVEALED).count(), 16);
        assert_eq!(w.len(), 25);
    }
}
