//! Prompt placeholder values as functions of the state (docs/design/wildfire.md §11.3) and the
//! PERCEPTION prompt (§11.1). Pure text; no LLM code. The task descriptions (§11.4) are part of
//! the game observation and live in [`crate::observe`]; they are re-exported here.

use std::collections::BTreeMap;

use crate::config::AgentKind;
use crate::observe::{minimap, token, window, xy};
use crate::state::WildfireState;

// The task description is part of the game observation (§9.2), so it lives in `observe`.
pub use crate::observe::task_description;

/// The legend of the PERCEPTION prompt, exactly as the paper gives it (§11.1).
pub const LEGEND: &str = "0: brush (no trees)\n1: light forest (1 tree)\n2: medium forest (2 trees)\n3: dense forest (3 trees)\ni: Ignited\nf: On Fire\ne: Extinguishing\nx: Fully Extinguished\nw: Water Source Cell (no trees)\nB: building (no trees)\n";

/// The notes under the legend, exactly (§11.1).
pub const NOTES: &str = "IGNORE ALL \"-\". Those are unrevealed cells. They will reveal themselves when you get closer to them.\nThe cells in single quotations are wet cells. 'C' cells are civilians.\n";

/// `AGENT X` (§11.3).
pub fn agent_name(s: &WildfireState, i: usize) -> String {
    s.agents[i].name()
}

/// `AGENT-TYPE` (§11.3).
pub fn agent_type(s: &WildfireState, i: usize) -> &'static str {
    s.agents[i].kind.name()
}

/// `POSITION` (§11.3).
pub fn position(s: &WildfireState, i: usize) -> String {
    xy(s.agents[i].cell())
}

/// `X by Y` (§11.3).
pub fn map_dimensions(s: &WildfireState) -> String {
    format!("{} by {}", s.grid.size, s.grid.size)
}

/// `N`: team size (§11.3).
pub fn team_size(s: &WildfireState) -> usize {
    s.agents.len()
}

fn role(kind: AgentKind) -> &'static str {
    match kind {
        AgentKind::Firefighter => "generalists that cut trees to build firelines, spray and refill water, and carry civilians to safety",
        AgentKind::Bulldozer => "slow heavy vehicles that clear all vegetation they drive over with the plow lowered, but cannot extinguish or rescue",
        AgentKind::Drone => "fast scouts with a wide view that reveal the map for the team",
        AgentKind::Helicopter => "very fast transports that carry up to five firefighters and drop water, indispensable on large maps",
    }
}

/// `TEAM COMPOSITION`: per present type, its agents and role (§11.3).
pub fn team_composition(s: &WildfireState) -> String {
    let mut out = String::new();
    for kind in AgentKind::ALL {
        let names: Vec<String> = s
            .agents
            .iter()
            .filter(|a| a.kind == kind && a.alive)
            .map(|a| a.name())
            .collect();
        if !names.is_empty() {
            out.push_str(&format!(
                "{}s ({}): {}.\n",
                kind.name(),
                names.join(", "),
                role(kind)
            ));
        }
    }
    out
}

/// `AGENT ABILITIES`: the natural-language list of a type's primitives (§11.3).
pub fn agent_abilities(kind: AgentKind) -> String {
    let items: &[&str] = match kind {
        AgentKind::Firefighter => &[
            "move to any coordinate in one action, regardless of distance",
            "cut a number of trees (1-3) in the current cell",
            "cut all trees in the current cell",
            "pick up the closest civilian within a short range",
            "drop off the carried civilian",
            "spray water in a wide cone toward a target coordinate",
            "refill water near a water source",
            "do nothing",
        ],
        AgentKind::Bulldozer => &[
            "drive to a coordinate with the plow raised",
            "drive to a coordinate with the plow lowered, clearing all trees on the way",
            "do nothing",
        ],
        AgentKind::Drone => &["fly to any coordinate", "do nothing"],
        AgentKind::Helicopter => &[
            "fly to any coordinate",
            "pick up all nearby firefighters",
            "drop off all carried firefighters",
            "refill water near a water source",
            "drop one load of water below",
            "do nothing",
        ],
    };
    items.iter().map(|i| format!("- {i}\n")).collect()
}

/// `LIST OF AGENT ABILITIES ON TEAM` (§11.3).
pub fn team_abilities(s: &WildfireState) -> String {
    let mut out = String::new();
    for kind in AgentKind::ALL {
        if s.agents.iter().any(|a| a.kind == kind) {
            out.push_str(&format!("{}:\n{}", kind.name(), agent_abilities(kind)));
        }
    }
    out
}

