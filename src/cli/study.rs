//! `colony study selforg-amplification`: the simulation study of SelfOrg §2.6 (see
//! `crate::study::amplification`) and part (d), closing the gap to self-consistency
//! (`crate::study::gap`), writing tables and SVG plots; `--parts` picks the parts.

use std::path::{Path, PathBuf};

use crate::embed::EmbedderSpec;
use crate::study::amplification::{
    closed_form_vs_monte_carlo, policy_accuracy, PolicyRow, StudyConfig,
};
use crate::study::report::{
    closed_form_csv, closed_form_markdown, closed_form_svg, policy_csv, policy_markdown,
    policy_svg, SIMULATION_LABEL,
};
use anyhow::Context;
use clap::{Args, Subcommand};

/// `colony study …`.
#[derive(Args, Debug)]
pub struct StudyArgs {
    #[command(subcommand)]
    command: StudyCmd,
}

#[derive(Subcommand, Debug)]
enum StudyCmd {
    /// SelfOrg §2.6 on the simulated model: P(≥2 of N correct), policy accuracy vs p, early
    /// stopping, and which variant (SelfOrg's embedding windows, SwarmSys) closes the gap to
    /// self-consistency. Every output is labelled as simulation.
    SelforgAmplification(AmplificationArgs),
    /// CREW-Wildfire Fig. 7 offline: calls and tokens per step of each framework for several
    /// team sizes, with fitted growth exponents. Labelled as simulation.
    FrameworkScaling(ScalingArgs),
}

/// Arguments of `colony study framework-scaling`.
#[derive(Args, Debug)]
pub struct ScalingArgs {
    /// Output directory (scaling.md, scaling.csv, scaling.svg, study.json per environment).
    #[arg(long, default_value = "study-framework-scaling", value_name = "DIR")]
    out: PathBuf,
    /// Frameworks, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "camon,coela,embodied,hmas2"
    )]
    frameworks: Vec<String>,
    /// Team sizes, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "4,8,16,32")]
    sizes: Vec<usize>,
    /// Steps per run.
    #[arg(long, default_value_t = 3)]
    steps: usize,
    /// Environments with their settings, `env[:key=value,…]`, `;`-separated.
    #[arg(
        long,
        default_value = "wildfire:level=13;swarmbench:size=20,max_round=1000",
        value_name = "ENV[:SET];…"
    )]
    envs: String,
    /// Episode seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Arguments of `colony study selforg-amplification`.
#[derive(Args, Debug)]
pub struct AmplificationArgs {
    /// Output directory for the tables (Markdown, CSV), plots (SVG) and study.json.
    #[arg(
        long,
        default_value = "study-selforg-amplification",
        value_name = "DIR"
    )]
    out: PathBuf,
    /// Seed of every draw.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    /// Simulated items per accuracy (parts b and c).
    #[arg(long, default_value_t = 100)]
    items: usize,
    /// Monte-Carlo trials per cell (part a).
    #[arg(long, default_value_t = 20_000)]
    trials: usize,
    /// Per-agent accuracies of parts b and c, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "0.2,0.3,0.4,0.5,0.6,0.7,0.8"
    )]
    p: Vec<f64>,
    /// SelfOrg's embedder: `auto` (MiniLM from $COLONY_MINILM_DIR or
    /// .cache/all-MiniLM-L6-v2 when present, else the hashing embedder) or any `--embedder`
    /// spec of `colony eval`.
    #[arg(long, default_value = "auto", value_name = "SPEC")]
    embedder: String,
    /// Directory of role cards for the agents (first four used; default: the SelfOrg pool
    /// compiled into colony).
    #[arg(long, value_name = "DIR")]
    roles: Option<PathBuf>,
    /// Items solved at once.
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// Parts to run, comma-separated: a (P(≥2 of N)), b (policies vs p), c (early stopping),
    /// d (closing the gap to self-consistency: SelfOrg's embedding windows and SwarmSys).
    #[arg(long, value_delimiter = ',', default_value = "a,b,c,d")]
    parts: Vec<String>,
    /// Per-agent accuracies of part d, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "0.3,0.5,0.7")]
    gap_p: Vec<f64>,
    /// Policies of part d, `;`-separated `colony eval` specs (self_consistency is the
    /// reference the gap is measured to).
    #[arg(
        long,
        value_delimiter = ';',
        default_value = "self_consistency;selforg;selforg:embed=tail;selforg:embed=answer;swarmsys"
    )]
    gap_policies: Vec<String>,
    /// Approximate tokens of reasoning before the answer in part d's long replies (0: short
    /// replies only).
    #[arg(long, default_value_t = 400)]
    long_tokens: usize,
}

/// Runs `colony study …`.
pub async fn run(args: StudyArgs, registry: &crate::registry::Registry) -> anyhow::Result<()> {
    let registry = std::sync::Arc::new(registry.clone());
    match args.command {
        StudyCmd::SelforgAmplification(a) => amplification(a, registry).await,
        StudyCmd::FrameworkScaling(a) => framework_scaling(a, registry).await,
    }
}

