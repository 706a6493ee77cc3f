//! Prints the PERCEPTION prompt (docs/design/wildfire.md §11.1) and the task text of one agent
//! after reset.
//!
//! `cargo run -p colony-wildfire --example perception -- [LEVEL] [SEED] [AGENT]`
//! (defaults: `rescue_civilians_known_small 9502 1`).

use colony_env_api::Environment;
use colony_wildfire::config::find_level;
use colony_wildfire::prompts::{task_description, team_composition};
use colony_wildfire::WildfireEnv;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let level = args
        .first()
        .map_or("rescue_civilians_known_small", String::as_str);
    let seed: u64 = args.get(1).map_or(Ok(9502), |s| s.parse())?;
    let agent = args.get(2).map_or("1", String::as_str);
    let config = find_level(level).ok_or_else(|| format!("unknown level {level:?}"))?;
    let mut env = WildfireEnv::new(config)?;
    env.try_reset(seed)?;
    println!("TASK: {}\n", task_description(env.world()));
    println!("TEAM COMPOSITION:\n{}", team_composition(env.world()));
    println!("{}", env.observe_text(agent)?);
    Ok(())
}
