//! What the simulated agent reads from an act prompt (docs/design/wildfire.md §11.3
//! placeholders, §11.4 task wordings): its identity, team, task, position, status, perceived cells
//! of interest and past actions, as [`Ctx`] with the helpers the expert strategies use.

use super::{coords, dist2, kind_after, map_max, number_after};
use crate::config::AgentKind;
use crate::grid::Cell;
use crate::llm_play::PAST_ACTIONS_HEADER;

/// The task as the expert reads it from `Current task:` (§11.4 wordings).
pub(super) enum Task {
    /// Cut sparse cells, or lines as (start, end) pairs.
    Cut {
        cells: Vec<Cell>,
        lines: Vec<(Cell, Cell)>,
    },
    /// Find the fire and have two agents see it.
    Scout,
    /// Bring the firefighters to this cell.
    Transport(Cell),
    /// Bring civilians (near known clusters, if given) to the safe cell.
    Rescue { clusters: Vec<Cell>, safe: Cell },
    /// Suppress and the full environment.
    Suppress {
        fire: Option<Cell>,
        water: Option<Cell>,
    },
    /// A task text the expert does not recognise.
    Unknown,
}

/// What the act prompt says.
pub(super) struct Ctx {
    /// My id (`AGENT_<id>`).
    pub(super) id: u32,
    /// My type.
    pub(super) kind: AgentKind,
    /// Last map coordinate.
    pub(super) m: i32,
    /// Agent ids per kind, from the team composition.
    pub(super) team: Vec<(AgentKind, Vec<u32>)>,
    /// The current task.
    pub(super) task: Task,
    /// My position (`Position:` line).
    pub(super) me: Cell,
    /// I carry a civilian (firefighter status line).
    pub(super) carrying: bool,
    /// My water units.
    pub(super) water: i32,
    /// Firefighters I carry (helicopter status line).
    pub(super) passengers: i32,
    /// Burning cells reported by the perception.
    pub(super) fires: Vec<Cell>,
    /// Civilians reported by the perception.
    pub(super) civilians: Vec<Cell>,
    /// Water cells reported by the perception.
    pub(super) waters: Vec<Cell>,
    /// Other agents reported by the perception.
    pub(super) agents: Vec<(u32, Cell)>,
    /// My completed primitives, oldest first.
    pub(super) past: Vec<String>,
}

fn parse_task(task: &str) -> Task {
    let c = coords(task);
    let after = |key: &str| {
        task.find(key)
            .and_then(|i| coords(&task[i..]).first().copied())
    };
    if task.starts_with("Cut down all trees along the lines") {
        let lines = c.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        Task::Cut {
            cells: Vec::new(),
            lines,
        }
    } else if task.starts_with("Cut down all trees") {
        Task::Cut {
            cells: c,
            lines: Vec::new(),
        }
    } else if task.contains("Find it and confirm it") {
        Task::Scout
    } else if task.starts_with("Transport all firefighter") {
        c.first().map_or(Task::Unknown, |&t| Task::Transport(t))
    } else if task.contains("contain") || task.contains("suppress") {
        let fire = after("fire spreading near");
        let water = after("water source at");
        Task::Suppress { fire, water }
    } else if task.contains("civilians") {
        let Some((&safe, clusters)) = c.split_last() else {
            return Task::Unknown;
        };
        let clusters = if task.contains("near") {
            clusters.to_vec()
        } else {
            Vec::new()
        };
        Task::Rescue { clusters, safe }
    } else {
        Task::Unknown
    }
}

fn parse_team(system: &str) -> Vec<(AgentKind, Vec<u32>)> {
    let mut team = Vec::new();
    for line in system.lines() {
        for kind in AgentKind::ALL {
            if let Some(rest) = line.strip_prefix(&format!("{}s (", kind.name())) {
                let names = rest.split(')').next().unwrap_or("");
                let ids = names
                    .split(',')
                    .filter_map(|n| n.trim().trim_start_matches("AGENT_").parse().ok())
                    .collect();
                team.push((kind, ids));
            }
        }
    }
    team
}

/// Cells of interest in the perception summary, sentence by sentence.
fn read_summary(summary: &str) -> [Vec<Cell>; 3] {
    let (mut fires, mut civilians, mut waters) = (Vec::new(), Vec::new(), Vec::new());
    for sentence in summary.split(['.', ';', '\n']) {
        let low = sentence.to_lowercase().replace("firefighter", "");
        let cells = coords(sentence);
        // Sentences naming agents locate agents (mine is "I am AGENT_k … at (x, y)").
        if cells.is_empty() || (low.contains("agent_") && !low.contains("civilian")) {
            continue;
        }
        if low.contains("extinguished") {
            continue;
        } else if ["fire", "burning", "flame", "ignited"]
            .iter()
            .any(|w| low.contains(w))
        {
            fires.extend(cells);
        } else if low.contains("civilian") {
            civilians.extend(cells);
        } else if low.contains("water") {
            waters.extend(cells);
        }
    }
    [fires, civilians, waters]
}

