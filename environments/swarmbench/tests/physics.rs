//! The physics consequences of docs/design/swarmbench.md §4.5, through the scenario format of
//! `colony swarmbench physics`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_swarmbench::scenario::{run, Scenario, ScenarioResult};
use serde_json::json;

fn step(v: serde_json::Value) -> ScenarioResult {
    let s: Scenario = serde_json::from_value(v).unwrap();
    run(&s).unwrap()
}

fn agent(id: &str, i: i32, j: i32) -> serde_json::Value {
    json!({"kind": "agent", "id": id, "pos": [i, j]})
}

fn pos(r: &ScenarioResult, id: &str) -> [i32; 2] {
    r.positions[id]
}

#[test]
fn issue_example() {
    let r = step(json!({"height": 5, "width": 6,
        "meshes": [{"kind": "agent", "id": "a", "pos": [2, 0]},
                   {"kind": "block", "id": "B", "pos": [1, 2], "shape": ["BB", "B."], "mass": 5},
                   {"kind": "wall",  "id": "W", "pos": [0, 5], "shape": ["W", "W"]}],
        "actions": {"a": "RIGHT"}}));
    assert_eq!(pos(&r, "a"), [2, 1]);
    assert_eq!(pos(&r, "B"), [1, 2]);
    assert_eq!(
        r.grid,
        vec![".....W", "..BB.W", ".AB...", "......", "......"]
    );
}

#[test]
fn lone_mover_moves_and_one_agent_pushes_one_idle_agent_but_not_two() {
    let r = step(json!({"height": 3, "width": 6,
        "meshes": [agent("a", 1, 0), agent("b", 1, 1)], "actions": {"a": "RIGHT"}}));
    assert_eq!((pos(&r, "a"), pos(&r, "b")), ([1, 1], [1, 2]));
    let r = step(json!({"height": 3, "width": 6,
        "meshes": [agent("a", 1, 0), agent("b", 1, 1), agent("c", 1, 2)], "actions": {"a": "RIGHT"}}));
    assert_eq!(
        (pos(&r, "a"), pos(&r, "b"), pos(&r, "c")),
        ([1, 0], [1, 1], [1, 2])
    );
    // Two pushers in a line move two idle agents (2 spare units).
    let r = step(json!({"height": 3, "width": 6,
        "meshes": [agent("a", 1, 0), agent("b", 1, 1), agent("c", 1, 2), agent("d", 1, 3)],
        "actions": {"a": "RIGHT", "b": "RIGHT"}}));
    assert_eq!(pos(&r, "d"), [1, 4]);
}

#[test]
fn two_agents_push_a_2x2_block_side_by_side_or_in_line() {
    let block = json!({"kind": "block", "id": "B", "pos": [1, 2], "shape": ["BB", "BB"]});
    let r = step(json!({"height": 5, "width": 7,
        "meshes": [agent("a", 1, 1), agent("b", 2, 1), block.clone()],
        "actions": {"a": "RIGHT", "b": "RIGHT"}}));
    assert_eq!(pos(&r, "B"), [1, 3]);
    let r = step(json!({"height": 5, "width": 7,
        "meshes": [agent("a", 1, 0), agent("b", 1, 1), block.clone()],
        "actions": {"a": "RIGHT", "b": "RIGHT"}}));
    assert_eq!((pos(&r, "B"), pos(&r, "a")), ([1, 3], [1, 1]));
    let r = step(json!({"height": 5, "width": 7,
        "meshes": [agent("a", 1, 1), block], "actions": {"a": "RIGHT"}}));
    assert_eq!(pos(&r, "B"), [1, 2]);
}

