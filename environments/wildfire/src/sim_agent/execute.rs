//! Simulated answers to the EXECUTION prompt (docs/design/wildfire.md §11.2): the expert maps the
//! action's words to the agent kind's primitive type (§10 table) and copies its coordinates,
//! clamped to the map; the random answer is a random legal type with in-map parameters. Both always
//! validate.

use super::{coords, kind_after, map_max, Rng};
use crate::config::AgentKind;
use crate::grid::Cell;
use crate::primitive::{max_type, Primitive};

/// The action text of an EXECUTION prompt: after `[ACTION]:`, the `<action>` content when the
/// whole act reply was passed, without the reasoning block.
fn action_text(user: &str) -> String {
    let key = "[ACTION]:";
    let raw = user.rfind(key).map_or("", |i| &user[i + key.len()..]);
    let raw = crate::llm_play::strip_reasoning(raw);
    let inner = match (raw.find("<action>"), raw.find("</action>")) {
        (Some(a), Some(b)) if b > a => raw[a + "<action>".len()..b].to_string(),
        _ => raw,
    };
    inner.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `text` (lower case) contains any of `words`.
fn has(text: &str, words: &[&str]) -> bool {
    words.iter().any(|w| text.contains(w))
}

/// The primitive type an action means for `kind`, and whether it needs target coordinates.
fn type_of(kind: AgentKind, t: &str) -> (u8, bool) {
    let moving = has(
        t,
        &[
            "move", "go ", "walk", "head", "run ", "fly", "drive", "travel",
        ],
    );
    match kind {
        AgentKind::Firefighter => {
            if has(t, &["refill"]) {
                (7, false)
            } else if has(t, &["spray"]) {
                (6, true)
            } else if has(
                t,
                &["cut all", "all trees", "all the trees", "clear the cell"],
            ) {
                (3, false)
            } else if has(t, &["cut"]) {
                (2, false)
            } else if has(t, &["pick up", "pick"]) {
                (4, false)
            } else if has(t, &["drop"]) {
                (5, false)
            } else if moving {
                (1, true)
            } else {
                (0, false)
            }
        }
        AgentKind::Bulldozer => {
            if has(t, &["lower", "clear", "plow down", "plough down"]) {
                (2, true)
            } else if moving {
                (1, true)
            } else {
                (0, false)
            }
        }
        AgentKind::Drone => (u8::from(moving), moving),
        AgentKind::Helicopter => {
            if has(t, &["water"]) && has(t, &["drop", "dump", "release"]) {
                (5, false)
            } else if has(t, &["refill"]) {
                (4, false)
            } else if has(t, &["pick up", "board", "load firefighters"]) {
                (2, false)
            } else if has(t, &["drop off", "deploy", "unload", "drop"]) {
                (3, false)
            } else if moving {
                (1, true)
            } else {
                (0, false)
            }
        }
    }
}

/// The number of trees of a "cut n trees" action (1–3, default 1).
fn tree_count(t: &str) -> i32 {
    let words: Vec<&str> = t.split_whitespace().collect();
    let named = ["one", "two", "three"];
    words
        .windows(2)
        .find(|w| w[1].starts_with("tree"))
        .and_then(|w| {
            w[0].parse::<i32>()
                .ok()
                .or_else(|| named.iter().position(|n| *n == w[0]).map(|p| p as i32 + 1))
        })
        .unwrap_or(1)
        .clamp(1, 3)
}

fn clamp(c: Cell, m: i32) -> Cell {
    (c.0.clamp(0, m), c.1.clamp(0, m))
}

/// The expert translation of `action` for a `kind` agent on a map whose last coordinate is
/// `m`.
fn expert(kind: AgentKind, m: i32, action: &str) -> Primitive {
    let description = action.replace('"', "'");
    let t = action.to_lowercase();
    let (ty, targeted) = type_of(kind, &t);
    let target = coords(action).first().map(|&c| clamp(c, m));
    match (ty, targeted, target) {
        (0, _, _) => Primitive::new(0, 0, 0, &description),
        (_, true, None) => Primitive::new(
            0,
            0,
            0,
            &format!("cannot execute, no target coordinates given: {description}"),
        ),
        (_, true, Some(c)) => Primitive::new(ty, c.0, c.1, &description),
        (2, false, _) if kind == AgentKind::Firefighter => {
            Primitive::new(2, tree_count(&t), 0, &description)
        }
        _ => Primitive::new(ty, 0, 0, &description),
    }
}

/// A random legal primitive for `kind`.
fn random(kind: AgentKind, m: i32, rng: &mut Rng) -> Primitive {
    let ty = rng.below(usize::from(max_type(kind)) + 1) as u8;
    let (x, y) = rng.cell(m);
    let (p1, p2) = match (kind, ty) {
        (AgentKind::Firefighter, 1 | 6)
        | (AgentKind::Bulldozer, 1 | 2)
        | (AgentKind::Drone | AgentKind::Helicopter, 1) => (x, y),
        (AgentKind::Firefighter, 2) => (1 + rng.below(3) as i32, 0),
        _ => (0, 0),
    };
    Primitive::new(ty, p1, p2, "random action")
}

/// The reply to an EXECUTION prompt: one `[type, param_1, param_2, "description"]` line.
pub(super) fn reply(user: &str, expert_answer: bool, rng: &mut Rng) -> Option<String> {
    let kind = kind_after(user, "trained ")?;
    let m = map_max(user)?.max(0);
    let action = action_text(user);
    let p = if expert_answer {
        expert(kind, m, &action)
    } else {
        random(kind, m, rng)
    };
    Some(p.to_code())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_map_to_types() {
        let f = AgentKind::Firefighter;
        let cases = [
            (f, "move to (3, 4)", (1, 3, 4)),
            (f, "cut all trees in the current cell at (3, 4)", (3, 0, 0)),
            (f, "cut 2 trees in the current cell", (2, 2, 0)),
            (f, "spray water toward (40, 1)", (6, 29, 1)),
            (f, "refill water", (7, 0, 0)),
            (f, "pick up the closest civilian", (4, 0, 0)),
            (f, "drop off the carried civilian", (5, 0, 0)),
            (f, "do nothing and wait here", (0, 0, 0)),
            (f, "move north", (0, 0, 0)),
            (
                AgentKind::Bulldozer,
                "drive to (5, 6) with the plow lowered, clearing all trees on the way",
                (2, 5, 6),
            ),
            (
                AgentKind::Bulldozer,
                "drive to (5, 6) with the plow raised",
                (1, 5, 6),
            ),
            (AgentKind::Drone, "fly to (7, 8)", (1, 7, 8)),
            (
                AgentKind::Helicopter,
                "drop one load of water below",
                (5, 0, 0),
            ),
            (
                AgentKind::Helicopter,
                "drop off all carried firefighters",
                (3, 0, 0),
            ),
            (
                AgentKind::Helicopter,
                "pick up all nearby firefighters",
                (2, 0, 0),
            ),
            (AgentKind::Helicopter, "refill water", (4, 0, 0)),
        ];
        for (kind, action, (t, p1, p2)) in cases {
            let p = expert(kind, 29, action);
            assert_eq!((p.kind, p.p1, p.p2), (t, p1, p2), "{kind:?} {action}");
        }
    }

    #[test]
    fn reads_the_action_out_of_a_whole_reply() {
        let user =
            "… [ACTION]: <reasoning>go to (1, 1)?</reasoning><action>fly to (5, 6)</action>\n";
        assert_eq!(action_text(user), "fly to (5, 6)");
    }
}
