//! Timing of Flocking steps under random play (40x40, 100 agents), for profiling:
//! `cargo run --release -p colony-swarmbench --example flocking_timing`.
use colony_env_api::{boxed, DynEnvironment};
use colony_swarmbench::{Config, SwarmEnv, Task};
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = Config {
        task: Task::Flocking,
        agents: 100,
        height: 40,
        width: 40,
        ..Config::default()
    };
    let mut env: Box<dyn DynEnvironment> = boxed(SwarmEnv::new(cfg)?);
    let mut rng = 1u64;
    let t = std::time::Instant::now();
    for _ in 0..100 {
        env.step_random(&mut rng);
    }
    eprintln!("{:?} per step", t.elapsed() / 100);
    Ok(())
}
