#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use crate::prompt::{render_prompt, task_description, HistoryEntry, PromptParts};
use crate::reply::parse_reply;
use crate::view::{View, ViewCell};

/// A view from rows of cell texts (`Y` = self), with `origin` as its top-left global cell.
fn view(origin: (i32, i32), rows: &[&str]) -> View {
    let mut own = None;
    let mut cells = Vec::new();
    for (a, row) in rows.iter().enumerate() {
        for (b, t) in row.split_whitespace().enumerate() {
            if t == "Y" {
                own = Some((a as i32, b as i32));
                cells.push(ViewCell::Agent {
                    id: 0,
                    dollar: false,
                });
            } else {
                cells.push(ViewCell::parse(t).unwrap());
            }
        }
    }
    View {
        origin,
        rows: rows.len() as i32,
        cols: rows[0].split_whitespace().count() as i32,
        own,
        cells,
    }
}

fn prompt(
    task: Task,
    v: &View,
    observation: &str,
    messages: &[String],
    history: &[HistoryEntry],
) -> String {
    render_prompt(&PromptParts {
        name: "Agent_0",
        task_desc: &task_description(task, 10),
        round: 3,
        memory: 5,
        views: &[v.render()],
        observation,
        messages,
        history,
    })
}

fn expert_action(task: Task, user: &str) -> &'static str {
    let text = simulated_reply(SYSTEM, user, 1.0, 7).unwrap();
    parse_reply(&text, task == Task::Synchronization, 120)
        .action
        .unwrap()
        .name()
}

#[test]
fn foreign_prompts_get_no_reply() {
    let v = view((1, 1), &[". . .", ". Y .", ". . ."]);
    let user = prompt(Task::Pursuit, &v, "score: 0", &[], &[]);
    assert!(simulated_reply(SYSTEM, &user, 1.0, 1).is_some());
    assert!(simulated_reply("You are a helpful assistant.", &user, 1.0, 1).is_none());
    assert!(simulated_reply(SYSTEM, "What is 2 + 2?", 1.0, 1).is_none());
    assert!(simulated_reply(SYSTEM, "You are Agent Smith.", 1.0, 1).is_none());
    let no_view = user.replace("Current Step:", "Now:");
    assert!(simulated_reply(SYSTEM, &no_view, 1.0, 1).is_none());
}

#[test]
fn same_draw_same_reply() {
    let v = view((1, 1), &[". . .", ". Y .", ". . ."]);
    let user = prompt(Task::Foraging, &v, "carrying_food: False", &[], &[]);
    for draw in 0..50 {
        let a = simulated_reply(SYSTEM, &user, 0.5, draw);
        assert_eq!(a, simulated_reply(SYSTEM, &user, 0.5, draw));
    }
    let distinct: std::collections::BTreeSet<_> = (0..50)
        .map(|d| simulated_reply(SYSTEM, &user, 0.5, d).unwrap())
        .collect();
    assert!(distinct.len() > 3, "draws should vary the reply");
}

/// A 5 × 5 view with the agent in the middle and nothing else in sight.
const EMPTY: [&str; 5] = [
    ". . . . .",
    ". . . . .",
    ". . Y . .",
    ". . . . .",
    ". . . . .",
];

/// A 5 × 5 view with the agent in the middle and the prey to its right.
const PREY_RIGHT: [&str; 5] = [
    ". . . . .",
    ". . . . .",
    ". . Y P .",
    ". . . . .",
    ". . . . .",
];

/// The expert's move for a `task` agent seeing `rows` from `origin`, with `observation` and
/// `messages` in its prompt.
fn expert_sees(
    task: Task,
    origin: (i32, i32),
    rows: &[&str],
    observation: &str,
    messages: &[&str],
) -> &'static str {
    let messages: Vec<String> = messages.iter().map(|m| m.to_string()).collect();
    let user = prompt(task, &view(origin, rows), observation, &messages, &[]);
    expert_action(task, &user)
}

