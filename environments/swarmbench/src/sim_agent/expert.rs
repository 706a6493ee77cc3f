//! The move an expert would choose from the prompt text alone (the brief of the simulated
//! agent, see [`super`]): BFS over the visible view (walls, agents and objects block; only `.`
//! is walked), targets from the current view, else from earlier views, else from received
//! messages, else exploration that keeps its last direction.

use crate::config::Task;
use crate::physics::Dir;
use crate::reply::Move;

use super::read::{announced, manhattan, Reading, Seen, EMPTY, OFF};

/// An expert's choice: the move, one line of reasoning and what it would tell others.
#[derive(Debug, Clone)]
pub(crate) struct Decision {
    /// The chosen move.
    pub mv: Move,
    /// The analysis line (no reply markers in it).
    pub why: String,
    /// A short message about what the agent sees (< 120 characters, no newline).
    pub note: String,
}

const DIRS: [Dir; 4] = [Dir::Up, Dir::Down, Dir::Left, Dir::Right];

fn add(c: (i32, i32), d: Dir) -> (i32, i32) {
    let (di, dj) = d.delta();
    (c.0 + di, c.1 + dj)
}

/// The four directions, rotated by `rot` (agents break ties differently, so they spread).
fn dirs(rot: u32) -> [Dir; 4] {
    let k = (rot % 4) as usize;
    [
        DIRS[k],
        DIRS[(k + 1) % 4],
        DIRS[(k + 2) % 4],
        DIRS[(k + 3) % 4],
    ]
}

fn dir_of(name: &str) -> Option<Dir> {
    DIRS.into_iter().find(|d| d.name() == name)
}

/// Outcome of a search for a goal cell.
enum Nav {
    /// The agent already stands on a goal cell.
    Here,
    /// First step of a shortest path to the nearest goal cell.
    Step(Dir),
    /// No goal cell reachable inside the view.
    Unreachable,
}

/// BFS from `me` over the view's free cells; the first cell satisfying `goal` (tested on
/// every neighbour, so goals need not be free, e.g. `*` to leave the map) ends the search.
fn bfs(v: &Seen, me: (i32, i32), rot: u32, goal: impl Fn((i32, i32)) -> bool) -> Nav {
    if goal(me) {
        return Nav::Here;
    }
    let n = (v.rows * v.cols) as usize;
    let mut first = vec![u8::MAX; n];
    let idx = |c: (i32, i32)| ((c.0 - v.r0) * v.cols + (c.1 - v.c0)) as usize;
    let mut queue = Vec::with_capacity(n);
    if v.contains(me) {
        first[idx(me)] = 4;
    }
    queue.push((me, 4u8));
    let order = dirs(rot);
    let mut head = 0;
    while let Some(&(c, f)) = queue.get(head) {
        head += 1;
        for (k, d) in order.iter().enumerate() {
            let nb = add(c, *d);
            if !v.contains(nb) || first[idx(nb)] != u8::MAX {
                continue;
            }
            let step = if f == 4 { k as u8 } else { f };
            if goal(nb) {
                return Nav::Step(order[step as usize]);
            }
            first[idx(nb)] = step;
            if v.at(nb) == EMPTY {
                queue.push((nb, step));
            }
        }
    }
    Nav::Unreachable
}

/// First step toward `target` (possibly outside the view): BFS to the reachable free cell
/// nearest to it; `None` when no reachable cell is nearer than where the agent stands.
fn approach(v: &Seen, me: (i32, i32), rot: u32, target: (i32, i32)) -> Option<Dir> {
    let n = (v.rows * v.cols) as usize;
    let mut seen = vec![false; n];
    let idx = |c: (i32, i32)| ((c.0 - v.r0) * v.cols + (c.1 - v.c0)) as usize;
    if v.contains(me) {
        seen[idx(me)] = true;
    }
    let order = dirs(rot);
    let mut queue = vec![(me, None::<Dir>)];
    let mut best = (manhattan(me, target), None);
    let mut head = 0;
    while let Some(&(c, f)) = queue.get(head) {
        head += 1;
        for d in order {
            let nb = add(c, d);
            if !v.contains(nb) || seen[idx(nb)] || v.at(nb) != EMPTY {
                continue;
            }
            seen[idx(nb)] = true;
            let step = f.or(Some(d));
            let dist = manhattan(nb, target);
            if dist < best.0 {
                best = (dist, step);
            }
            queue.push((nb, step));
        }
    }
    best.1
}

