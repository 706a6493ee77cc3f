//! Wildfire's self-description: sub-goals by level kind, agent profiles.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use colony_env_api::{EnvParams, Environment, FrameworkBriefing, PaperProtocol, SubGoals};
use colony_wildfire::config::LevelKind;
use colony_wildfire::describe::sub_goals;
use colony_wildfire::grid::Fire;
use colony_wildfire::WildfireEnv;

fn env(level: &str) -> WildfireEnv {
    let params = EnvParams::parse(&[format!("level={level}")]).unwrap();
    let level = colony_wildfire::entry::level_from_params(params).unwrap();
    let mut e = WildfireEnv::new(level).unwrap();
    e.reset(0);
    e
}

#[test]
fn goals_follow_the_level_kind() {
    let e = env("1");
    let goals = e.sub_goals();
    assert!(!goals.is_empty());
    // A full-environment state lists fires, scouting areas and civilians.
    let mut s = e.world().clone();
    s.level.kind = LevelKind::Full;
    let full = sub_goals(&s);
    for prefix in ["fire-", "scout-"] {
        assert_eq!(full.iter().filter(|g| g.id.starts_with(prefix)).count(), 4);
    }
    assert_eq!(
        full.iter().filter(|g| g.id.starts_with("civilian")).count(),
        s.civilians.len()
    );
    // Putting out every fire raises the fire goals' progress to 0 and closes them.
    let before: f64 = full
        .iter()
        .filter(|g| g.id.starts_with("fire-"))
        .map(|g| g.progress)
        .sum();
    for f in s.grid.fire.iter_mut() {
        if f.is_burning() {
            *f = Fire::Extinguished;
        }
    }
    let after = sub_goals(&s);
    assert!(after
        .iter()
        .filter(|g| g.id.starts_with("fire-"))
        .all(|g| !g.open && g.progress == 0.0));
    assert!(before <= 0.0);
}

#[test]
fn agents_are_described_by_id_and_unknown_ids_are_none() {
    let e = env("17");
    let p = e.agent_profile("1").unwrap();
    assert!(!p.kind.is_empty() && !p.position.is_empty());
    assert!(e.agent_position("1").unwrap().contains(" at x "));
    assert!(e.agent_abilities("1").is_some());
    assert_eq!(e.agent_history("1").as_deref(), Some("None"));
    assert_eq!(e.agent_profile("999"), None);
    assert_eq!(e.agent_abilities("999"), None);
    let b = e.team_briefing().unwrap();
    assert_eq!(b.team_size, e.world().agents.len());
    assert_eq!(e.evaluation_seeds(), Some(e.world().level.seeds.clone()));
}
