//! Simulated answers to the act prompt (system = [`crate::llm_play::instructions`], user =
//! [`crate::llm_play::perceived_text`]): `<reasoning>…</reasoning><action>…</action>` with one
//! ability in words and explicit coordinates (docs/design/wildfire.md §11.3 abilities, §14.1 tags).
//!
//! The expert reads the task (§11.4), its type and rank in the team composition, its position,
//! status, perceived cells of interest and its past actions, and chooses as a sensible player
//! would: split cut targets by rank, sweep unexplored quadrants, ferry firefighters, carry
//! civilians to the safe location, refill and spray near fire. The random answer is a random
//! ability of its type with random in-map coordinates.

use super::act_read::{parse, Ctx, Task};
use super::{chebyshev, dist2, kind_after, map_max, number_after, xy, Rng};
use crate::config::AgentKind;
use crate::grid::Cell;

/// An action in words the EXECUTION module understands, with the reasoning behind it.
type Choice = (String, String);

fn go(ctx: &Ctx, c: Cell, why: &str) -> Choice {
    let verb = match ctx.kind {
        AgentKind::Firefighter => "move to",
        AgentKind::Bulldozer => "drive to",
        AgentKind::Drone | AgentKind::Helicopter => "fly to",
    };
    let tail = if ctx.kind == AgentKind::Bulldozer {
        " with the plow raised"
    } else {
        ""
    };
    (why.to_string(), format!("{verb} {}{tail}", xy(c)))
}

fn say(why: &str, action: &str) -> Choice {
    (why.to_string(), action.to_string())
}

fn wait(why: &str) -> Choice {
    say(why, "do nothing and wait here")
}

fn cut(ctx: &Ctx, cells: &[Cell], lines: &[(Cell, Cell)]) -> Choice {
    let line_cells = |&(a, b): &(Cell, Cell)| -> Vec<Cell> {
        let (dx, dy) = ((b.0 - a.0).signum(), (b.1 - a.1).signum());
        let n = chebyshev(a, b);
        (0..=n).map(|k| (a.0 + k * dx, a.1 + k * dy)).collect()
    };
    let (r, n) = ctx.rank(&[AgentKind::Firefighter, AgentKind::Bulldozer]);
    if ctx.kind == AgentKind::Bulldozer {
        let plowed = ctx.past_cells("lowered");
        let order: Vec<&(Cell, Cell)> = (0..lines.len())
            .map(|k| &lines[(r + k) % lines.len()])
            .collect();
        if let Some(&&(a, b)) = order
            .iter()
            .find(|(a, b)| !plowed.contains(a) && !plowed.contains(b))
        {
            let (from, to) = if dist2(ctx.me, a) <= dist2(ctx.me, b) {
                (a, b)
            } else {
                (b, a)
            };
            if ctx.me == from {
                return say(
                    "I am at the end of my line; plowing along it clears every tree.",
                    &format!(
                        "drive to {} with the plow lowered, clearing all trees on the way",
                        xy(to)
                    ),
                );
            }
            return go(ctx, from, "I drive to the start of the line I clear.");
        }
        let left: Vec<Cell> = cells
            .iter()
            .copied()
            .filter(|c| !plowed.contains(c))
            .collect();
        return match ctx.nearest(&left) {
            Some(c) => say(
                "I clear the nearest target cell with the plow.",
                &format!(
                    "drive to {} with the plow lowered, clearing all trees on the way",
                    xy(c)
                ),
            ),
            None => wait("My share of the task is done."),
        };
    }
    if ctx.kind != AgentKind::Firefighter {
        return wait("Only ground agents can cut trees.");
    }
    let done = ctx.past_cells("cut");
    let targets: Vec<Vec<Cell>> = if lines.is_empty() {
        cells.iter().map(|&c| vec![c]).collect()
    } else {
        lines.iter().map(line_cells).collect()
    };
    let left =
        |g: &Vec<Cell>| -> Vec<Cell> { g.iter().copied().filter(|c| !done.contains(c)).collect() };
    if targets.iter().flat_map(left).any(|c| c == ctx.me) {
        return say(
            "I stand on a target cell; I cut all of its trees.",
            &format!("cut all trees in the current cell at {}", xy(ctx.me)),
        );
    }
    let mine: Vec<Cell> = if lines.is_empty() {
        targets
            .iter()
            .enumerate()
            .filter(|(k, _)| k % n == r)
            .flat_map(|(_, g)| left(g))
            .collect()
    } else {
        (0..targets.len())
            .map(|k| left(&targets[(r + k) % targets.len()]))
            .find(|g| !g.is_empty())
            .unwrap_or_default()
    };
    let all: Vec<Cell> = targets.iter().flat_map(left).collect();
    match ctx.nearest(&mine).or_else(|| ctx.nearest(&all)) {
        Some(c) => go(ctx, c, "I walk to the nearest target cell of my share."),
        None => wait("All my target cells are cut."),
    }
}

