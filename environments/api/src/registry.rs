//! How an environment crate presents itself to `colony env …`: its description and parameters,
//! a constructor from `--set key=value` settings, optional layout files, and its built-in
//! policies.

use crate::describe::{GridInput, GridReport, LegendEntry, PictureRows};
use crate::policy::{DynPolicy, NoopPolicy, RandomPolicy};
use crate::{DynEnvironment, EnvError, EnvInfo, EnvParams};

/// A benchmark's simulated agent: `(system, user, accuracy, draw)` → the reply to a prompt of
/// that benchmark, or `None` when the prompt is not one of its own. With probability
/// `accuracy` the reply carries the action an expert would choose from the prompt text alone,
/// otherwise a random legal action; all randomness comes from `draw`, so the same prompt and
/// draw give the same reply. The reply is in the format the prompt requests (it goes through
/// the benchmark's parser). It lets the offline default model play every environment.
pub type SimulatedAgent = fn(&str, &str, f64, u64) -> Option<String>;

impl std::fmt::Debug for dyn EnvEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The id names the entry; its parameters and templates are `colony env list`'s.
        write!(f, "EnvEntry({})", self.info().id)
    }
}

/// One environment as the command line sees it. Each environment crate exports one
/// (e.g. `colony_cube::entry()`), and the `colony` binary lists them.
pub trait EnvEntry: Send + Sync {
    /// Id, description and parameters (for `colony env list`).
    fn info(&self) -> EnvInfo;

    /// Builds an environment from settings; unknown keys and bad values are errors naming
    /// the key. The environment still needs `reset(seed)`.
    fn make(&self, params: EnvParams) -> Result<Box<dyn DynEnvironment>, EnvError>;

    /// Builds an environment from a layout file's text (e.g. CUBE's ASCII notation);
    /// `reset` must not be called afterwards. Environments without layouts refuse.
    fn make_from_layout(
        &self,
        params: EnvParams,
        layout: &str,
    ) -> Result<Box<dyn DynEnvironment>, EnvError> {
        let _ = (params, layout);
        Err(EnvError::Param {
            key: "layout".into(),
            message: format!("{} does not load layout files", self.info().id),
        })
    }

    /// Names of the environment's own built-in policies (besides `random` and `noop`).
    fn policy_names(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// Builds the environment's own policy `name` (only names of
    /// [`EnvEntry::policy_names`]); `seed` fixes any randomness it uses.
    fn make_own_policy(&self, name: &str, seed: u64) -> Result<Box<dyn DynPolicy>, EnvError> {
        let _ = seed;
        Err(unknown_policy(name, &self.policy_names()))
    }

    /// The environment's simulated agent, if it has one (`None` by default): see
    /// [`SimulatedAgent`].
    fn simulated_agent(&self) -> Option<SimulatedAgent> {
        None
    }

    /// The reply the simulated agent ([`EnvEntry::simulated_agent`]) gives to a prompt of
    /// this benchmark, or `None` when the environment has none or the prompt is not one of
    /// its own (the offline default model asks every environment in turn).
    fn simulated_reply(
        &self,
        system: &str,
        user: &str,
        accuracy: f64,
        draw: u64,
    ) -> Option<String> {
        self.simulated_agent()
            .and_then(|agent| agent(system, user, accuracy, draw))
    }

    /// Named prompt templates and protocol texts the environment sends to models
    /// (`swarmbench/system`, …): a suite's manifest hashes them so a changed prompt shows as
    /// a changed run. Default: none.
    fn templates(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }

    /// The viewer's legend for the characters of [`crate::Environment::render`]. Default:
    /// none (cells are drawn grey with their character).
    fn legend(&self) -> Vec<LegendEntry> {
        Vec::new()
    }

    /// How the viewer splits [`crate::Environment::render`]'s lines into text and grid rows.
    fn picture_rows(&self) -> PictureRows {
        PictureRows::Bare
    }

    /// The built-in policy (a name of [`EnvEntry::make_policy`]) whose score the benchmark's
    /// paper normalizes against (Wildfire: `noop`, the Do-Nothing baseline). A comparison
    /// then measures it per seed and reports [`crate::PaperProtocol::normalized_score`].
    /// Default: `None`.
    fn baseline_policy(&self) -> Option<&'static str> {
        None
    }

    /// Whether configurations carry their own evaluation seeds
    /// ([`crate::PaperProtocol::evaluation_seeds`]), checked when a suite asks for them.
    fn has_evaluation_seeds(&self) -> bool {
        false
    }

    /// Every value of setting `key`, which `--grid key=all` expands to (Wildfire: `level`
    /// 1–17). Default: `None`, so `all` is refused for that setting with a clear error.
    fn all_values(&self, key: &str) -> Option<Vec<String>> {
        let _ = key;
        None
    }

    /// Extra tables and summary entries for a comparison grid over one of the environment's
    /// settings (Wildfire: NS and BCS over `level`). Default: `None`.
    fn grid_report(&self, grid: &GridInput) -> Option<GridReport> {
        let _ = grid;
        None
    }

    /// Builds any built-in policy: `random`, `noop`, or one of the environment's own.
    fn make_policy(&self, name: &str, seed: u64) -> Result<Box<dyn DynPolicy>, EnvError> {
        match name {
            "random" => Ok(Box::new(RandomPolicy::new(seed))),
            "noop" => Ok(Box::new(NoopPolicy)),
            other => self.make_own_policy(other, seed),
        }
    }
}

/// The error for a policy name an environment does not have, listing the ones it has.
pub fn unknown_policy(name: &str, own: &[&str]) -> EnvError {
    let mut known = vec!["random", "noop"];
    known.extend_from_slice(own);
    EnvError::Param {
        key: "policy".into(),
        message: format!("unknown policy {name:?}; known: {}", known.join(", ")),
    }
}
