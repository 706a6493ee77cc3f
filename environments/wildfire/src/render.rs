//! Whole-map pictures of a state: an ASCII render (for `colony env reset|run --render`) and an
//! SVG snapshot (terrain, fire, agents, civilians) for the replay viewer (issue item 9).

use std::fmt::Write;

use crate::config::AgentKind;
use crate::grid::{Fire, Land};
use crate::metrics::score;
use crate::state::WildfireState;

fn agent_char(kind: AgentKind) -> char {
    match kind {
        AgentKind::Firefighter => 'F',
        AgentKind::Bulldozer => 'U',
        AgentKind::Drone => 'D',
        AgentKind::Helicopter => 'H',
    }
}

/// One character per cell of the ground truth, with agents and civilians on top.
///
/// Legend: `.` no trees, `1`–`3` trees, `~` wet, `w` water, `B` building, `i f e x` fire
/// states, `C` civilian, `F U D H` firefighter, bulldozer, drone, helicopter, `*` a cut target.
pub fn render_ascii(s: &WildfireState) -> String {
    let g = &s.grid;
    let mut chars: Vec<char> = (0..g.len())
        .map(|i| {
            if g.building[i] {
                return 'B';
            }
            match g.fire[i] {
                Fire::Ignited => 'i',
                Fire::OnFire => 'f',
                Fire::Extinguishing => 'e',
                Fire::Extinguished => 'x',
                _ if g.land[i] == Land::Water => 'w',
                _ if g.wet[i] > 0 => '~',
                _ if g.trees[i] == 0 => '.',
                _ => char::from(b'0' + g.trees[i].min(3)),
            }
        })
        .collect();
    for &c in &s.targets.cut_cells {
        let i = g.idx(c);
        if g.trees[i] == 0 {
            chars[i] = '*';
        }
    }
    for c in s
        .civilians
        .iter()
        .filter(|c| c.alive && c.carried_by.is_none())
    {
        chars[g.idx(c.cell())] = 'C';
    }
    for a in s.agents.iter().filter(|a| a.is_active()) {
        chars[g.idx(a.cell())] = agent_char(a.kind);
    }
    let mut out = format!(
        "{} seed {} step {}/{} score {} fire_active {}\n",
        s.level.id,
        s.seed,
        s.step,
        s.level.max_steps,
        score(s),
        s.fire_active
    );
    for row in chars.chunks(g.size) {
        out.extend(row.iter());
        out.push('\n');
    }
    out
}

fn cell_colour(s: &WildfireState, i: usize) -> &'static str {
    let g = &s.grid;
    if g.building[i] {
        return "#8d6e63";
    }
    match g.fire[i] {
        Fire::Ignited => "#ffb300",
        Fire::OnFire => "#e53935",
        Fire::Extinguishing => "#6d4c41",
        Fire::Extinguished => "#424242",
        _ if g.land[i] == Land::Water => "#1e88e5",
        _ if g.wet[i] > 0 => "#80deea",
        _ => match (g.land[i], g.trees[i]) {
            (_, 3) => "#1b5e20",
            (_, 2) => "#388e3c",
            (_, 1) => "#81c784",
            (Land::Rock, _) => "#bdbdbd",
            _ => "#dce775",
        },
    }
}

/// An SVG picture of the state, `px` pixels per cell: terrain and fire as runs of equal
/// colour per row (so a 1000×1000 map stays a few MB), civilians as small circles, agents
/// as labelled circles, targets outlined.
pub fn render_svg(s: &WildfireState, px: u32) -> String {
    let g = &s.grid;
    let side = g.size as u32 * px;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{side}" height="{side}" viewBox="0 0 {side} {side}" shape-rendering="crispEdges">"#
    );
    let _ = writeln!(
        out,
        "<title>{} seed {} step {} score {}</title>",
        s.level.id,
        s.seed,
        s.step,
        score(s)
    );
    for y in 0..g.size {
        let mut x = 0;
        while x < g.size {
            let colour = cell_colour(s, y * g.size + x);
            let mut end = x + 1;
            while end < g.size && cell_colour(s, y * g.size + end) == colour {
                end += 1;
            }
            let _ = writeln!(
                out,
                r#"<rect x="{}" y="{}" width="{}" height="{px}" fill="{colour}"/>"#,
                x as u32 * px,
                y as u32 * px,
                (end - x) as u32 * px
            );
            x = end;
        }
    }
    let t = &s.targets;
    let marks = t
        .cut_cells
        .iter()
        .chain(t.transport.iter())
        .chain(t.rescue.iter());
    for c in marks {
        let _ = writeln!(
            out,
            r##"<rect x="{}" y="{}" width="{px}" height="{px}" fill="none" stroke="#000" stroke-width="{}"/>"##,
            c.0 as u32 * px,
            c.1 as u32 * px,
            (px / 4).max(1)
        );
    }
    let r = f64::from(px) / 2.0;
    for c in s
        .civilians
        .iter()
        .filter(|c| c.alive && c.carried_by.is_none())
    {
        let _ = writeln!(
            out,
            r##"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="#ffeb3b" stroke="#000"/>"##,
            c.px * f64::from(px),
            c.py * f64::from(px),
            r * 0.6
        );
    }
    for a in s.agents.iter().filter(|a| a.is_active()) {
        let (cx, cy) = (a.px * f64::from(px), a.py * f64::from(px));
        let _ = writeln!(
            out,
            r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="#fff" stroke="#000"><title>AGENT_{} {}</title></circle>"##,
            r * 0.9,
            a.id,
            a.kind.name()
        );
        let _ = writeln!(
            out,
            r#"<text x="{cx:.1}" y="{:.1}" font-size="{:.1}" text-anchor="middle">{}</text>"#,
            cy + r * 0.4,
            r * 1.2,
            agent_char(a.kind)
        );
    }
    out.push_str("</svg>\n");
    out
}