/// Exploration: among the free neighbouring cells prefer the last direction (momentum) and
/// cells the agent did not stand on in its earlier views (read from their `Y`), never straight
/// back unless it is the only way; `rnd` breaks ties and sometimes (one in six) turns.
fn explore(r: &Reading<'_>, rnd: u64) -> Move {
    let last = r.last_action.and_then(dir_of);
    let turn = rnd % 6 < 1; // one in six (is_multiple_of needs Rust 1.87)
    let mut best: Option<(i32, Dir)> = None;
    for (k, d) in dirs((rnd >> 8) as u32).into_iter().enumerate() {
        let c = add(r.me, d);
        if r.view.at(c) != EMPTY {
            continue;
        }
        let mut score = 4 - k as i32;
        if Some(d) == last && !turn {
            score += 20;
        }
        if Some(d.opposite()) == last {
            score -= 30;
        }
        if r.past_cells().any(|p| p == c) {
            score -= 10;
        }
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, d));
        }
    }
    best.map_or(Move::Stay, |(_, d)| Move::Go(d))
}

/// Where `code` is: in the current view, else the newest earlier view, else announced in a
/// message with one of `keywords`. The flag says whether it is in the current view.
fn locate(r: &Reading<'_>, code: u8, keywords: &[&str]) -> Option<((i32, i32), bool)> {
    if let Some(c) = r.view.nearest(code, r.me) {
        return Some((c, true));
    }
    r.older_views()
        .find_map(|v| v.nearest(code, r.me))
        .or_else(|| announced(&r.messages, keywords))
        .map(|c| (c, false))
}

fn at(c: (i32, i32)) -> String {
    format!("({}, {})", c.0, c.1)
}

/// Heads for `target` seen earlier or announced; explores when no step gets closer.
fn head_for(r: &Reading<'_>, target: (i32, i32), rnd: u64) -> Move {
    approach(&r.view, r.me, r.id, target).map_or_else(|| explore(r, rnd), Move::Go)
}

fn pursuit(r: &Reading<'_>, rnd: u64) -> Decision {
    let me = r.me;
    match locate(r, b'P', &["Prey P", "prey P", "P at"]) {
        Some((p, true)) => {
            let note = format!("Prey P at {}, come help surround it", at(p));
            if manhattan(me, p) == 1 {
                let why = format!("The prey P at {} is next to me; I hold this side.", at(p));
                return Decision {
                    mv: Move::Stay,
                    why,
                    note,
                };
            }
            let side = |c: (i32, i32)| manhattan(c, p) == 1 && r.view.at(c) == EMPTY;
            let mv = match bfs(&r.view, me, r.id, side) {
                Nav::Step(d) => Move::Go(d),
                _ => approach(&r.view, me, r.id, p).map_or(Move::Stay, Move::Go),
            };
            let why = format!("The prey P is at {}; I move to a free side of it.", at(p));
            Decision { mv, why, note }
        }
        Some((p, false)) => Decision {
            mv: head_for(r, p, rnd),
            why: format!("The prey was last reported near {}; I head there.", at(p)),
            note: format!("Prey P near {}, come help", at(p)),
        },
        None => Decision {
            mv: explore(r, rnd),
            why: "No prey in sight; I explore.".into(),
            note: format!("No prey near {}, exploring", at(me)),
        },
    }
}

