//! How `wildfire-v0` presents itself to `colony env …`: parameters, construction from
//! `--set key=value`, and the built-in `heuristic` policy.

use colony_env_api::registry::unknown_policy;
use colony_env_api::{
    boxed, typed_policy, DynEnvironment, DynPolicy, EnvEntry, EnvError, EnvInfo, EnvParams,
    ParamSpec,
};

use crate::config::{
    bench_level, find_level, mixed_team, LevelConfig, MAX_AGENTS, MAX_MAP_SIZE, MAX_STEPS,
    MIN_MAP_SIZE,
};
use crate::env::WildfireEnv;
use crate::policies::HeuristicPolicy;

fn params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::new("level", "cut_trees_sparse_small", "level id or number 1–17 (docs/design/wildfire.md §12.1), or `bench` (synthetic suppress level; the default when map_size or agents is set without level)"),
        ParamSpec::new("map_size", "0", "map side override, 8..=1000 (0 = the level's)"),
        ParamSpec::new("agents", "0", "team size override, at most 2000: M agents of mixed types F,B,D,H in turn (0 = the level's team)"),
        ParamSpec::new("max_steps", "0", "step limit override, at most 1000000000 (0 = the level's)"),
        ParamSpec::new("fire_frames", "0", "frames per fire tick override, at most 1000000000 (0 = the level's)"),
        ParamSpec::new("trees_destroyed_fire_only", "false", "count only trees destroyed by fire in TreesDestroyed (docs/design/wildfire.md §12.3)"),
        ParamSpec::new("rules", "orch", "official rule set: `orch` (WILDFIRE-ORCH's constants and presets) or `paper` (the paper-era code behind Table 3: in-place fire scan, buildings in the score, its level 13–17 presets; docs/design/wildfire.md §19)"),
    ]
}

fn param_err(key: &str, message: String) -> EnvError {
    EnvError::Param {
        key: key.into(),
        message,
    }
}

/// Builds the level configuration from `--set` parameters.
pub fn level_from_params(mut p: EnvParams) -> Result<LevelConfig, EnvError> {
    let level: String = p.take("level", String::new())?;
    let map_size: u32 = p.take("map_size", 0)?;
    let agents: u32 = p.take("agents", 0)?;
    let max_steps: u32 = p.take("max_steps", 0)?;
    let fire_frames: u32 = p.take("fire_frames", 0)?;
    let fire_only: bool = p.take("trees_destroyed_fire_only", false)?;
    let rules_name: String = p.take("rules", "orch".to_string())?;
    p.finish(&params())?;
    let rules = crate::config::Rules::from_name(&rules_name).ok_or_else(|| {
        param_err(
            "rules",
            format!(
                "unknown rule set {:?}; known: orch, paper",
                colony_env_api::clip(&rules_name)
            ),
        )
    })?;
    let l = if level.is_empty() {
        if map_size > 0 || agents > 0 {
            bench_level(100, 20)
        } else {
            find_level("cut_trees_sparse_small")
                .ok_or_else(|| param_err("level", "default level missing".into()))?
        }
    } else {
        find_level(&level).ok_or_else(|| {
            let ids: Vec<String> = crate::config::levels().into_iter().map(|l| l.id).collect();
            param_err(
                "level",
                format!(
                    "unknown level {:?}; known: {}, bench",
                    colony_env_api::clip(&level),
                    ids.join(", ")
                ),
            )
        })?
    };
    let mut l = l.with_rules(rules);
    if map_size > 0 {
        if !(MIN_MAP_SIZE..=MAX_MAP_SIZE).contains(&map_size) {
            return Err(param_err(
                "map_size",
                format!("{map_size} is outside {MIN_MAP_SIZE}..={MAX_MAP_SIZE}"),
            ));
        }
        l.map_size = map_size;
    }
    if agents > 0 {
        if agents > MAX_AGENTS {
            return Err(param_err(
                "agents",
                format!("{agents} is above {MAX_AGENTS}"),
            ));
        }
        l.team = mixed_team(agents);
    }
    for (key, v) in [("max_steps", max_steps), ("fire_frames", fire_frames)] {
        if v > MAX_STEPS {
            return Err(param_err(key, format!("{v} is above {MAX_STEPS}")));
        }
    }
    if l.team_size() == 0 {
        return Err(param_err("agents", "the team is empty".into()));
    }
    if max_steps > 0 {
        l.max_steps = max_steps;
    }
    if fire_frames > 0 {
        l.fire_frames = fire_frames;
    }
    l.trees_destroyed_fire_only = fire_only;
    l.check().map_err(|(key, message)| {
        let key = if key == "team" { "agents" } else { key };
        let key = if matches!(key, "map_size" | "agents" | "max_steps" | "fire_frames") {
            key
        } else {
            "level"
        };
        param_err(key, message)
    })?;
    Ok(l)
}

/// The registry entry of `wildfire-v0`.
struct WildfireEntry;

static ENTRY: WildfireEntry = WildfireEntry;

/// The `EnvEntry` of `wildfire-v0` for the `colony` binary's registry.
pub fn entry() -> &'static dyn EnvEntry {
    &ENTRY
}

impl EnvEntry for WildfireEntry {
    fn templates(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("wildfire/legend", crate::prompts::LEGEND),
            ("wildfire/notes", crate::prompts::NOTES),
            (
                "wildfire/execution_format",
                crate::prompts::EXECUTION_FORMAT,
            ),
        ]
    }

    fn legend(&self) -> Vec<colony_env_api::LegendEntry> {
        crate::describe::legend()
    }

    /// docs/design/wildfire.md §13.1: NS is measured against the Do-Nothing baseline.
    fn baseline_policy(&self) -> Option<&'static str> {
        Some("noop")
    }

    fn has_evaluation_seeds(&self) -> bool {
        true
    }

    /// `level=all`: the 17 configurations of design §12.1, in order.
    fn all_values(&self, key: &str) -> Option<Vec<String>> {
        (key == "level").then(|| {
            crate::config::levels()
                .iter()
                .map(|l| l.number.to_string())
                .collect()
        })
    }

    fn grid_report(&self, grid: &colony_env_api::GridInput) -> Option<colony_env_api::GridReport> {
        crate::grid_report::grid_report(grid)
    }

    fn info(&self) -> EnvInfo {
        EnvInfo {
            id: "wildfire-v0".into(),
            description: "CREW-Wildfire: procedural maps, cellular-automaton fire, firefighters/bulldozers/drones/helicopters, 17 level configurations; actions are primitives `[type, p1, p2, \"description\"]`, `continue`, or `low code x y`".into(),
            params: params(),
        }
    }

    fn make(&self, params: EnvParams) -> Result<Box<dyn DynEnvironment>, EnvError> {
        let level = level_from_params(params)?;
        let env = WildfireEnv::new(level).map_err(|e| param_err("level", e.to_string()))?;
        Ok(boxed(env))
    }

    fn policy_names(&self) -> Vec<&'static str> {
        vec!["heuristic"]
    }

    /// docs/design/wildfire.md §11: the simulated agent of [`crate::sim_agent::simulated_reply`].
    fn simulated_agent(&self) -> Option<colony_env_api::SimulatedAgent> {
        Some(crate::sim_agent::simulated_reply)
    }

    fn make_own_policy(&self, name: &str, _seed: u64) -> Result<Box<dyn DynPolicy>, EnvError> {
        match name {
            "heuristic" => Ok(typed_policy::<WildfireEnv, _>(HeuristicPolicy)),
            other => Err(unknown_policy(other, &self.policy_names())),
        }
    }
}