fn read_agents(summary: &str, me: u32) -> Vec<(u32, Cell)> {
    summary
        .split("AGENT_")
        .skip(1)
        .filter_map(|part| {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            let id: u32 = digits.parse().ok()?;
            let head = &part[digits.len()..];
            let head = head
                .strip_prefix(':')
                .or_else(|| head.strip_prefix(" at"))
                .unwrap_or("#");
            let c = coords(head.get(..head.len().min(16))?).first().copied()?;
            (id != me).then_some((id, c))
        })
        .collect()
}

/// The task: the `Current task: …` line of the act system prompt, or, in a framework prompt,
/// the line after the first header ending in `task:` (`The team's current task:`).
fn task_line(system: &str) -> Option<&str> {
    let mut lines = system.lines();
    if let Some(t) = system
        .lines()
        .find_map(|l| l.strip_prefix("Current task: "))
    {
        return Some(t);
    }
    lines.find(|l| l.trim_end().to_ascii_lowercase().ends_with("task:"))?;
    lines.next()
}

pub(super) fn parse(system: &str, user: &str) -> Option<Ctx> {
    let id = number_after(system, "You are AGENT_")?.try_into().ok()?;
    let kind = kind_after(system, &format!("AGENT_{id}, a "))?;
    let m = map_max(system)?;
    let task_line = task_line(system)?;
    let pos = user.rfind("Position: (")?;
    let me = coords(&user[pos..]).first().copied()?;
    let summary = &user[..pos];
    let [fires, civilians, waters] = read_summary(summary);
    let past = user
        .find(PAST_ACTIONS_HEADER)
        .map(|i| {
            user[i + PAST_ACTIONS_HEADER.len()..]
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .filter(|l| l.trim() != "None")
                .map(|l| l.trim().to_string())
                .collect()
        })
        .unwrap_or_default();
    Some(Ctx {
        id,
        kind,
        m,
        team: parse_team(system),
        task: parse_task(task_line),
        me,
        carrying: user.contains("You are carrying a civilian"),
        water: number_after(user, "Water:").unwrap_or(0),
        passengers: number_after(user, "You carry ").unwrap_or(0),
        fires,
        civilians,
        waters,
        agents: read_agents(summary, id),
        past,
    })
}

impl Ctx {
    pub(super) fn kind_of(&self, id: u32) -> Option<AgentKind> {
        self.team
            .iter()
            .find(|(_, ids)| ids.contains(&id))
            .map(|(k, _)| *k)
    }

    /// My rank among the team members of `kinds`, and their number.
    pub(super) fn rank(&self, kinds: &[AgentKind]) -> (usize, usize) {
        let mut ids: Vec<u32> = self
            .team
            .iter()
            .filter(|(k, _)| kinds.contains(k))
            .flat_map(|(_, ids)| ids.iter().copied())
            .collect();
        ids.sort_unstable();
        let r = ids.iter().position(|&i| i == self.id).unwrap_or(0);
        (r, ids.len().max(1))
    }

    pub(super) fn nearest(&self, cells: &[Cell]) -> Option<Cell> {
        cells
            .iter()
            .copied()
            .min_by_key(|&c| (dist2(c, self.me), c.1, c.0))
    }

    /// Cells named in my past actions that contain `word`.
    pub(super) fn past_cells(&self, word: &str) -> Vec<Cell> {
        self.past
            .iter()
            .filter(|p| p.contains(word))
            .flat_map(|p| coords(p))
            .collect()
    }

    pub(super) fn clamp(&self, c: Cell) -> Cell {
        (c.0.clamp(0, self.m), c.1.clamp(0, self.m))
    }

    /// The point at `r` cells from `centre` toward me, turned by `turn` radians.
    pub(super) fn around(&self, centre: Cell, r: f64, turn: f64) -> Cell {
        let (dx, dy) = (
            f64::from(self.me.0 - centre.0),
            f64::from(self.me.1 - centre.1),
        );
        let a = if dx == 0.0 && dy == 0.0 {
            0.0
        } else {
            dy.atan2(dx)
        } + turn;
        self.clamp((
            centre.0 + (r * a.cos()).round() as i32,
            centre.1 + (r * a.sin()).round() as i32,
        ))
    }

    /// The next search waypoint: a boustrophedon grid of `spacing`, each agent of my kind
    /// starting at its own offset and advancing one waypoint per past action.
    pub(super) fn sweep(&self, spacing: i32) -> Cell {
        let h = (spacing / 2).max(1);
        let mut axis: Vec<i32> = (h..=self.m).step_by(spacing.max(1) as usize).collect();
        if axis.last().is_none_or(|&l| l + h < self.m) {
            axis.push((self.m - h).max(0));
        }
        let mut points = Vec::new();
        for (j, &y) in axis.iter().enumerate() {
            let row: Vec<Cell> = axis.iter().map(|&x| (x, y)).collect();
            if j % 2 == 0 {
                points.extend(row);
            } else {
                points.extend(row.into_iter().rev());
            }
        }
        let (r, n) = self.rank(&[self.kind]);
        let start = r * points.len() / n;
        let mut k = start + self.past.len();
        if points[k % points.len()] == self.me {
            k += 1;
        }
        points[k % points.len()]
    }
}
