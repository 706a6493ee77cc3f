//! What CREW-Wildfire says about itself beyond its text protocol: SwarmSys
//! sub-goals per level kind, the framework prompts' briefing, agent profiles and histories
//! (docs/design/wildfire.md §11.3), and the viewer's legend.
//!
//! Sub-goals (colony's decision; the SwarmSys paper has no embodied setting), by level kind.
//! Fires (suppress, scout and full levels): the map cut into four quarters, `fire-nw` …
//! `fire-se`, progress = minus the burning cells there (cells suppressed or burnt out raise
//! it), open while something burns. Civilians (rescue and full levels): `civilian<k>`,
//! progress 0 free, 1 carried, 2 rescued, open while alive and not rescued. Areas to scout
//! (scout and full levels): `scout-nw` … `scout-se`, progress = the environment's concurrent
//! scout count, open while no fire was seen in that quarter. Trees to cut (cut levels):
//! `cut-nw` … `cut-se`, progress = minus the wooded target cells left there. Transport
//! levels: `transport`, progress = agents transported.

use colony_env_api::{AgentProfile, LegendEntry, SubGoal, TeamBriefing};

use crate::config::LevelKind;
use crate::prompts;
use crate::state::WildfireState;

/// The quarter of a square map of side `size` a cell `(x, y)` lies in (0 NW, 1 NE, 2 SW, 3 SE).
fn quarter(size: usize, (x, y): (i32, i32)) -> usize {
    let half = (size as i32 + 1) / 2;
    usize::from(x >= half) + 2 * usize::from(y >= half)
}

const QUARTERS: [&str; 4] = ["nw", "ne", "sw", "se"];
const QUARTER_NAMES: [&str; 4] = ["north-west", "north-east", "south-west", "south-east"];

/// The sub-goals of `s` (see the module docs).
pub fn sub_goals(s: &WildfireState) -> Vec<SubGoal> {
    let kind = s.level.kind;
    let g = &s.grid;
    let mut burning = [0usize; 4];
    let mut seen = [false; 4];
    for i in 0..g.fire.len() {
        let q = quarter(g.size, g.cell(i));
        burning[q] += usize::from(g.fire[i].is_burning());
        seen[q] |= g.fire[i].is_fire_seen();
    }
    let mut out = Vec::new();
    if matches!(
        kind,
        LevelKind::Suppress | LevelKind::Scout | LevelKind::Full
    ) {
        out.extend(count_goals("fire", &burning, |q, n| {
            format!("suppress the fire in the {q} quarter of the map: {n} burning cells")
        }));
    }
    if matches!(kind, LevelKind::Scout | LevelKind::Full) {
        for q in 0..4 {
            out.push(SubGoal {
                id: format!("scout-{}", QUARTERS[q]),
                description: format!(
                    "scout the {} quarter of the map for fire and report what you see",
                    QUARTER_NAMES[q]
                ),
                progress: f64::from(s.scouts),
                open: !seen[q],
            });
        }
    }
    if matches!(kind, LevelKind::Rescue | LevelKind::Full) {
        for (k, c) in s.civilians.iter().enumerate() {
            let (x, y) = c.cell();
            let progress = if c.rescued {
                2.0
            } else if c.carried_by.is_some() {
                1.0
            } else {
                0.0
            };
            out.push(SubGoal {
                id: format!("civilian{k}"),
                description: format!(
                    "rescue civilian {k} at x {x}, y {y} and bring them to safety"
                ),
                progress,
                open: c.alive && !c.rescued,
            });
        }
    }
    if kind == LevelKind::Cut {
        let mut left = [0usize; 4];
        for &c in &s.targets.cut_cells {
            if g.contains(c) && g.trees[g.idx(c)] > 0 {
                left[quarter(g.size, c)] += 1;
            }
        }
        out.extend(count_goals("cut", &left, |q, n| {
            format!("cut the marked trees in the {q} quarter of the map: {n} target cells left")
        }));
    }
    if kind == LevelKind::Transport {
        let to = s
            .targets
            .transport
            .map_or_else(String::new, |(x, y)| format!(" to x {x}, y {y}"));
        out.push(SubGoal {
            id: "transport".into(),
            description: format!("transport the firefighters{to}"),
            progress: s.transported.len() as f64,
            open: true,
        });
    }
    out
}

fn index(s: &WildfireState, agent: &str) -> Option<usize> {
    s.agents.iter().position(|a| a.id.to_string() == agent)
}