fn transport(ctx: &Ctx, t: Cell) -> Choice {
    let is = |id: u32, k: AgentKind| ctx.kind_of(id) == Some(k);
    match ctx.kind {
        AgentKind::Helicopter if ctx.passengers > 0 => {
            if chebyshev(ctx.me, t) <= 1 {
                say(
                    "I am over the target with firefighters aboard.",
                    "drop off all carried firefighters",
                )
            } else {
                go(ctx, t, "I carry firefighters to the target.")
            }
        }
        AgentKind::Helicopter => {
            let waiting: Vec<Cell> = ctx
                .agents
                .iter()
                .filter(|(id, c)| is(*id, AgentKind::Firefighter) && chebyshev(*c, t) > 3)
                .map(|&(_, c)| c)
                .collect();
            match ctx.nearest(&waiting) {
                Some(c) if dist2(c, ctx.me) < 9 => say(
                    "Firefighters are right next to me.",
                    "pick up all nearby firefighters",
                ),
                Some(c) => go(
                    ctx,
                    c,
                    "I fetch the nearest firefighter still far from the target.",
                ),
                None => wait("No firefighter needs a ride."),
            }
        }
        AgentKind::Firefighter if chebyshev(ctx.me, t) <= 2 => wait("I reached the target."),
        AgentKind::Firefighter => {
            let heli = ctx
                .agents
                .iter()
                .any(|(id, c)| is(*id, AgentKind::Helicopter) && dist2(*c, ctx.me) < 9);
            if heli {
                wait("A helicopter is next to me; I wait to be picked up.")
            } else {
                go(ctx, t, "I walk to the target.")
            }
        }
        _ => go(ctx, t, "I head to the target."),
    }
}

fn rescue(ctx: &Ctx, clusters: &[Cell], safe: Cell) -> Choice {
    let spacing = match ctx.kind {
        AgentKind::Firefighter | AgentKind::Bulldozer => 20,
        _ => 30,
    };
    if ctx.kind != AgentKind::Firefighter {
        return go(ctx, ctx.sweep(spacing), "I search the map for civilians.");
    }
    if ctx.carrying {
        return if chebyshev(ctx.me, safe) <= 2 {
            say(
                "I carry a civilian at the safe location.",
                "drop off the carried civilian",
            )
        } else {
            go(ctx, safe, "I carry the civilian to the safe location.")
        };
    }
    let waiting: Vec<Cell> = ctx
        .civilians
        .iter()
        .copied()
        .filter(|&c| chebyshev(c, safe) > 4)
        .collect();
    if let Some(c) = ctx.nearest(&waiting) {
        return if dist2(c, ctx.me) < 16 {
            say(
                "A civilian is within reach.",
                "pick up the closest civilian",
            )
        } else {
            go(ctx, c, "I go to the nearest civilian.")
        };
    }
    let visited = ctx.past_cells("move");
    let (r, _) = ctx.rank(&[AgentKind::Firefighter]);
    let k = clusters.len();
    let next = (0..k)
        .map(|j| clusters[(r + j) % k])
        .find(|c| !visited.contains(c) && *c != ctx.me);
    match next {
        Some(c) => go(ctx, c, "I go to a civilian group the task names."),
        None => go(ctx, ctx.sweep(spacing), "I search the map for civilians."),
    }
}

