//! How `colony env …` sees SwarmBench: description, `--set` parameters, construction and the
//! built-in policies.

use colony_env_api::registry::unknown_policy;
use colony_env_api::{
    boxed, DynEnvironment, DynPolicy, EnvEntry, EnvError, EnvInfo, EnvParams, ParamSpec,
};

use crate::config::{Config, Task};
use crate::env::SwarmEnv;

/// The registration of `swarmbench-v0`.
pub struct SwarmEntry;

/// Every `--set` parameter (docs/design/swarmbench.md §6 defaults of the paper's main runs).
pub fn params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::new(
            "task",
            "pursuit",
            "pursuit | synchronization | foraging | flocking | transport",
        ),
        ParamSpec::new("agents", "10", "number of agents N (must fit the task layout; see memory for the view budget)"),
        ParamSpec::new("size", "10", "sets both height and width (6..=2000)"),
        ParamSpec::new("height", "10", "map rows (6..=2000)"),
        ParamSpec::new("width", "10", "map columns (6..=2000)"),
        ParamSpec::new("view", "5", "view size k, 1..=max(height,width) (odd recommended)"),
        ParamSpec::new("max_round", "100", "maximum number of rounds, at most 1000000000"),
        ParamSpec::new(
            "memory",
            "5",
            "views and history entries kept in the prompt, 1..=1000; agents × view² (commander: the map) × memory ≤ 2^25 cells",
        ),
        ParamSpec::new(
            "msg_cap",
            "120",
            "message cap in characters, at most 100000 (longer: cut + \"...\")",
        ),
        ParamSpec::new(
            "corruption",
            "0",
            "probability that a message is corrupted (paper L.4: 0.2)",
        ),
        ParamSpec::new(
            "delay_min",
            "0",
            "minimum extra delivery delay in rounds (L.4)",
        ),
        ParamSpec::new(
            "delay_max",
            "0",
            "maximum extra delivery delay in rounds, at most 1000000 (L.4: 4)",
        ),
        ParamSpec::new(
            "commander",
            "false",
            "Agent_0 gets a global view and is the only one others hear (L.3)",
        ),
    ]
}

/// Builds a [`Config`] from `--set` settings; unknown keys are errors naming the key.
pub fn config_from_params(mut p: EnvParams) -> Result<Config, EnvError> {
    let d = Config::default();
    let task: String = p.take("task", "pursuit".to_string())?;
    let task: Task = task
        .parse()
        .map_err(|e: colony_env_api::UnknownName| EnvError::Param {
            key: "task".into(),
            message: e.to_string(),
        })?;
    let size: i32 = p.take("size", d.height)?;
    let cfg = Config {
        task,
        agents: p.take("agents", d.agents)?,
        height: p.take("height", size)?,
        width: p.take("width", size)?,
        view: p.take("view", d.view)?,
        max_round: p.take("max_round", d.max_round)?,
        memory: p.take("memory", d.memory)?,
        msg_cap: p.take("msg_cap", d.msg_cap)?,
        corruption: p.take("corruption", d.corruption)?,
        delay_min: p.take("delay_min", d.delay_min)?,
        delay_max: p.take("delay_max", d.delay_max)?,
        commander: p.take("commander", d.commander)?,
    };
    p.finish(&params())?;
    cfg.validate().map_err(|e| EnvError::Param {
        key: e.key.into(),
        message: e.message,
    })?;
    Ok(cfg)
}

impl EnvEntry for SwarmEntry {
    fn templates(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("swarmbench/system", crate::prompt::SYSTEM),
            ("swarmbench/template", crate::prompt::TEMPLATE),
        ]
    }
    fn legend(&self) -> Vec<colony_env_api::LegendEntry> {
        crate::env::describe::legend()
    }

    fn info(&self) -> EnvInfo {
        EnvInfo {
            id: "swarmbench-v0".into(),
            description: "SwarmBench: exact grid physics and the five tasks (pursuit, synchronization, foraging, flocking, transport); actions are replies with ACTION:/MSG: or bare action names".into(),
            params: params(),
        }
    }

    fn make(&self, params: EnvParams) -> Result<Box<dyn DynEnvironment>, EnvError> {
        let cfg = config_from_params(params)?;
        let env = SwarmEnv::new(cfg).map_err(|e| EnvError::Param {
            key: e.key.into(),
            message: e.message,
        })?;
        Ok(boxed(env))
    }

    /// The simulated SwarmBench agent ([`crate::sim_agent::simulated_reply`]): `None` unless
    /// `system` is the §11.1 text and `user` a §11.2 prompt; the expert move with probability
    /// `accuracy`, else a random legal one; all randomness from `draw`.
    fn simulated_agent(&self) -> Option<colony_env_api::SimulatedAgent> {
        Some(crate::sim_agent::simulated_reply)
    }

    fn policy_names(&self) -> Vec<&'static str> {
        crate::policies::NAMES.to_vec()
    }

    fn make_own_policy(&self, name: &str, seed: u64) -> Result<Box<dyn DynPolicy>, EnvError> {
        crate::policies::make(name, seed).ok_or_else(|| unknown_policy(name, &self.policy_names()))
    }
}

static ENTRY: SwarmEntry = SwarmEntry;

/// The `swarmbench-v0` entry for the `colony` registry.
pub fn entry() -> &'static dyn EnvEntry {
    &ENTRY
}
