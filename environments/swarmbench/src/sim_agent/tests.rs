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

#[test]
fn pursuit_expert_goes_to_a_free_side_of_the_prey() {
    // Agent 4 already holds the prey's left side and a wall blocks the way down: the free
    // side (2, 5) is reached by going UP first.
    let v = view(
        (1, 1),
        &[
            ". . . . .",
            ". . . . .",
            ". . Y 4 P",
            ". . W . .",
            ". . . . .",
        ],
    );
    let user = prompt(Task::Pursuit, &v, "score: 0", &[], &[]);
    assert_eq!(expert_action(Task::Pursuit, &user), "UP");
    // Next to the prey: hold the side.
    let v = view(
        (1, 1),
        &[
            ". . . . .",
            ". . . . .",
            ". . Y P .",
            ". . . . .",
            ". . . . .",
        ],
    );
    let user = prompt(Task::Pursuit, &v, "score: 0", &[], &[]);
    assert_eq!(expert_action(Task::Pursuit, &user), "STAY");
    // No prey in sight, but a message says where it is: head there.
    let v = view(
        (1, 1),
        &[
            ". . . . .",
            ". . . . .",
            ". . Y . .",
            ". . . . .",
            ". . . . .",
        ],
    );
    let msgs = ["Prey P at (3, 9), come help".to_string()];
    let user = prompt(Task::Pursuit, &v, "score: 0", &msgs, &[]);
    assert_eq!(expert_action(Task::Pursuit, &user), "RIGHT");
}

#[test]
fn foraging_expert_walks_around_walls_to_food_then_to_the_nest() {
    let v = view(
        (1, 1),
        &[
            ". . . . .",
            ". . . . .",
            ". . Y . .",
            "W W W . .",
            "F F . . .",
        ],
    );
    let user = prompt(Task::Foraging, &v, "carrying_food: False", &[], &[]);
    assert_eq!(expert_action(Task::Foraging, &user), "RIGHT");
    // Carrying: the food is ignored, the nest above is the goal.
    let v = view(
        (1, 1),
        &[
            "N N . . .",
            "N N . . .",
            ". . Y . .",
            ". . . . .",
            "F F . . .",
        ],
    );
    let user = prompt(Task::Foraging, &v, "carrying_food: True", &[], &[]);
    let a = expert_action(Task::Foraging, &user);
    assert!(a == "UP" || a == "LEFT", "{a}");
    // Next to the food and not carrying: stay for the pick-up.
    let v = view(
        (1, 1),
        &[
            ". . . . .",
            ". . . . .",
            ". F Y . .",
            ". . . . .",
            ". . . . .",
        ],
    );
    let user = prompt(Task::Foraging, &v, "carrying_food: False", &[], &[]);
    assert_eq!(expert_action(Task::Foraging, &user), "STAY");
}

#[test]
fn other_tasks_follow_the_brief() {
    // Synchronization: own light on, most visible lights off → SWITCH.
    let v = view((1, 1), &[". $1 .", "$2 Y .", ". 3 $4"]);
    let user = prompt(Task::Synchronization, &v, "light_on: True", &[], &[]);
    assert_eq!(expert_action(Task::Synchronization, &user), "SWITCH");
    let user = prompt(Task::Synchronization, &v, "light_on: False", &[], &[]);
    assert_eq!(expert_action(Task::Synchronization, &user), "STAY");
    // Flocking: the group is to the right.
    let v = view(
        (1, 1),
        &[
            ". . . . .",
            ". . . 1 .",
            "Y . . 2 3",
            ". . . 4 .",
            ". . . . .",
        ],
    );
    let user = prompt(Task::Flocking, &v, "", &[], &[]);
    assert_eq!(expert_action(Task::Flocking, &user), "RIGHT");
    // Transport: an open exit is taken.
    let v = view(
        (7, 7),
        &[
            "W . . . .",
            "W . . . .",
            "W . Y . .",
            "W W . W W",
            "* * * * *",
        ],
    );
    let user = prompt(Task::Transport, &v, "", &[], &[]);
    assert_eq!(expert_action(Task::Transport, &user), "DOWN");
}

#[test]
fn exploration_keeps_its_direction() {
    let v = view(
        (1, 1),
        &[
            ". . . . .",
            ". . . . .",
            ". . Y . .",
            ". . . . .",
            ". . . . .",
        ],
    );
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
    let v = view(
        (1, 1),
        &[
            ". . . . .",
            ". . . . .",
            ". . Y P .",
            ". . . . .",
            ". . . . .",
        ],
    );
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