fn suppress(ctx: &Ctx, fire: Option<Cell>, water: Option<Cell>) -> Choice {
    let fire = ctx.nearest(&ctx.fires).or(fire);
    let water = water.or_else(|| ctx.nearest(&ctx.waters));
    let turn = 0.5 * ctx.past.len() as f64;
    match ctx.kind {
        AgentKind::Drone => match fire {
            Some(f) if chebyshev(f, ctx.me) <= 3 => wait("I keep the fire in view."),
            Some(f) => go(ctx, f, "I fly over the fire to watch it."),
            None => go(ctx, ctx.sweep(30), "I search for the fire."),
        },
        AgentKind::Helicopter => match (ctx.water, water, fire) {
            (0, Some(w), _) if chebyshev(w, ctx.me) <= 2 => {
                say("I am at the water source.", "refill water")
            }
            (0, Some(w), _) => go(ctx, w, "I fetch water."),
            (_, _, Some(f)) if ctx.water > 0 && chebyshev(f, ctx.me) <= 1 => say(
                "I am above the fire with water.",
                "drop one load of water below",
            ),
            (_, _, Some(f)) if ctx.water > 0 => go(ctx, f, "I bring water to the fire."),
            _ => go(ctx, ctx.sweep(40), "I search for the fire."),
        },
        AgentKind::Bulldozer => match fire {
            Some(f) => {
                let c = ctx.around(f, 7.0, turn);
                say(
                    "I plow a firebreak around the fire at a safe distance.",
                    &format!(
                        "drive to {} with the plow lowered, clearing all trees on the way",
                        xy(c)
                    ),
                )
            }
            None => go(ctx, ctx.sweep(20), "I search for the fire."),
        },
        AgentKind::Firefighter => match (fire, water) {
            (Some(f), _) if ctx.water > 0 => {
                let d = chebyshev(f, ctx.me);
                if (2..=3).contains(&d) {
                    say(
                        "The fire is within my spray range.",
                        &format!("spray water toward {}", xy(f)),
                    )
                } else {
                    go(
                        ctx,
                        ctx.around(f, 3.0, 0.0),
                        "I approach the fire to spraying distance.",
                    )
                }
            }
            (_, Some(w)) if ctx.water == 0 => {
                if chebyshev(w, ctx.me) <= 2 {
                    say("I am next to the water source.", "refill water")
                } else {
                    go(ctx, w, "My tank is empty; I go to the water source.")
                }
            }
            (Some(f), None) => {
                let ring = ctx.around(f, 5.0, turn);
                if ring == ctx.me && !ctx.past_cells("cut").contains(&ctx.me) {
                    say(
                        "I cut a firebreak here.",
                        &format!("cut all trees in the current cell at {}", xy(ctx.me)),
                    )
                } else {
                    go(ctx, ring, "I build a firebreak around the fire.")
                }
            }
            _ => go(ctx, ctx.sweep(20), "I search for the fire."),
        },
    }
}

fn expert(ctx: &Ctx) -> Choice {
    match &ctx.task {
        Task::Cut { cells, lines } => cut(ctx, cells, lines),
        Task::Scout => match ctx.nearest(&ctx.fires) {
            Some(f) if chebyshev(f, ctx.me) <= 5 => {
                wait("The fire is in my view; I hold position.")
            }
            Some(f) => go(ctx, f, "Fire was spotted; I fly there to confirm it."),
            None => go(
                ctx,
                ctx.sweep(30),
                "I sweep my part of the map for the fire.",
            ),
        },
        Task::Transport(t) => transport(ctx, *t),
        Task::Rescue { clusters, safe } => rescue(ctx, clusters, *safe),
        Task::Suppress { fire, water } => suppress(ctx, *fire, *water),
        Task::Unknown => wait("I do not understand the task."),
    }
}

/// A random ability of my kind with random in-map coordinates.
fn random(kind: AgentKind, m: i32, rng: &mut Rng) -> String {
    let c = xy(rng.cell(m));
    let n = 1 + rng.below(3);
    let options: Vec<String> = match kind {
        AgentKind::Firefighter => vec![
            format!("move to {c}"),
            format!("cut {n} trees in the current cell"),
            "cut all trees in the current cell".into(),
            "pick up the closest civilian".into(),
            "drop off the carried civilian".into(),
            format!("spray water toward {c}"),
            "refill water".into(),
            "do nothing and wait here".into(),
        ],
        AgentKind::Bulldozer => vec![
            format!("drive to {c} with the plow raised"),
            format!("drive to {c} with the plow lowered, clearing all trees on the way"),
            "do nothing and wait here".into(),
        ],
        AgentKind::Drone => vec![format!("fly to {c}"), "do nothing and wait here".into()],
        AgentKind::Helicopter => vec![
            format!("fly to {c}"),
            "pick up all nearby firefighters".into(),
            "drop off all carried firefighters".into(),
            "refill water".into(),
            "drop one load of water below".into(),
            "do nothing and wait here".into(),
        ],
    };
    options[rng.below(options.len())].clone()
}

/// The reply to an act prompt, or `None` when the system prompt cannot be read.
pub(super) fn reply(
    system: &str,
    user: &str,
    expert_answer: bool,
    rng: &mut Rng,
) -> Option<String> {
    let kind = number_after(system, "You are AGENT_")
        .and_then(|id| kind_after(system, &format!("AGENT_{id}, a ")))?;
    let m = map_max(system)?;
    let ctx = parse(system, user);
    if ctx.is_none() && !system.contains(crate::llm_play::ACT_FORMAT) {
        // An agent card alone (no task): not an act prompt yet; the framework's simulated
        // model asks again with the whole prompt after the card.
        return None;
    }
    let (why, action) = match (expert_answer, ctx) {
        (true, Some(ctx)) => expert(&ctx),
        _ => ("I try something.".to_string(), random(kind, m, rng)),
    };
    Some(format!(
        "<reasoning>{why}</reasoning>\n<action>{action}</action>"
    ))
}
