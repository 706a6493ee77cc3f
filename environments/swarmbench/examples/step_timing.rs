//! Rough per-step timing of random rollouts (the real figures come from
//! `colony env bench swarmbench`): `cargo run --release -p colony-swarmbench --example step_timing`.

use std::time::Instant;

use colony_env_api::{boxed, DynEnvironment};
use colony_swarmbench::{Config, SwarmEnv, Task};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for (agents, size) in [(10, 10), (30, 20), (100, 40), (1000, 100)] {
        for task in Task::ALL {
            let cfg = Config {
                task,
                agents,
                height: size,
                width: size,
                max_round: 100,
                ..Config::default()
            };
            let mut env: Box<dyn DynEnvironment> = boxed(SwarmEnv::new(cfg)?);
            let mut rng = 1u64;
            let mut steps = 0u32;
            let start = Instant::now();
            while start.elapsed().as_secs_f64() < 1.0 && steps < 2000 {
                if env.step_random(&mut rng) {
                    env.reset(u64::from(steps));
                }
                steps += 1;
            }
            let us = start.elapsed().as_secs_f64() * 1e6 / f64::from(steps);
            println!(
                "{:>15} {agents:>5} agents {size:>3}x{size:<3} {us:>10.1} us/step",
                task.name()
            );
        }
    }
    Ok(())
}
