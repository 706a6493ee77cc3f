//! Reading a SwarmBench prompt the way a model would: only its text
//! (docs/design/swarmbench.md §11.2), never the environment. The task comes from the task
//! description (§11.3), positions from the global row/column labels of the views (§10.2), lights
//! and carrying flags from the observation lines, targets also from earlier views and received
//! messages.

use std::cell::OnceCell;

use crate::config::Task;

/// Cell codes of a read view: the symbols of §10.1 with agents folded to `A` (digit: light on /
/// carrying / plain) and `a` (`$` + digit), the reader's own cell `Y`, unreadable text `?`.
pub(crate) const OFF: u8 = b'*';
/// Free cell.
pub(crate) const EMPTY: u8 = b'.';

/// One view block read from its text (§10.2): global origin, size, cells row-major.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seen {
    /// Global row of the first view row.
    pub r0: i32,
    /// Global column of the first view column.
    pub c0: i32,
    /// Rows.
    pub rows: i32,
    /// Columns.
    pub cols: i32,
    /// Cell codes, row-major.
    pub cells: Vec<u8>,
}

impl Seen {
    /// The code at global cell `c` (`*` outside the view, which a reader cannot tell from the
    /// outside of the map — callers only use cells inside the view).
    pub fn at(&self, c: (i32, i32)) -> u8 {
        let (a, b) = (c.0 - self.r0, c.1 - self.c0);
        if a < 0 || b < 0 || a >= self.rows || b >= self.cols {
            return b'?';
        }
        self.cells[(a * self.cols + b) as usize]
    }

    /// Whether global cell `c` lies inside the view.
    pub fn contains(&self, c: (i32, i32)) -> bool {
        let (a, b) = (c.0 - self.r0, c.1 - self.c0);
        a >= 0 && b >= 0 && a < self.rows && b < self.cols
    }

    /// Global cells holding `code`, row-major.
    pub fn find(&self, code: u8) -> impl Iterator<Item = (i32, i32)> + '_ {
        self.cells
            .iter()
            .enumerate()
            .filter(move |(_, &c)| c == code)
            .map(|(k, _)| {
                let k = k as i32;
                (self.r0 + k / self.cols, self.c0 + k % self.cols)
            })
    }

    /// The cell of `code` nearest to `from` (Manhattan; first in row-major order on ties).
    pub fn nearest(&self, code: u8, from: (i32, i32)) -> Option<(i32, i32)> {
        self.find(code).min_by_key(|&c| manhattan(c, from))
    }
}

/// Manhattan distance.
pub(crate) fn manhattan(a: (i32, i32), b: (i32, i32)) -> i32 {
    (a.0 - b.0).abs() + (a.1 - b.1).abs()
}

/// Earlier views with the reader's cell in each, newest first.
pub(crate) type OlderViews = Vec<(Seen, Option<(i32, i32)>)>;

/// What a model can read off one SwarmBench prompt.
#[derive(Debug, Clone)]
pub(crate) struct Reading<'a> {
    /// The task, recognised from the description.
    pub task: Task,
    /// Agent index from `You are Agent Agent_<i>` (0 when unreadable).
    pub id: u32,
    /// The `Current Step` view.
    pub view: Seen,
    /// The reader's global cell (`Y`).
    pub me: (i32, i32),
    /// The earlier view blocks' text.
    pub older_text: &'a str,
    /// The earlier views and the reader's cell in each, parsed on first use.
    pub older: OnceCell<OlderViews>,
    /// `light_on:` (Synchronization).
    pub light_on: Option<bool>,
    /// `carrying_food:` (Foraging).
    pub carrying: Option<bool>,
    /// Received message texts, in prompt order.
    pub messages: Vec<&'a str>,
    /// The action of the last history entry (`UP`, …, `NONE`), if any.
    pub last_action: Option<&'a str>,
}

/// The task of a description (§11.3), by its first words.
fn task_of(desc: &str) -> Option<Task> {
    let known = [
        ("Target: There is a prey", Task::Pursuit),
        (
            "Target: Each of you agents has a light",
            Task::Synchronization,
        ),
        ("Target: You are in a maze", Task::Foraging),
        ("Your target is to properly align", Task::Flocking),
        (
            "The boundary of the map is surrounded by walls",
            Task::Transport,
        ),
    ];
    known
        .iter()
        .find(|(start, _)| desc.starts_with(start))
        .map(|&(_, t)| t)
}

/// The text between `start` (after it) and the next `end` within `s`, searching from `from`;
/// returns it and the offset just past it.
fn between<'a>(s: &'a str, from: usize, start: &str, end: &str) -> Option<(&'a str, usize)> {
    let a = s.get(from..)?.find(start)? + from + start.len();
    let b = s.get(a..)?.find(end)? + a;
    Some((&s[a..b], b))
}