/// Where `agent` stands, as SwarmSys's availability text (`a firefighter at x 3, y 4`).
pub fn position(s: &WildfireState, agent: &str) -> Option<String> {
    let a = &s.agents[index(s, agent)?];
    let (x, y) = a.cell();
    Some(format!("a {:?} at x {x}, y {y}", a.kind).to_lowercase())
}

/// `AGENT-TYPE`, `POSITION` and the primitive `agent` is executing (§11.3).
pub fn profile(s: &WildfireState, agent: &str) -> Option<AgentProfile> {
    let i = index(s, agent)?;
    Some(AgentProfile {
        kind: prompts::agent_type(s, i).to_string(),
        position: prompts::position(s, i),
        activity: s.agents[i].action.as_ref().map(|p| p.description.clone()),
    })
}

/// The framework prompts' shared texts (§11.3).
pub fn briefing(s: &WildfireState) -> TeamBriefing {
    TeamBriefing {
        team_composition: prompts::team_composition(s),
        task: prompts::task_description(s),
        team_abilities: prompts::team_abilities(s),
        team_size: prompts::team_size(s),
    }
}

/// `AGENT ABILITIES` of `agent` (§11.3).
pub fn abilities(s: &WildfireState, agent: &str) -> Option<String> {
    Some(prompts::agent_abilities(s.agents[index(s, agent)?].kind))
}

/// `agent`'s card for framework prompts ([`crate::llm_play::agent_card`]).
pub fn card(s: &WildfireState, agent: &str) -> Option<String> {
    Some(crate::llm_play::agent_card(s, index(s, agent)?))
}

/// `PAST ACTIONS` of `agent`: its completed primitives, oldest first (§11.3).
pub fn history(s: &WildfireState, agent: &str) -> Option<String> {
    Some(
        prompts::past_actions(s, index(s, agent)?)
            .trim_end()
            .to_string(),
    )
}

/// The viewer's legend of [`crate::WildfireEnv`]'s picture.
pub fn legend() -> Vec<LegendEntry> {
    vec![
        LegendEntry::new(".", "#efebe9", "#bcaaa4", "no trees"),
        LegendEntry::new("1", "#c5e1a5", "#33691e", "sparse trees"),
        LegendEntry::new("2", "#81c784", "#1b5e20", "trees"),
        LegendEntry::new("3", "#388e3c", "#e8f5e9", "dense trees"),
        LegendEntry::new("~", "#b2ebf2", "#006064", "wet"),
        LegendEntry::new("w", "#1e88e5", "#e3f2fd", "water"),
        LegendEntry::new("B", "#8d6e63", "#ffffff", "building"),
        LegendEntry::new("i", "#ffb300", "#000000", "ignited"),
        LegendEntry::new("f", "#e53935", "#ffffff", "fire"),
        LegendEntry::new("e", "#6d4c41", "#ffffff", "extinguishing"),
        LegendEntry::new("x", "#424242", "#ffffff", "extinguished"),
        LegendEntry::new("*", "#d7ccc8", "#4e342e", "cut target"),
        LegendEntry::new("C", "#f06292", "#ffffff", "civilian"),
        LegendEntry::new("F", "#0d47a1", "#ffffff", "firefighter"),
        LegendEntry::new("U", "#ff6f00", "#ffffff", "bulldozer"),
        LegendEntry::new("D", "#6a1b9a", "#ffffff", "drone"),
        LegendEntry::new("H", "#00838f", "#ffffff", "helicopter"),
    ]
}

/// One sub-goal per map quarter that is done when its count reaches 0 (`<prefix>-<quarter>`,
/// progress `−count`); `describe(quarter name, count)` words it.
fn count_goals(
    prefix: &str,
    counts: &[usize; 4],
    describe: impl Fn(&str, usize) -> String,
) -> Vec<SubGoal> {
    (0..4)
        .map(|q| SubGoal {
            id: format!("{prefix}-{}", QUARTERS[q]),
            description: describe(QUARTER_NAMES[q], counts[q]),
            progress: -(counts[q] as f64),
            open: counts[q] > 0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::quarter;

    #[test]
    fn quarters_split_the_map() {
        assert_eq!(quarter(10, (0, 0)), 0);
        assert_eq!(quarter(10, (9, 0)), 1);
        assert_eq!(quarter(10, (0, 9)), 2);
        assert_eq!(quarter(10, (5, 5)), 3);
    }
}