fn foraging(r: &Reading<'_>, rnd: u64) -> Decision {
    let me = r.me;
    let carrying = r.carrying.unwrap_or(false);
    let (code, name, keywords): (u8, &str, &[&str]) = if carrying {
        (b'N', "nest N", &["Nest N", "nest N", "N at"])
    } else {
        (b'F', "food F", &["Food F", "food F", "F at"])
    };
    let food = r.view.nearest(b'F', me);
    let nest = r.view.nearest(b'N', me);
    let note = match (food, nest) {
        (Some(f), Some(n)) => format!("Food F at {}, nest N at {}", at(f), at(n)),
        (Some(f), None) => format!("Food F at {}", at(f)),
        (None, Some(n)) => format!("Nest N at {}", at(n)),
        (None, None) => format!("No food or nest near {}, exploring", at(me)),
    };
    let touches = |c: (i32, i32)| DIRS.iter().any(|&d| r.view.at(add(c, d)) == code);
    if touches(me) {
        let why = format!(
            "I am next to the {name}, so the {} happens here.",
            if carrying { "drop" } else { "pick-up" }
        );
        return Decision {
            mv: Move::Stay,
            why,
            note,
        };
    }
    let (mv, why) = match locate(r, code, keywords) {
        Some((t, true)) => {
            let goal = |c: (i32, i32)| r.view.at(c) == EMPTY && touches(c);
            let mv = match bfs(&r.view, me, r.id, goal) {
                Nav::Step(d) => Move::Go(d),
                _ => head_for(r, t, rnd),
            };
            (
                mv,
                format!(
                    "The {name} is at {}; I take the shortest free path to it.",
                    at(t)
                ),
            )
        }
        Some((t, false)) => (
            head_for(r, t, rnd),
            format!("The {name} was seen near {}; I head there.", at(t)),
        ),
        None => match food
            .or_else(|| r.older_views().find_map(|v| v.nearest(b'F', me)))
            .filter(|_| carrying)
        {
            Some(f) => {
                let away = (
                    me.0 + 10 * (me.0 - f.0).signum(),
                    me.1 + 10 * (me.1 - f.1).signum(),
                );
                (head_for(r, away, rnd), "I carry food; the nest is not in sight, so I move away from the food to search.".into())
            }
            None => (
                explore(r, rnd),
                format!("The {name} is not in sight; I explore."),
            ),
        },
    };
    Decision { mv, why, note }
}

fn synchronization(r: &Reading<'_>) -> Decision {
    let own = r.light_on.unwrap_or(true);
    let on = r.view.find(b'A').count() + usize::from(own);
    let off = r.view.find(b'a').count() + usize::from(!own);
    let state = |b: bool| if b { "ON" } else { "OFF" };
    let majority = on > off;
    let note = format!(
        "Light {} at {}; near me {on} on, {off} off. Match the majority.",
        state(own),
        at(r.me)
    );
    if on != off && own != majority {
        let why = format!(
            "My light is {} but most visible lights are {} ({on} on, {off} off); I switch.",
            state(own),
            state(majority)
        );
        Decision {
            mv: Move::Switch,
            why,
            note,
        }
    } else {
        let why = format!(
            "My light is {} and no visible majority disagrees ({on} on, {off} off); I keep it.",
            state(own)
        );
        Decision {
            mv: Move::Stay,
            why,
            note,
        }
    }
}

fn flocking(r: &Reading<'_>, rnd: u64) -> Decision {
    let me = r.me;
    let (mut n, mut si, mut sj) = (1, me.0, me.1);
    for c in r.view.find(b'A') {
        n += 1;
        si += c.0;
        sj += c.1;
    }
    if n == 1 {
        return Decision {
            mv: explore(r, rnd),
            why: "No other agent in sight; I explore to find the group.".into(),
            note: format!("Alone at {}, come gather to form the shape", at(me)),
        };
    }
    let centre = (
        (si as f64 / n as f64).round() as i32,
        (sj as f64 / n as f64).round() as i32,
    );
    let note = format!("Gather around {} to form the shape", at(centre));
    let mv = if manhattan(me, centre) <= 1 {
        Move::Stay
    } else {
        approach(&r.view, me, r.id, centre).map_or(Move::Stay, Move::Go)
    };
    let why = format!(
        "The visible agents centre on {}; I close in and keep one cell of spacing.",
        at(centre)
    );
    Decision { mv, why, note }
}