/// `auto` → MiniLM when its weights are present, else hashing.
fn embedder_spec(spec: &str) -> anyhow::Result<EmbedderSpec> {
    if spec != "auto" {
        return Ok(spec.parse()?);
    }
    let candidates = [
        std::env::var_os("COLONY_MINILM_DIR").map(PathBuf::from),
        Some(PathBuf::from(".cache/all-MiniLM-L6-v2")),
    ];
    for dir in candidates.into_iter().flatten() {
        if dir.join("model.safetensors").is_file() {
            return Ok(format!("minilm:{}", dir.display()).parse()?);
        }
    }
    Ok("hash".parse()?)
}

fn write(dir: &Path, name: &str, text: &str) -> anyhow::Result<()> {
    let path = dir.join(name);
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
}

async fn amplification(
    a: AmplificationArgs,
    registry: std::sync::Arc<crate::registry::Registry>,
) -> anyhow::Result<()> {
    anyhow::ensure!(a.items > 0, "--items must be at least 1");
    anyhow::ensure!(a.trials > 0, "--trials must be at least 1");
    for (flag, ps) in [("--p", &a.p), ("--gap-p", &a.gap_p)] {
        if let Some(p) = ps.iter().find(|p| !(0.0..=1.0).contains(*p)) {
            anyhow::bail!("{flag}: {p} is not a probability in [0, 1]");
        }
    }
    if let Some(part) = a
        .parts
        .iter()
        .find(|p| !["a", "b", "c", "d"].contains(&p.as_str()))
    {
        anyhow::bail!("--parts: `{part}` is not one of a, b, c, d");
    }
    let part = |x: &str| a.parts.iter().any(|p| p == x);
    let spec = embedder_spec(&a.embedder)?;
    let embedder = spec.build(None).await?;
    let mut roles = crate::eval::models::role_cards_in_order(&registry, a.roles.as_deref())?;
    roles.truncate(4);
    // Fewer than four cards: repeat them cyclically (SelfOrg's N = 4 for math sets).
    for i in roles.len()..4 {
        let card = roles[i % roles.len()].clone();
        roles.push(card);
    }
    let config = StudyConfig {
        registry,
        seed: a.seed,
        trials: a.trials,
        policy_p: a.p.clone(),
        items: a.items,
        concurrency: a.concurrency,
        embedder: format!("{spec:?}"),
        gap_p: a.gap_p.clone(),
        gap_policies: a.gap_policies.clone(),
        long_reply_tokens: a.long_tokens,
        ..StudyConfig::default()
    };
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    eprintln!("{SIMULATION_LABEL}; SelfOrg embedder: {}", config.embedder);

    let mut doc = serde_json::json!({
        "simulation": true,
        "label": SIMULATION_LABEL,
        "config": config,
    });
    if part("a") {
        let closed = closed_form_vs_monte_carlo(&config);
        let closed_md = closed_form_markdown(&closed, &config);
        write(&a.out, "at_least_two.md", &closed_md)?;
        write(&a.out, "at_least_two.csv", &closed_form_csv(&closed))?;
        closed_form_svg(&closed, &a.out.join("at_least_two.svg"))?;
        println!("{closed_md}");
        doc["at_least_two"] = serde_json::json!(closed);
    }
    if part("b") || part("c") {
        policies_and_early_stopping(&a, &config, &roles, embedder.clone(), &mut doc).await?;
    }
    if part("d") {
        closing_the_gap(&a, &config, &roles, embedder, &mut doc).await?;
    }
    if part("a") || part("b") || part("c") {
        write(&a.out, "study.json", &serde_json::to_string_pretty(&doc)?)?;
    }
    eprintln!("wrote {}", a.out.display());
    Ok(())
}

/// Parts (b) and (c): tables, plots and `doc` entries.
async fn policies_and_early_stopping(
    a: &AmplificationArgs,
    config: &StudyConfig,
    roles: &[std::sync::Arc<crate::runtime::RoleCard>],
    embedder: std::sync::Arc<dyn crate::embed::Embedder>,
    doc: &mut serde_json::Value,
) -> anyhow::Result<()> {
    let progress = |r: &PolicyRow| {
        eprintln!(
            "  p={:.1} {:<22} accuracy {:.3}  calls/item {:.2}",
            r.p,
            r.policy,
            r.summary.accuracy_or_nan(),
            r.calls_per_item
        );
    };
    let (policies, early) = policy_accuracy(config, roles, embedder, &progress).await?;
    let title = format!(
        "Accuracy on {} simulated GSM8K-format items per p ({} dispersed wrong answers, \
         susceptibility {}, seed {}).",
        config.items, config.wrong_answers, config.susceptibility, config.seed
    );
    let report = |stem: &str, title: &str, svg_title: &str, rows: &[PolicyRow], tokens| {
        let md = policy_markdown(title, rows, tokens);
        write(&a.out, &format!("{stem}.md"), &md)?;
        write(&a.out, &format!("{stem}.csv"), &policy_csv(rows))?;
        policy_svg(svg_title, rows, &a.out.join(format!("{stem}.svg")))?;
        println!("{md}");
        anyhow::Ok(())
    };
    report(
        "policies",
        &title,
        "accuracy vs per-agent accuracy",
        &policies,
        false,
    )?;

    let early_title = format!(
        "SelfOrg with and without early stopping (γ = {}): accuracy (tokens per item).",
        config.gamma
    );
    report(
        "early_stopping",
        &early_title,
        "SelfOrg early stopping",
        &early,
        true,
    )?;
    doc["policies"] = serde_json::json!(policies);
    doc["early_stopping"] = serde_json::json!(early);
    Ok(())
}