/// Reads one view block starting at its header line; returns it and the reader's cell if a
/// `Y` is in it. Cells are lexed as `$`? digits+ or one character, so 4-character cells that
/// touch their neighbour (§10.2) still read right (except two touching ids ≥ 1000).
pub(crate) fn parse_view(block: &str) -> Option<(Seen, Option<(i32, i32)>)> {
    let mut lines = block.split('\n');
    let header = lines.next()?;
    let mut cols = 0;
    let mut c0 = 0;
    for (n, t) in header.split_ascii_whitespace().enumerate() {
        let v: i32 = t.parse().ok()?;
        if n == 0 {
            c0 = v;
        }
        cols += 1;
    }
    if cols == 0 {
        return None;
    }
    let mut seen = Seen {
        r0: 0,
        c0,
        rows: 0,
        cols,
        cells: Vec::with_capacity((cols * cols) as usize),
    };
    let mut me = None;
    for line in lines {
        let bytes = line.trim_start().as_bytes();
        if bytes.is_empty() {
            break;
        }
        let label_end = bytes.iter().position(|&b| b == b' ').unwrap_or(bytes.len());
        let row: i32 = std::str::from_utf8(&bytes[..label_end])
            .ok()?
            .parse()
            .ok()?;
        if seen.rows == 0 {
            seen.r0 = row;
        }
        let mut p = label_end;
        let mut n = 0;
        while n < cols {
            while p < bytes.len() && bytes[p] == b' ' {
                p += 1;
            }
            if p >= bytes.len() {
                break;
            }
            let code = match bytes[p] {
                b'$' | b'0'..=b'9' => {
                    let dollar = bytes[p] == b'$';
                    p += usize::from(dollar);
                    while p < bytes.len() && bytes[p].is_ascii_digit() {
                        p += 1;
                    }
                    if dollar {
                        b'a'
                    } else {
                        b'A'
                    }
                }
                c @ (b'*' | b'.' | b'W' | b'B' | b'P' | b'F' | b'N' | b'Y') => {
                    p += 1;
                    c
                }
                _ => {
                    p += 1;
                    b'?'
                }
            };
            if code == b'Y' {
                me = Some((row, c0 + n));
            }
            seen.cells.push(code);
            n += 1;
        }
        seen.cells
            .extend(std::iter::repeat_n(b'?', (cols - n) as usize));
        seen.rows += 1;
    }
    (seen.rows > 0).then_some((seen, me))
}

impl Reading<'_> {
    /// The earlier views (`1 Steps Before`, … newest first) with the reader's cell in each.
    fn older(&self) -> &[(Seen, Option<(i32, i32)>)] {
        self.older.get_or_init(|| {
            self.older_text
                .split(" Steps Before:\n")
                .skip(1)
                .filter_map(parse_view)
                .collect()
        })
    }

    /// The earlier views, newest first.
    pub fn older_views(&self) -> impl Iterator<Item = &Seen> + '_ {
        self.older().iter().map(|(v, _)| v)
    }

    /// The reader's own cells in the earlier views (their `Y`), newest first.
    pub fn past_cells(&self) -> impl Iterator<Item = (i32, i32)> + '_ {
        self.older().iter().filter_map(|&(_, me)| me)
    }
}

/// Reads a prompt; `None` when it is not a SwarmBench prompt (§11.2) or has no readable
/// `Current Step` view with a `Y`.
pub(crate) fn read(user: &str) -> Option<Reading<'_>> {
    let rest = user.strip_prefix("You are Agent ")?;
    let name_end = rest.find(',')?;
    let id = rest[..name_end]
        .strip_prefix("Agent_")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let (desc, at) = between(user, 0, "Task description:\n", "\n\nRound: ")?;
    let task = task_of(desc)?;
    let (views, at) = between(
        user,
        at,
        "Current Step:\n",
        "\n\nYour current observation:\n",
    )?;
    let (view, me) = parse_view(views)?;
    let me = me?;
    let older = views.find("\n\n").map_or("", |k| &views[k..]);
    let (obs, at) = between(
        user,
        at,
        "Your current observation:\n",
        "\n\nMessage you received:\n",
    )?;
    let flag = |key: &str| {
        obs.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim() == "True")
    };
    let (msgs, at) = between(
        user,
        at,
        "Message you received:\n",
        "\nYour action history:\n",
    )?;
    let messages = msgs
        .split('\n')
        .filter_map(|l| l.strip_prefix("Message: \"")?.strip_suffix('"'))
        .collect();
    let last_action = between(user, at, "Your action history:\n", "\nSymbol legend:\n")
        .and_then(|(h, _)| h.trim_end_matches('\n').rsplit('\n').next())
        .and_then(|l| l.split(": Action: ").nth(1))
        .and_then(|a| a.split(',').next());
    Some(Reading {
        task,
        id,
        view,
        me,
        older_text: older,
        older: OnceCell::new(),
        light_on: flag("light_on: "),
        carrying: flag("carrying_food: "),
        messages,
        last_action,
    })
}

/// The first `(i, j)` (or `(i,j)`) coordinate pair in `s` at or after byte `from`.
pub(crate) fn coords_after(s: &str, from: usize) -> Option<(i32, i32)> {
    let mut rest = s.get(from..)?;
    while let Some(open) = rest.find('(') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find(')') else { break };
        let inner = &rest[..close];
        if let Some((a, b)) = inner.split_once(',') {
            if let (Ok(a), Ok(b)) = (a.trim().parse(), b.trim().parse()) {
                return Some((a, b));
            }
        }
    }
    None
}

/// A target position announced in a received message: the coordinates after the first of
/// `keywords` found (e.g. `Prey P at (3, 4)` for `["Prey P", "prey P", "P at"]`; keywords name
/// the symbol so that `No food near (8, 2)` announces nothing), newest message last so the
/// last announcement wins.
pub(crate) fn announced(messages: &[&str], keywords: &[&str]) -> Option<(i32, i32)> {
    messages.iter().rev().find_map(|m| {
        keywords
            .iter()
            .filter_map(|k| m.find(k))
            .min()
            .and_then(|at| coords_after(m, at))
    })
}
