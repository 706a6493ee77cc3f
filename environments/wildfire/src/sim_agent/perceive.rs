//! Simulated answers to the PERCEPTION prompt (docs/design/wildfire.md §11.1): the minimap is read
//! cell by cell and reported as one first-person paragraph. The expert counts exact coordinates of
//! fire, civilians, water and buildings and lists the nearby agents; the random answer is vaguer.

use super::{chebyshev, direction, dist2, kind_after, map_max, number_after, xy, Rng};
use crate::grid::Cell;
use crate::prompts::LEGEND;

/// Most coordinates listed per kind of cell.
const MAX_LISTED: usize = 12;

/// What a PERCEPTION prompt shows.
struct Seen {
    name: String,
    kind: &'static str,
    me: Cell,
    m: i32,
    /// Revealed cells and their tokens (wet quotes and the asterisks removed).
    cells: Vec<(Cell, String)>,
    /// Other agents as written after `Nearby agents:`.
    nearby: Vec<(String, Cell)>,
}

fn read(user: &str) -> Option<Seen> {
    let id = number_after(user, "You are AGENT_")?;
    let kind = kind_after(user, "embodied ").map_or("agent", |k| k.name());
    let me = super::coords(&user[user.find("your location is")?..])
        .first()
        .copied()?;
    let x0 = number_after(user, "X: [")?;
    let y0 = number_after(user, "Y: [")?;
    let m = map_max(user).unwrap_or(i32::MAX);
    let start = user.find("(0,0).\n\n").map(|i| i + "(0,0).\n\n".len())?;
    let end = user[start..].find(LEGEND).map(|e| start + e)?;
    let mut cells = Vec::new();
    for (row, line) in user[start..end].lines().enumerate() {
        for (col, token) in line.split(',').enumerate() {
            let t = token.trim().trim_matches('*').trim_matches('\'');
            if t.is_empty() || t == "-" {
                continue;
            }
            cells.push(((x0 + col as i32, y0 + row as i32), t.to_string()));
        }
    }
    let nearby = user
        .lines()
        .find_map(|l| l.strip_prefix("Nearby agents:"))
        .map(|l| {
            l.split("AGENT_")
                .filter_map(|part| {
                    let id: String = part.chars().take_while(char::is_ascii_digit).collect();
                    let c = super::coords(part).first().copied()?;
                    (!id.is_empty()).then(|| (format!("AGENT_{id}"), c))
                })
                .collect()
        })
        .unwrap_or_default();
    Some(Seen {
        name: format!("AGENT_{id}"),
        kind,
        me,
        m,
        cells,
        nearby,
    })
}

fn terrain(token: &str) -> &'static str {
    match token {
        "0" => "brush",
        "1" => "light forest",
        "2" => "medium forest",
        "3" => "dense forest",
        "w" => "water",
        "B" => "buildings",
        "i" | "f" | "e" => "burning ground",
        "x" => "burnt ground",
        "C" => "open ground",
        _ => "unknown ground",
    }
}

/// Cells of `seen` whose token is one of `tokens`, nearest first.
fn of(seen: &Seen, tokens: &[&str]) -> Vec<Cell> {
    let mut v: Vec<Cell> = seen
        .cells
        .iter()
        .filter(|(_, t)| tokens.contains(&t.as_str()))
        .map(|&(c, _)| c)
        .collect();
    v.sort_by_key(|&c| (dist2(c, seen.me), c.1, c.0));
    v
}

fn listed(cells: &[Cell]) -> String {
    let shown: Vec<String> = cells.iter().take(MAX_LISTED).map(|&c| xy(c)).collect();
    shown.join(", ")
}

/// The most common terrain toward each compass quarter, e.g. `to the north mostly brush`.
fn surroundings(seen: &Seen) -> String {
    let quarters = ["north", "east", "south", "west"];
    let mut parts = Vec::new();
    for q in quarters {
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        for (c, t) in &seen.cells {
            let (dx, dy) = (c.0 - seen.me.0, c.1 - seen.me.1);
            let quarter = if dx == 0 && dy == 0 {
                continue;
            } else if dy.abs() >= dx.abs() {
                if dy < 0 {
                    "north"
                } else {
                    "south"
                }
            } else if dx > 0 {
                "east"
            } else {
                "west"
            };
            if quarter != q {
                continue;
            }
            let name = terrain(t);
            match counts.iter_mut().find(|(n, _)| *n == name) {
                Some((_, k)) => *k += 1,
                None => counts.push((name, 1)),
            }
        }
        let best = counts.iter().max_by_key(|(_, k)| *k).map(|(n, _)| *n);
        parts.push(match best {
            Some(n) => format!("to the {q} mostly {n}"),
            None => format!("to the {q} nothing is revealed yet"),
        });
    }
    parts.join("; ")
}