#[test]
fn pursuit_expert_goes_to_a_free_side_of_the_prey() {
    let pursuit = |rows: &[&str], messages: &[&str]| {
        expert_sees(Task::Pursuit, (1, 1), rows, "score: 0", messages)
    };
    // Agent 4 already holds the prey's left side and a wall blocks the way down: the free
    // side (2, 5) is reached by going UP first.
    let blocked = [
        ". . . . .",
        ". . . . .",
        ". . Y 4 P",
        ". . W . .",
        ". . . . .",
    ];
    assert_eq!(pursuit(&blocked, &[]), "UP");
    // Next to the prey: hold the side.
    assert_eq!(pursuit(&PREY_RIGHT, &[]), "STAY");
    // No prey in sight, but a message says where it is: head there.
    assert_eq!(pursuit(&EMPTY, &["Prey P at (3, 9), come help"]), "RIGHT");
}

#[test]
fn foraging_expert_walks_around_walls_to_food_then_to_the_nest() {
    let foraging = |rows: &[&str], observation: &str| {
        expert_sees(Task::Foraging, (1, 1), rows, observation, &[])
    };
    let walled = [
        ". . . . .",
        ". . . . .",
        ". . Y . .",
        "W W W . .",
        "F F . . .",
    ];
    assert_eq!(foraging(&walled, "carrying_food: False"), "RIGHT");
    // Carrying: the food is ignored, the nest above is the goal.
    let nest_above = [
        "N N . . .",
        "N N . . .",
        ". . Y . .",
        ". . . . .",
        "F F . . .",
    ];
    let a = foraging(&nest_above, "carrying_food: True");
    assert!(a == "UP" || a == "LEFT", "{a}");
    // Next to the food and not carrying: stay for the pick-up.
    let food_left = [
        ". . . . .",
        ". . . . .",
        ". F Y . .",
        ". . . . .",
        ". . . . .",
    ];
    assert_eq!(foraging(&food_left, "carrying_food: False"), "STAY");
}

#[test]
fn other_tasks_follow_the_brief() {
    // Synchronization: own light on, most visible lights off → SWITCH.
    let lights = [". $1 .", "$2 Y .", ". 3 $4"];
    let sync =
        |observation: &str| expert_sees(Task::Synchronization, (1, 1), &lights, observation, &[]);
    assert_eq!(sync("light_on: True"), "SWITCH");
    assert_eq!(sync("light_on: False"), "STAY");
    // Flocking: the group is to the right.
    let group_right = [
        ". . . . .",
        ". . . 1 .",
        "Y . . 2 3",
        ". . . 4 .",
        ". . . . .",
    ];
    assert_eq!(
        expert_sees(Task::Flocking, (1, 1), &group_right, "", &[]),
        "RIGHT"
    );
    // Transport: an open exit is taken.
    let exit_below = [
        "W . . . .",
        "W . . . .",
        "W . Y . .",
        "W W . W W",
        "* * * * *",
    ];
    assert_eq!(
        expert_sees(Task::Transport, (7, 7), &exit_below, "", &[]),
        "DOWN"
    );
}

#[test]
fn exploration_keeps_its_direction() {
    let v = view((1, 1), &EMPTY);
    let hist = [HistoryEntry {
        round: 1,
        action: "LEFT".into(),
        message: String::new(),
    }];
    let user = prompt(Task::Pursuit, &v, "score: 0", &[], &hist);
    let lefts = (0..100)
        .filter(|&d| {
            let text = simulated_reply(SYSTEM, &user, 1.0, d).unwrap();
            parse_reply(&text, false, 120).action == Some(Move::Go(crate::physics::Dir::Left))
        })
        .count();
    assert!(lefts > 60, "{lefts}");
}

#[test]
fn replies_have_the_requested_format() {
    let v = view((1, 1), &PREY_RIGHT);
    let user = prompt(Task::Pursuit, &v, "score: 0", &[], &[]);
    let mut with_msg = 0;
    for d in 0..400 {
        let text = simulated_reply(SYSTEM, &user, 0.7, d).unwrap();
        let lines: Vec<&str> = text.split('\n').collect();
        assert!(lines.len() == 2 || lines.len() == 3, "{text}");
        assert!(lines[1].starts_with("ACTION: "), "{text}");
        if let Some(m) = lines.get(2) {
            let m = m.strip_prefix("MSG: ").unwrap();
            assert!(!m.is_empty() && m.chars().count() < 120, "{m}");
            with_msg += 1;
        }
        let r = parse_reply(&text, false, 120);
        assert!(r.action.is_some());
    }
    assert!((80..160).contains(&with_msg), "{with_msg}");
}