/// The direction to push the box: toward the `*` its cells touch; when some box cells are
/// blocked by walls on that side, first along the wall toward the gap
/// (docs/design/swarmbench.md §9.5 table).
fn push_dir(v: &Seen) -> Option<Dir> {
    let boxes: Vec<(i32, i32)> = v.find(b'B').collect();
    let out = DIRS.into_iter().max_by_key(|&d| {
        let off = boxes.iter().filter(|&&b| v.at(add(b, d)) == OFF).count();
        let wall = boxes.iter().filter(|&&b| v.at(add(b, d)) == b'W').count();
        (off, wall)
    })?;
    let line = |b: &(i32, i32)| if out.delta().0 == 0 { b.0 } else { b.1 };
    let (gap, blocked): (Vec<_>, Vec<_>) = boxes
        .iter()
        .filter(|&&b| matches!(v.at(add(b, out)), OFF | b'W'))
        .partition(|&&b| v.at(add(b, out)) == OFF);
    if blocked.is_empty() || gap.is_empty() {
        return Some(out);
    }
    let mean = |s: &[&(i32, i32)]| s.iter().map(|b| line(b)).sum::<i32>() as f64 / s.len() as f64;
    let shift = mean(&gap) - mean(&blocked);
    Some(match (out.delta().0 == 0, shift > 0.0) {
        (true, true) => Dir::Down,
        (true, false) => Dir::Up,
        (false, true) => Dir::Right,
        (false, false) => Dir::Left,
    })
}

fn transport(r: &Reading<'_>, rnd: u64) -> Decision {
    let me = r.me;
    let v = &r.view;
    if let Nav::Step(d) = bfs(v, me, r.id, |c| v.at(c) == OFF) {
        return Decision {
            mv: Move::Go(d),
            why: "The exit is open; I walk out through the gap.".into(),
            note: format!("Exit open near {}, walk out through *", at(me)),
        };
    }
    match locate(r, b'B', &["Box B", "box B", "B at"]) {
        Some((b, true)) => {
            let p = push_dir(v).unwrap_or(Dir::Down);
            let note = format!("Box B at {}, need 5 agents pushing {}", at(b), p.name());
            let pusher = |c: (i32, i32)| {
                let front = add(c, p);
                v.at(front) == b'B'
                    || (matches!(v.at(front), b'A' | b'a') && v.at(add(front, p)) == b'B')
            };
            if pusher(me) {
                let why = format!(
                    "I am behind the box B at {}; I push {} with the others.",
                    at(b),
                    p.name()
                );
                return Decision {
                    mv: Move::Go(p),
                    why,
                    note,
                };
            }
            let mv = match bfs(v, me, r.id, |c| v.at(c) == EMPTY && pusher(c)) {
                Nav::Step(d) => Move::Go(d),
                _ => approach(v, me, r.id, b).map_or(Move::Stay, Move::Go),
            };
            let why = format!(
                "The box B is at {}; I take a place to push it {}.",
                at(b),
                p.name()
            );
            Decision { mv, why, note }
        }
        Some((b, false)) => Decision {
            mv: head_for(r, b, rnd),
            why: format!("The box B was seen near {}; I head there.", at(b)),
            note: format!("Box B near {}, come push", at(b)),
        },
        None => Decision {
            mv: explore(r, rnd),
            why: "No box in sight; I explore the map.".into(),
            note: format!("No box near {}, exploring", at(me)),
        },
    }
}

/// The expert decision for a read prompt; `rnd` drives exploration.
pub(crate) fn decide(r: &Reading<'_>, rnd: u64) -> Decision {
    match r.task {
        Task::Pursuit => pursuit(r, rnd),
        Task::Synchronization => synchronization(r),
        Task::Foraging => foraging(r, rnd),
        Task::Flocking => flocking(r, rnd),
        Task::Transport => transport(r, rnd),
    }
}

/// The analysis line and note of a reply whose move was drawn at random (an agent that got it
/// wrong): the note (only built when `with_note`) is the expert's view of the scene, the
/// reasoning is vague.
pub(crate) fn guess(r: &Reading<'_>, mv: Move, rnd: u64, with_note: bool) -> Decision {
    let note = if with_note {
        decide(r, rnd).note
    } else {
        String::new()
    };
    Decision {
        mv,
        why: format!(
            "I am at {} and unsure what is best; I try {}.",
            at(r.me),
            mv.name()
        ),
        note,
    }
}