/// Status lines of an agent (§11.1): carried civilian and water, or passengers and water.
pub fn status_lines(s: &WildfireState, i: usize) -> String {
    let a = &s.agents[i];
    match a.kind {
        AgentKind::Firefighter => format!(
            "{} carrying a civilian. Water: {}/5 units.\n",
            if a.carrying.is_some() {
                "You are"
            } else {
                "You are not"
            },
            a.water
        ),
        AgentKind::Helicopter => format!(
            "You carry {} firefighters. Water: {}/5.\n",
            a.passengers.len(),
            a.water
        ),
        _ => String::new(),
    }
}

/// Other live agents near an agent, `AGENT_k: (x, y)` (§11.1): within `2R` cells on each
/// axis, `R` the minimap radius. WILDFIRE-ORCH lists the agents with `|dx|, |dy| < map_range`,
/// `map_range` being the minimap's width `2R+1` (`core/alg_utils.py`
/// `get_agent_observations`), so twice as far as the minimap reaches.
pub fn nearby_agents(s: &WildfireState, i: usize) -> String {
    let me = &s.agents[i];
    let (x, y) = me.cell();
    let r = 2 * me.kind.minimap_radius();
    s.agents
        .iter()
        .filter(|a| a.id != me.id && a.alive)
        .filter(|a| {
            let c = a.cell();
            (c.0 - x).abs() <= r && (c.1 - y).abs() <= r
        })
        .map(|a| format!("{}: {}", a.name(), xy(a.cell())))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The PERCEPTION prompt of agent index `i` (§11.1); passengers get the fixed text.
pub fn perception_prompt(s: &WildfireState, i: usize) -> String {
    let a = &s.agents[i];
    let (x, y) = a.cell();
    if !a.alive {
        return format!("{} was destroyed.", a.name());
    }
    if a.passenger_of.is_some() {
        return format!(
            "{} is inside a helicopter at {}, unable to act.",
            a.name(),
            xy((x, y))
        );
    }
    let r = a.kind.minimap_radius();
    let m = s.grid.size - 1;
    let own = window(s, (x, y), 0);
    let own_token = own.first().map_or("-", |&c| token(c));
    format!(
        "You are the perception module of an embodied {kind} agent {name} in a grid world spanning x: [0, {m}], y: [0, {m}].\n\
         You are {name}; your location is ({x}, {y}); your minimap covers X: [{x0}, {x1}], Y: [{y0}, {y1}], with the top corner of the map being (0,0).\n\n\
         {map}\n{LEGEND}\n{NOTES}\
         The bolded cell is the current cell you are in. It is a *{own_token}* cell at ({x}, {y}).\n\
         Nearby agents: {near}\n{status}\n\
         Describe your surroundings spatially rather than repeating the characters, and do not mention the character codes. Report general observations by direction, and cells of interest (fire, civilians, water, buildings) with exact coordinates obtained by counting cells. Answer in the first person as {name}, in one detailed but concise paragraph.\n",
        kind = a.kind.name(),
        name = a.name(),
        x0 = x - r,
        x1 = x + r,
        y0 = y - r,
        y1 = y + r,
        map = minimap(s, i),
        near = nearby_agents(s, i),
        status = status_lines(s, i),
    )
}

/// `PERCEPTION`: an agent's perception text plus its position and status lines (§11.3).
pub fn perception(s: &WildfireState, i: usize, text: &str) -> String {
    format!(
        "{text}\nPosition: {}.\n{}",
        position(s, i),
        status_lines(s, i)
    )
}

/// `PAST ACTIONS` / `ACTION HISTORY`: completed primitives, oldest first (§11.3).
pub fn past_actions(s: &WildfireState, i: usize) -> String {
    let h = &s.agents[i].history;
    if h.is_empty() {
        return "None\n".into();
    }
    h.iter()
        .enumerate()
        .map(|(k, d)| format!("{}. {d}\n", k + 1))
        .collect()
}

/// `GLOBAL DATA`: per live agent name, perception, position, current action or `IDLE`,
/// past actions (§11.3). `perceptions` maps agent index to perception text.
pub fn global_data(s: &WildfireState, perceptions: &BTreeMap<usize, String>) -> String {
    let mut out = String::new();
    for (i, a) in s.agents.iter().enumerate().filter(|(_, a)| a.alive) {
        let current = a
            .action
            .as_ref()
            .map_or("IDLE".to_string(), |p| p.description.clone());
        out.push_str(&format!(
            "{}:\n  Perception: {}\n  Position: {}\n  Current action: {current}\n  Past actions: {}\n",
            a.name(),
            perceptions.get(&i).map_or("", String::as_str),
            xy(a.cell()),
            a.history.join("; ")
        ));
    }
    out
}

/// `GLOBAL STATE`: per live agent name, type, position, perception and available actions.
pub fn global_state(s: &WildfireState, perceptions: &BTreeMap<usize, String>) -> String {
    let mut out = String::new();
    for (i, a) in s.agents.iter().enumerate().filter(|(_, a)| a.alive) {
        out.push_str(&format!(
            "{} ({}), position {}:\n  Perception: {}\n  Available actions:\n{}",
            a.name(),
            a.kind.name(),
            xy(a.cell()),
            perceptions.get(&i).map_or("", String::as_str),
            agent_abilities(a.kind)
        ));
    }
    out
}

/// `CHAT HISTORY`: `TIME t: AGENT_k: message` lines (§11.3).
pub fn chat_history(messages: &[(u32, String, String)]) -> String {
    messages
        .iter()
        .map(|(t, who, m)| format!("TIME {t}: {who}: {m}\n"))
        .collect()
}

/// `STEP HISTORY`: previous steps' (global state summary, chosen actions) pairs (§11.3).
pub fn step_history(steps: &[(String, Vec<String>)]) -> String {
    steps
        .iter()
        .enumerate()
        .map(|(k, (summary, actions))| {
            format!(
                "STEP {}:\nState: {summary}\nActions: {}\n",
                k + 1,
                actions.join("; ")
            )
        })
        .collect()
}

/// The primitive types an agent kind may use, as `(type, meaning, parameters, example)` rows
/// (design §10), for the EXECUTION prompt.
pub fn primitive_types(kind: AgentKind) -> Vec<(u8, &'static str, &'static str, &'static str)> {
    let mut rows = vec![(0, "do nothing", "0, 0", "[0, 0, 0, \"do nothing\"]")];
    rows.extend(match kind {
        AgentKind::Firefighter => vec![
            (
                1,
                "move to location",
                "x, y",
                "[1, 500, 500, \"move to coordinate location of (500, 500)\"]",
            ),
            (
                2,
                "cut n trees in the current cell",
                "n (1-3), 0",
                "[2, 2, 0, \"cut 2 trees in the current cell\"]",
            ),
            (
                3,
                "cut all trees in the current cell",
                "0, 0",
                "[3, 0, 0, \"cut all trees in the current cell\"]",
            ),
            (
                4,
                "pick up the closest civilian",
                "0, 0",
                "[4, 0, 0, \"pick up the closest civilian\"]",
            ),
            (
                5,
                "drop off the carried civilian",
                "0, 0",
                "[5, 0, 0, \"drop off the civilian\"]",
            ),
            (
                6,
                "spray a water cone toward a target",
                "x, y",
                "[6, 12, 40, \"spray water toward (12, 40)\"]",
            ),
            (7, "refill water", "0, 0", "[7, 0, 0, \"refill water\"]"),
        ],
        AgentKind::Bulldozer => vec![
            (
                1,
                "drive to location with the plow raised",
                "x, y",
                "[1, 30, 8, \"drive to (30, 8)\"]",
            ),
            (
                2,
                "drive to location with the plow lowered, clearing the path",
                "x, y",
                "[2, 30, 8, \"clear a path to (30, 8)\"]",
            ),
        ],
        AgentKind::Drone => vec![(
            1,
            "fly to location",
            "x, y",
            "[1, 70, 15, \"fly to (70, 15)\"]",
        )],
        AgentKind::Helicopter => vec![
            (
                1,
                "fly to location",
                "x, y",
                "[1, 70, 15, \"fly to (70, 15)\"]",
            ),
            (
                2,
                "pick up firefighters",
                "0, 0",
                "[2, 0, 0, \"pick up nearby firefighters\"]",
            ),
            (
                3,
                "drop off firefighters",
                "0, 0",
                "[3, 0, 0, \"drop off the firefighters\"]",
            ),
            (4, "refill water", "0, 0", "[4, 0, 0, \"refill water\"]"),
            (5, "drop water", "0, 0", "[5, 0, 0, \"drop water below\"]"),
        ],
    });
    rows
}

/// The fixed instruction and format text of the EXECUTION prompt (§11.2); simulated agents
/// recognise the prompt by it.
pub const EXECUTION_FORMAT: &str = "Convert the text action below into the executable format without changing it.\nFormat: Action{ int type, int param 1, int param 2, string description }, written as one line [type, param_1, param_2, \"description\"].";

/// The EXECUTION prompt (§11.2): converts one text action of a `kind` agent on a map of side
/// `size` into a single action code line.
pub fn execution_prompt(kind: AgentKind, size: usize, action: &str) -> String {
    let types: String = primitive_types(kind)
        .into_iter()
        .map(|(t, meaning, params, example)| {
            format!("- type {t}: {meaning}; parameters: {params}; example: {example}\n")
        })
        .collect();
    format!(
        "You are the controller of a trained {} agent in a grid forest world (x: [0, {m}], y: [0, {m}]). \
         {EXECUTION_FORMAT}\n\
         Allowed types:\n{types}\
         Choose exactly one type and use whole-number coordinates inside the map. If the action does not \
         fit any type, answer type 0 and explain why in the description.\n\n\
         [ACTION]: {action}\n",
        kind.name(),
        m = size.saturating_sub(1),
    )
}