#[test]
fn the_transport_box_needs_five_agents() {
    let boxm = json!({"kind": "block", "id": "B", "pos": [1, 2], "shape": ["BBB", "BBB", "BBB"], "mass": 5});
    let pushers = |n: i32| {
        let mut m = vec![boxm.clone()];
        let mut acts = serde_json::Map::new();
        for k in 0..n {
            let (i, j) = if k < 3 { (1 + k, 1) } else { (1 + k - 3, 0) };
            m.push(agent(&format!("a{k}"), i, j));
            acts.insert(format!("a{k}"), json!("RIGHT"));
        }
        json!({"height": 6, "width": 9, "meshes": m, "actions": acts})
    };
    assert_eq!(pos(&step(pushers(4)), "B"), [1, 2]);
    assert_eq!(pos(&step(pushers(5)), "B"), [1, 3]);
}

#[test]
fn anything_static_in_front_blocks_the_whole_chain() {
    let r = step(json!({"height": 3, "width": 6,
        "meshes": [agent("a", 1, 1), agent("b", 1, 2), agent("c", 1, 3),
                   {"kind": "wall", "id": "W", "pos": [1, 4]}],
        "actions": {"a": "RIGHT", "b": "RIGHT", "c": "RIGHT"}}));
    assert_eq!((pos(&r, "a"), pos(&r, "c")), ([1, 1], [1, 3]));
}

#[test]
fn split_forces_a_bar_touching_two_idle_agents() {
    let scene = |n: i32| {
        let mut m = vec![
            json!({"kind": "block", "id": "bar", "pos": [1, 2], "shape": ["B", "B", "B"]}),
            agent("x", 1, 3),
            agent("y", 3, 3),
        ];
        let mut acts = serde_json::Map::new();
        for k in 0..n {
            m.push(agent(&format!("p{k}"), 1 + k, 1));
            acts.insert(format!("p{k}"), json!("RIGHT"));
        }
        json!({"height": 6, "width": 7, "meshes": m, "actions": acts})
    };
    assert_eq!(pos(&step(scene(2)), "bar"), [1, 2]);
    let r = step(scene(3));
    assert_eq!(
        (pos(&r, "bar"), pos(&r, "x"), pos(&r, "y")),
        ([1, 3], [1, 4], [3, 4])
    );
}

#[test]
fn opposite_mover_costs_three_and_passes_are_ordered() {
    // a pushes RIGHT into b who walks LEFT: b costs 3 > 1 spare, nobody moves in that pass.
    let r = step(json!({"height": 3, "width": 6,
        "meshes": [agent("a", 1, 1), agent("b", 1, 2)], "actions": {"a": "RIGHT", "b": "LEFT"}}));
    assert_eq!((pos(&r, "a"), pos(&r, "b")), ([1, 1], [1, 2]));
    // Q22: `>` next to `v`: the DOWN mover leaves first, then the RIGHT mover enters.
    let r = step(json!({"height": 4, "width": 6,
        "meshes": [agent("a", 1, 1), agent("b", 1, 2)], "actions": {"a": "RIGHT", "b": "DOWN"}}));
    assert_eq!((pos(&r, "a"), pos(&r, "b")), ([1, 2], [2, 2]));
}

#[test]
fn objects_leave_the_map_and_vanish() {
    let r = step(json!({"height": 3, "width": 3,
        "meshes": [agent("a", 1, 2)], "actions": {"a": "RIGHT"}}));
    assert_eq!((pos(&r, "a"), r.on_grid["a"]), ([1, 3], false));
    assert_eq!(r.grid, vec!["...", "...", "..."]);
}

#[test]
fn bad_scenarios_are_clear_errors() {
    let s: Scenario = serde_json::from_value(json!({"height": 3, "width": 3,
        "meshes": [agent("a", 1, 1), agent("b", 1, 1)]}))
    .unwrap();
    let e = run(&s).unwrap_err().to_string();
    assert!(e.contains("meshes[1] (b)") && e.contains("overlaps"), "{e}");
    let s: Scenario = serde_json::from_value(json!({"height": 3, "width": 3,
        "meshes": [agent("a", 1, 1)], "actions": {"a": "JUMP"}}))
    .unwrap();
    assert!(run(&s).unwrap_err().to_string().contains("actions.a"));
}