/// The expert paragraph: exact coordinates of every cell of interest, by direction.
fn expert(seen: &Seen) -> String {
    let here = seen
        .cells
        .iter()
        .find(|(c, _)| *c == seen.me)
        .map_or("unknown ground", |(_, t)| terrain(t));
    let mut out = format!(
        "I am {}, a {} at {}, standing on {here}. Around me: {}.",
        seen.name,
        seen.kind,
        xy(seen.me),
        surroundings(seen)
    );
    let fire = of(seen, &["i", "f", "e"]);
    if let Some(&near) = fire.first() {
        out.push_str(&format!(
            " Fire is burning in {} cells, mostly to the {}; the nearest burning cells are at {} ({} cells away).",
            fire.len(),
            direction(seen.me, near),
            listed(&fire),
            chebyshev(seen.me, near)
        ));
    } else {
        out.push_str(" I see no active fire.");
    }
    let out_cells = of(seen, &["x"]);
    if !out_cells.is_empty() {
        out.push_str(&format!(
            " Fully extinguished ground at {}.",
            listed(&out_cells)
        ));
    }
    let civ = of(seen, &["C"]);
    if let Some(&near) = civ.first() {
        out.push_str(&format!(
            " Civilians are at {}, the nearest to the {}.",
            listed(&civ),
            direction(seen.me, near)
        ));
    }
    let water = of(seen, &["w"]);
    if let Some(&near) = water.first() {
        out.push_str(&format!(
            " Water source cells are at {}, the nearest to the {}.",
            listed(&water),
            direction(seen.me, near)
        ));
    }
    let buildings = of(seen, &["B"]);
    if !buildings.is_empty() {
        out.push_str(&format!(
            " Buildings ({} in total) are at {}.",
            buildings.len(),
            listed(&buildings)
        ));
    }
    if !seen.nearby.is_empty() {
        let near: Vec<String> = seen
            .nearby
            .iter()
            .map(|(n, c)| format!("{n} at {}", xy(*c)))
            .collect();
        out.push_str(&format!(" Other agents near me: {}.", near.join(", ")));
    }
    out
}

/// The random paragraph: categories by vague direction, sometimes one (possibly wrong)
/// coordinate.
fn random(seen: &Seen, rng: &mut Rng) -> String {
    const DIRS: [&str; 4] = ["north", "east", "south", "west"];
    let mut out = format!(
        "I am {}, a {}. The area around me is mostly forest and brush.",
        seen.name, seen.kind
    );
    for (what, tokens) in [
        ("fire", &["i", "f", "e"][..]),
        ("civilians", &["C"][..]),
        ("water", &["w"][..]),
        ("buildings", &["B"][..]),
    ] {
        let cells = of(seen, tokens);
        if cells.is_empty() || rng.below(2) == 0 {
            continue;
        }
        match rng.below(3) {
            0 => {
                let c = cells[rng.below(cells.len())];
                out.push_str(&format!(" I think I noticed {what} around {}.", xy(c)));
            }
            1 if seen.m < i32::MAX => {
                let c = rng.cell(seen.m);
                out.push_str(&format!(" There may be {what} near {}.", xy(c)));
            }
            _ => out.push_str(&format!(
                " Some {what} lies somewhere to the {}.",
                DIRS[rng.below(4)]
            )),
        }
    }
    out
}

/// The reply to a PERCEPTION prompt, or `None` when its header cannot be read.
pub(super) fn reply(user: &str, expert_answer: bool, rng: &mut Rng) -> Option<String> {
    let seen = read(user)?;
    Some(if expert_answer {
        expert(&seen)
    } else {
        random(&seen, rng)
    })
}
