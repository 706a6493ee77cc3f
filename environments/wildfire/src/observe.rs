//! Observations (docs/design/wildfire.md §9): windows of the team's revealed map, the raw
//! per-agent observation, the ASCII minimap with the paper's legend, and the game-level
//! observation with its task description (§11.4). Read-only: the step ([`crate::sim`]) reveals
//! the team map and writes its cell codes (re-exported here); this module and the prompts read it.

use serde::{Deserialize, Serialize};

use crate::config::{AgentKind, LevelKind};
use crate::grid::Cell;
use crate::state::WildfireState;

pub use crate::sim::{cell_code, civilian_cells, reveal, CIVILIAN, UNREVEALED};

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
        task: task_description(s),
        targets: s.targets.clone(),
        score: crate::metrics::score(s),
        counters: s.counters.clone(),
        rescued: s.civilians.iter().filter(|c| c.rescued).count(),
        transported: s.transported.len(),
        fire_active: s.fire_active,
        step: s.step,
        max_steps: s.level.max_steps,
    }
}

/// A cell as the prompts write it, `(x, y)`.
pub(crate) fn xy(c: Cell) -> String {
    format!("({}, {})", c.0, c.1)
}

/// `CURRENT TASK`: the level's task description (§11.4).
pub fn task_description(s: &WildfireState) -> String {
    let l = &s.level;
    let t = &s.targets;
    let m = s.grid.size - 1;
    let area = format!("x: [0, {m}], y: [0, {m}]");
    let list = |cells: &[Cell]| cells.iter().map(|&c| xy(c)).collect::<Vec<_>>().join(", ");
    match l.kind {
        LevelKind::Cut if t.lines.is_empty() => {
            format!("Cut down all trees in the cells {}.", list(&t.cut_cells))
        }
        LevelKind::Cut => {
            let lines: Vec<String> = t
                .lines
                .iter()
                .map(|&(a, b)| format!("from {} to {}", xy(a), xy(b)))
                .collect();
            format!("Cut down all trees along the lines {}.", lines.join(", "))
        }
        LevelKind::Scout => format!(
            "A fire burns somewhere in {area}. Find it and confirm it: two agents must have it in view at the same time."
        ),
        LevelKind::Transport => format!(
            "Transport all firefighter agents to the target location {}.",
            t.transport.map(xy).unwrap_or_default()
        ),
        LevelKind::Rescue => {
            let target = t.rescue.map(xy).unwrap_or_default();
            let (k, n) = l.civilians;
            if l.known {
                format!(
                    "There are {k} groups of {n} civilians near {}. Bring all civilians to the safe location {target}.",
                    list(&t.clusters)
                )
            } else {
                format!(
                    "There are {k} groups of {n} civilians scattered somewhere in {area}. Find them and bring them to {target}."
                )
            }
        }
        LevelKind::Suppress => {
            let mut text = if l.known {
                format!(
                    "Fully suppress or contain the fire spreading near {} without touching it.",
                    t.fire.map(xy).unwrap_or_default()
                )
            } else {
                format!("Find the fire within {area} and fully suppress or contain it without touching it.")
            };
            match t.water {
                Some(w) => text.push_str(&format!(" Refill water at the water source at {}.", xy(w))),
                None => text.push_str(" There is no water source; cut trees to build firebreaks."),
            }
            text
        }
        LevelKind::Full => format!(
            "A fire burns somewhere in the map; a water source exists somewhere (search for it); {} groups of {} civilians are scattered in the map. Find and contain/suppress the fire while keeping the civilians away from danger; do not touch the fire.",
            l.civilians.0, l.civilians.1
        ),
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