/// Part (d): `gap.md`, `gap.csv`, `gap_short.svg`, `gap_long.svg` and `gap.json`.
async fn closing_the_gap(
    a: &AmplificationArgs,
    config: &StudyConfig,
    roles: &[std::sync::Arc<crate::runtime::RoleCard>],
    embedder: std::sync::Arc<dyn crate::embed::Embedder>,
    doc: &mut serde_json::Value,
) -> anyhow::Result<()> {
    use crate::study::gap::{closing_the_gap, part_d_embedder};
    use crate::study::report::{gap_csv, gap_markdown, gap_policy_rows};
    let encoder = part_d_embedder(config, embedder.clone());
    let progress = |r: &crate::study::gap::GapRow| {
        eprintln!(
            "  {} p={:.1} {:<22} accuracy {:.3}  calls/item {:.2}  tokens/item {:.0}",
            r.replies,
            r.row.p,
            r.row.policy,
            r.row.summary.accuracy_or_nan(),
            r.row.calls_per_item,
            r.row.tokens_per_item
        );
    };
    let rows = closing_the_gap(config, roles, embedder, &progress).await?;
    let title = format!(
        "Closing the gap to self-consistency: accuracy per p (difference to self_consistency \
         in points), tokens and calls per item (means over p); {} simulated GSM8K-format items \
         per p, seed {}, embedder {} (input limit {} tokens); long replies carry about {} \
         tokens of reasoning before the answer.",
        config.items,
        config.seed,
        encoder.id(),
        encoder.max_input_tokens().unwrap_or(config.encoder_tokens),
        config.long_reply_tokens
    );
    let md = gap_markdown(&title, &rows);
    write(&a.out, "gap.md", &md)?;
    write(&a.out, "gap.csv", &gap_csv(&rows))?;
    for style in ["short", "long"] {
        let style_rows = gap_policy_rows(&rows, style);
        if !style_rows.is_empty() {
            policy_svg(
                &format!("closing the gap, {style} replies"),
                &style_rows,
                &a.out.join(format!("gap_{style}.svg")),
            )?;
        }
    }
    println!("{md}");
    doc["gap"] = serde_json::json!(rows);
    let gap_doc = serde_json::json!({
        "simulation": true,
        "label": SIMULATION_LABEL,
        "config": config,
        "embedder": encoder.id(),
        "gap": rows,
    });
    write(&a.out, "gap.json", &serde_json::to_string_pretty(&gap_doc)?)?;
    Ok(())
}

async fn framework_scaling(
    a: ScalingArgs,
    registry: std::sync::Arc<crate::registry::Registry>,
) -> anyhow::Result<()> {
    use crate::study::framework_scaling::{run, ScalingConfig};
    anyhow::ensure!(a.steps > 0, "--steps must be at least 1");
    anyhow::ensure!(
        !a.sizes.is_empty() && a.sizes.iter().all(|n| (1..=1000).contains(n)),
        "--sizes must be team sizes between 1 and 1000"
    );
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    eprintln!("{SIMULATION_LABEL}");
    let mut all = Vec::new();
    for spec in a.envs.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let (env, set) = spec.split_once(':').unwrap_or((spec, ""));
        let config = ScalingConfig {
            registry: registry.clone(),
            env: env.to_string(),
            set: set
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect(),
            frameworks: a.frameworks.clone(),
            sizes: a.sizes.clone(),
            steps: a.steps,
            seed: a.seed,
        };
        let report = run(&config).await?;
        let short = crate::env::short_name(env).to_string();
        let md = report.markdown();
        write(&a.out, &format!("scaling_{short}.md"), &md)?;
        write(&a.out, &format!("scaling_{short}.csv"), &report.csv())?;
        let ys: Vec<f64> = report
            .lines()
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .collect();
        let lo = ys.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = ys.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let range = if lo.is_finite() {
            (lo - 0.5, hi + 0.5)
        } else {
            (0.0, 1.0)
        };
        crate::eval::plot::line_chart(
            &a.out.join(format!("scaling_{short}.svg")),
            &crate::eval::plot::Caption::new(
                format!("Prompt tokens per step vs team size, {env} (log-log)"),
                true,
            ),
            "log2(team size)",
            "log2(prompt tokens per step)",
            range,
            &report.lines(),
        )?;
        println!("{md}");
        all.push(report);
    }
    write(
        &a.out,
        "study.json",
        &serde_json::to_string_pretty(&serde_json::json!({"simulation": true, "reports": all}))?,
    )?;
    Ok(())
}
