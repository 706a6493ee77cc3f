//! Validation of a loaded state (`colony env step --state FILE`): every error names the field.

use colony_env_api::EnvError;

use crate::config::MAX_AGENTS;
use crate::state::WildfireState;

/// Largest frame counter a state may carry (far from overflow).
pub const MAX_FRAME: u64 = 1 << 53;

fn bad(field: impl Into<String>, message: impl Into<String>) -> EnvError {
    EnvError::State {
        field: field.into(),
        message: message.into(),
    }
}

/// Checks grid sizes, agent ids and references, civilian references and positions.
pub fn check_state(s: &WildfireState) -> Result<(), EnvError> {
    s.level
        .check()
        .map_err(|(field, message)| bad(format!("level.{field}"), message))?;
    let g = &s.grid;
    if g.size == 0 || g.size as u64 != u64::from(s.level.map_size) {
        return Err(bad(
            "grid.size",
            format!(
                "{} does not match level.map_size {}",
                g.size, s.level.map_size
            ),
        ));
    }
    let n = g.size * g.size;
    // Scenario states may carry another team than the level's (the level's team is what a
    // reset places); only the count is bounded.
    if s.agents.is_empty() || s.agents.len() > MAX_AGENTS as usize {
        return Err(bad(
            "agents",
            format!("{} agents is outside 1..={MAX_AGENTS}", s.agents.len()),
        ));
    }
    if s.step > s.level.max_steps {
        return Err(bad(
            "step",
            format!("{} is past level.max_steps {}", s.step, s.level.max_steps),
        ));
    }
    // Counters add up into scores (f64) and grow by one per event: past 2^53 they are not
    // exact, and near u64::MAX the next event would overflow.
    let c = &s.counters;
    for (field, v) in [
        ("counters.trees_burned", c.trees_burned),
        ("counters.trees_removed", c.trees_removed),
        ("counters.buildings_destroyed", c.buildings_destroyed),
        ("counters.extinguished_by_water", c.extinguished_by_water),
        ("counters.agents_lost", c.agents_lost),
        ("counters.civilians_lost", c.civilians_lost),
    ] {
        if v > MAX_FRAME {
            return Err(bad(field, format!("{v} is above {MAX_FRAME}")));
        }
    }
    if s.frame > MAX_FRAME {
        return Err(bad("frame", format!("{} is above {MAX_FRAME}", s.frame)));
    }
    let lens = [
        ("grid.elevation", g.elevation.len()),
        ("grid.moisture", g.moisture.len()),
        ("grid.wind_x", g.wind_x.len()),
        ("grid.wind_y", g.wind_y.len()),
        ("grid.land", g.land.len()),
        ("grid.trees", g.trees.len()),
        ("grid.building", g.building.len()),
        ("grid.fire", g.fire.len()),
        ("grid.spread_pending", g.spread_pending.len()),
        ("grid.ext_timer", g.ext_timer.len()),
        ("grid.wet", g.wet.len()),
        ("team_map", s.team_map.len()),
    ];
    for (field, len) in lens {
        if len != n {
            return Err(bad(
                field,
                format!("has {len} entries, expected {n} (size²)"),
            ));
        }
    }
    if let Some(i) = g.trees.iter().position(|&t| t > 3) {
        return Err(bad(format!("grid.trees[{i}]"), "more than 3 trees"));
    }
    if let Some(i) = s.team_map.iter().position(|&c| c > 15) {
        return Err(bad(format!("team_map[{i}]"), "code above 15"));
    }
    let size = g.size as f64;
    for (k, a) in s.agents.iter().enumerate() {
        let field = |f: &str| format!("agents[{k}].{f}");
        if a.id as usize != k + 1 {
            return Err(bad(field("id"), format!("is {}, expected {}", a.id, k + 1)));
        }
        if !(0.0..size).contains(&a.px) || !(0.0..size).contains(&a.py) {
            return Err(bad(
                field("px"),
                format!("position ({}, {}) is off the map", a.px, a.py),
            ));
        }
        if let Some(c) = a.carrying {
            if c >= s.civilians.len() {
                return Err(bad(field("carrying"), format!("no civilian {c}")));
            }
        }
        for &p in &a.passengers {
            if p == 0 || p as usize > s.agents.len() {
                return Err(bad(field("passengers"), format!("no agent {p}")));
            }
        }
        if let Some(h) = a.passenger_of {
            if h == 0 || h as usize > s.agents.len() {
                return Err(bad(field("passenger_of"), format!("no agent {h}")));
            }
        }
    }
    for (k, c) in s.civilians.iter().enumerate() {
        if !(0.0..size).contains(&c.px) || !(0.0..size).contains(&c.py) {
            return Err(bad(format!("civilians[{k}].px"), "position is off the map"));
        }
        if let Some(id) = c.carried_by {
            if id == 0 || id as usize > s.agents.len() {
                return Err(bad(
                    format!("civilians[{k}].carried_by"),
                    format!("no agent {id}"),
                ));
            }
        }
    }
    let t = &s.targets;
    let named = [
        ("targets.spawn".to_string(), Some(t.spawn)),
        ("targets.fire".to_string(), t.fire),
        ("targets.water".to_string(), t.water),
        ("targets.transport".to_string(), t.transport),
        ("targets.rescue".to_string(), t.rescue),
    ];
    let listed = t
        .cut_cells
        .iter()
        .enumerate()
        .map(|(k, &c)| (format!("targets.cut_cells[{k}]"), Some(c)))
        .chain(
            t.clusters
                .iter()
                .enumerate()
                .map(|(k, &c)| (format!("targets.clusters[{k}]"), Some(c))),
        )
        .chain(t.lines.iter().enumerate().flat_map(|(k, &(a, b))| {
            [
                (format!("targets.lines[{k}]"), Some(a)),
                (format!("targets.lines[{k}]"), Some(b)),
            ]
        }));
    for (field, cell) in named.into_iter().chain(listed) {
        if let Some(c) = cell {
            if !g.contains(c) {
                return Err(bad(field, format!("cell {c:?} is off the map")));
            }
        }
    }
    if s.level.fire_frames == 0 || s.level.civ_frames == 0 {
        return Err(bad("level.fire_frames", "frame periods must be at least 1"));
    }
    Ok(())
}
