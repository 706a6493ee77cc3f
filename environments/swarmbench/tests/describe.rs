//! SwarmBench's self-description: the task's targets as sub-goals.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_env_api::EnvParams;

#[test]
fn goals_are_the_task_targets() {
    for (task, ids) in [
        ("pursuit", vec!["prey"]),
        ("synchronization", vec!["lights"]),
        ("foraging", vec!["food", "nest"]),
        ("flocking", vec!["shape"]),
        ("transport", vec!["box", "escape"]),
    ] {
        let params = EnvParams::parse(&[format!("task={task}"), "agents=3".into()]).unwrap();
        let mut e = colony_swarmbench::entry::entry().make(params).unwrap();
        e.reset(0);
        let caps = e.goals().expect("SwarmBench offers sub-goals");
        let goals = caps.sub_goals();
        let got: Vec<&str> = goals.iter().map(|g| g.id.as_str()).collect();
        assert_eq!(got, ids, "{task}");
        assert!(goals.iter().all(|g| g.open));
        assert!(caps
            .agent_position("Agent_0")
            .unwrap()
            .starts_with("at row"));
        assert_eq!(caps.agent_position("nobody"), None);
    }
}
