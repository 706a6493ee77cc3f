//! The exact prompt of docs/design/swarmbench.md Appendix B (byte-identical, by SHA-256) and
//! snapshot tests of views and prompts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use colony_env_api::Environment;
use colony_swarmbench::reply::parse_reply;
use colony_swarmbench::{Config, SwarmEnv, Task};
use sha2::{Digest, Sha256};

fn round(env: &mut SwarmEnv, replies: &[(&str, String)]) {
    let mut actions = BTreeMap::new();
    for i in 0..10 {
        let name = format!("Agent_{i}");
        let text = replies
            .iter()
            .find(|(a, _)| *a == name)
            .map_or("ACTION: STAY".to_string(), |(_, r)| r.clone());
        actions.insert(name, parse_reply(&text, true, 120));
    }
    env.step(&actions);
}

fn appendix_b() -> SwarmEnv {
    let mut env = SwarmEnv::new(Config {
        task: Task::Synchronization,
        ..Config::default()
    })
    .unwrap();
    env.reset(42);
    round(
        &mut env,
        &[
            ("Agent_0", "Most lights are off, so I keep mine as it is and look around.\nACTION: STAY\nMSG: Lights: most are OFF. Everyone turn OFF, do not SWITCH if already off.".into()),
            ("Agent_2", format!("My light is on, I switch it off.\nACTION: SWITCH\nMSG: {}", "I switched OFF at (4,1). ".repeat(6))),
            ("Agent_5", "I am not sure yet.".into()),
            ("Agent_9", "ACTION: DOWN\nMSG: moving down to (3,2)".into()),
        ],
    );
    assert_eq!(env.score(), 0.0);
    round(
        &mut env,
        &[
            ("Agent_0", "ACTION: up\nMSG: Is anyone still ON?".into()),
            ("Agent_1", "ACTION: STAY\nMSG: hello from (4,4)".into()),
            ("Agent_5", "Action: RIGHT\nMSG:".into()),
            ("Agent_8", "ACTION: SWITCH".into()),
            ("Agent_9", "ACTION: STAY\nMSG: All OFF near (3,2)?".into()),
        ],
    );
    env
}

#[test]
fn appendix_b_prompt_is_byte_identical() {
    let env = appendix_b();
    assert_eq!(env.score(), 1.0);
    let pos: Vec<(i32, i32)> = (0..10).map(|i| env.agent_pos(i)).collect();
    assert_eq!(
        pos,
        vec![
            (2, 1),
            (4, 4),
            (4, 1),
            (4, 7),
            (5, 8),
            (3, 2),
            (6, 7),
            (3, 5),
            (6, 4),
            (3, 3)
        ]
    );
    let prompt = env.observe_text("Agent_0").unwrap();
    assert_eq!(prompt.len(), 4230);
    let digest = Sha256::digest(prompt.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        hex, "62e42d283f5c553c1169d1141d5b7a699f52e5e4dd1e691ac52a935c402bba38",
        "{prompt}"
    );
    insta::assert_snapshot!("appendix_b_agent0_round2", prompt);
}

#[test]
fn view_snapshots() {
    // Design §10.2 example: Agent_0 at (3,1), k = 5, Pursuit seed 42, round 0.
    let mut env = SwarmEnv::new(Config::default()).unwrap();
    env.reset(42);
    let mut v = colony_swarmbench::view::View::empty();
    env.view_of(0, &mut v);
    let text = v.render();
    assert_eq!(
        text,
        "    -1   0   1   2   3\n  1  *   W   5   2   .   \n  2  *   W   6   1   .   \n  3  *   W   Y   .   .   \n  4  *   W   .   9   .   \n  5  *   W   .   7   .   \n"
    );
    for task in Task::ALL {
        let mut env = SwarmEnv::new(Config {
            task,
            ..Config::default()
        })
        .unwrap();
        env.reset(42);
        insta::assert_snapshot!(
            format!("prompt_round0_{}", task.name()),
            env.observe_text("Agent_3").unwrap()
        );
    }
}
