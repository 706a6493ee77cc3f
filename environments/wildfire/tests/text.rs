//! The text side (docs/design/wildfire.md §9.3, §11): perception prompt, placeholders, task
//! descriptions, render.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_env_api::Environment;
use colony_wildfire::config::{find_level, levels, AgentKind};
use colony_wildfire::observe::{minimap, observe_game};
use colony_wildfire::prompts::{
    agent_abilities, perception_prompt, task_description, team_abilities, team_composition, LEGEND,
    NOTES,
};
use colony_wildfire::render::{render_ascii, render_svg};
use colony_wildfire::WildfireEnv;

fn env(level: &str, seed: u64) -> WildfireEnv {
    let mut e = WildfireEnv::new(find_level(level).unwrap()).unwrap();
    e.reset(seed);
    e
}

#[test]
fn perception_prompt_has_minimap_legend_notes_and_bold_cell() {
    let e = env("rescue_civilians_known_small", 9502);
    let s = e.world();
    let p = perception_prompt(s, 0);
    let (x, y) = s.agents[0].cell();
    assert!(p.contains(&format!("your location is ({x}, {y})")), "{p}");
    assert!(p.contains(&format!("X: [{}, {}]", x - 10, x + 10)));
    assert!(p.contains(LEGEND) && p.contains(NOTES));
    let map = minimap(s, 0);
    assert!(p.contains(&map));
    assert_eq!(map.lines().count(), 21);
    assert!(map.lines().all(|l| l.ends_with(',')));
    let centre = map.lines().nth(10).unwrap().split(',').nth(10).unwrap();
    assert!(centre.starts_with('*') && centre.ends_with('*'), "{centre}");
    assert!(
        p.contains(&format!("It is a {centre} cell at ({x}, {y})")),
        "{p}"
    );
    assert!(
        p.contains("AGENT_2: ") && p.contains("AGENT_3: "),
        "teammates at the spawn"
    );
    assert!(p.contains("Water: 0/5 units."));
    assert_eq!(e.observe_text("1").unwrap(), p);
    assert!(e.observe_text("9").is_err());
}

#[test]
fn task_descriptions_for_every_level() {
    for l in levels() {
        let e = env(&l.id, l.seeds[0]);
        let s = e.world();
        let t = task_description(s);
        let want = match l.number {
            1 | 2 => "Cut down all trees in the cells (",
            3 | 4 => "Cut down all trees along the lines from (",
            5 | 6 => "Find it and confirm it: two agents must have it in view at the same time.",
            7 | 8 => "Transport all firefighter agents to the target location (",
            9 | 10 => "civilians near (",
            11 | 12 => "scattered somewhere in x: [0,",
            13 => "Refill water at the water source at (",
            14 => "There is no water source; cut trees to build firebreaks.",
            15 | 16 => "Find the fire within x: [0,",
            _ => "keeping the civilians away from danger",
        };
        assert!(t.contains(want), "{}: {t}", l.id);
        assert_eq!(observe_game(s).task, t);
    }
}

#[test]
fn team_composition_and_abilities() {
    let e = env("full_environment", 1);
    let s = e.world();
    let tc = team_composition(s);
    assert!(tc.contains("Firefighters (AGENT_1, AGENT_2"), "{tc}");
    assert!(
        tc.contains("Bulldozers (AGENT_11)") && tc.contains("Helicopters (AGENT_14, AGENT_15)"),
        "{tc}"
    );
    assert_eq!(
        agent_abilities(AgentKind::Drone),
        "- fly to any coordinate\n- do nothing\n"
    );
    let ta = team_abilities(s);
    assert!(ta.contains("Bulldozer:\n- drive to a coordinate with the plow raised"));
}

#[test]
fn renders_whole_map() {
    let e = env("cut_trees_sparse_small", 375);
    let r = render_ascii(e.world());
    assert_eq!(r.lines().count(), 31);
    assert!(r.lines().skip(1).all(|l| l.chars().count() == 30));
    assert!(r.contains('F'));
    let svg = render_svg(e.world(), 4);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<circle").count(), 3, "three firefighters");
}

#[test]
fn execution_prompt_lists_the_kind_types_and_examples_parse() {
    use colony_wildfire::primitive::{parse_action_code, validate};
    use colony_wildfire::prompts::{execution_prompt, primitive_types};
    for kind in AgentKind::ALL {
        for (t, _, _, example) in primitive_types(kind) {
            let p = parse_action_code(example).unwrap();
            assert_eq!(p.kind, t);
            validate(&p, kind, 1000).unwrap_or_else(|e| panic!("{kind:?} {example}: {e}"));
        }
    }
    let p = execution_prompt(AgentKind::Drone, 100, "fly north to (50, 3)");
    assert!(
        p.contains("type 1: fly to location") && !p.contains("type 2"),
        "{p}"
    );
    assert!(p.contains("[ACTION]: fly north to (50, 3)") && p.contains("x: [0, 99]"));
}
