//! `colony selforg graph`: run SelfOrg's `build_graph` (docs/design/selforg.md §1.7–§1.9) on
//! embedding vectors read from a JSON file and print ψ, edges, order, leader and removed edges.
//!
//! Input limits: at most [`MAX_GRAPH_AGENTS`] vectors, a file of at most
//! [`MAX_VECTORS_FILE_BYTES`], every value a finite 32-bit float, a finite `--tau`.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::policy::selforg::reasoning::{build_graph, Graph, GraphOptions, Rule, MAX_GRAPH_AGENTS};
use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use ndarray::Array2;

/// Arguments of `colony selforg`.
#[derive(Args, Debug)]
pub struct SelforgArgs {
    #[command(subcommand)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub action: SelforgAction,
}

/// Subcommands of `colony selforg`.
#[derive(Subcommand, Debug)]
pub enum SelforgAction {
    /// Build the SelfOrg communication graph from one embedding vector per agent.
    Graph(GraphArgs),
}

/// Candidate-parent rule (design §1.9.1).
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum RuleArg {
    /// The paper's Algorithm 2 (top-k over S ≥ tau, then cycle removal).
    Alg2,
    /// ContributionGated: additionally requires ψ[parent] > ψ[child].
    Gated,
}

/// Largest `--vectors` file read, in bytes (64 MiB: a thousand agents with 3,000-dimensional
/// vectors; the similarity matrix costs N² × D).
pub const MAX_VECTORS_FILE_BYTES: u64 = 64 << 20;

/// Arguments of `colony selforg graph`.
#[derive(Args, Debug)]
pub struct GraphArgs {
    /// JSON file with a list of embedding vectors, one per agent (any dimension, all equal;
    /// at most 1,024 vectors, finite 32-bit values, a file of at most 64 MiB).
    #[arg(long, value_name = "FILE")]
    pub vectors: PathBuf,
    /// Candidate-parent rule.
    #[arg(long, value_enum, default_value = "alg2")]
    pub rule: RuleArg,
    /// Neighbour budget: at most K parents per agent (0 = no limit).
    #[arg(long, default_value_t = 2, value_name = "K")]
    pub k: usize,
    /// Similarity threshold (a finite number).
    #[arg(long, default_value_t = 0.5, value_name = "T")]
    pub tau: f64,
    /// Print `{"psi", "edges", "order", "leader", "removed"}` as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Runs `colony selforg …`.
pub fn run(args: SelforgArgs) -> anyhow::Result<()> {
    match args.action {
        SelforgAction::Graph(a) => run_graph(a),
    }
}

fn run_graph(a: GraphArgs) -> anyhow::Result<()> {
    if !a.tau.is_finite() {
        bail!("--tau must be a finite number, got {}", a.tau);
    }
    let r = read_vectors(&a.vectors)?;
    let opts = GraphOptions {
        rule: match a.rule {
            RuleArg::Alg2 => Rule::Alg2,
            RuleArg::Gated => Rule::Gated,
        },
        k: a.k,
        tau: a.tau,
    };
    let g = build_graph(r.view(), &opts)
        .with_context(|| format!("{}: cannot build the graph", a.vectors.display()))?;
    if a.json {
        println!("{}", serde_json::to_string(&g)?);
    } else {
        print!("{}", plain(&g));
    }
    Ok(())
}

/// Reads a JSON list of equally long numeric vectors into an N×D matrix, within the limits of
/// the module docs. Errors name `--vectors` and the file.
fn read_vectors(path: &Path) -> anyhow::Result<Array2<f32>> {
    let name = format!(
        "--vectors {}",
        colony_env_api::clip(&path.display().to_string())
    );
    let file = std::fs::File::open(path).with_context(|| format!("{name}: cannot read file"))?;
    let mut text = String::new();
    file.take(MAX_VECTORS_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("{name}: cannot read file"))?;
    if text.len() as u64 > MAX_VECTORS_FILE_BYTES {
        bail!(
            "{name}: the file is larger than {} MiB",
            MAX_VECTORS_FILE_BYTES >> 20
        );
    }
    let rows: Vec<Vec<f64>> = serde_json::from_str(&text)
        .with_context(|| format!("{name}: expected a JSON list of numeric vectors"))?;
    drop(text);
    let Some(first) = rows.first() else {
        bail!("{name}: the vector list is empty");
    };
    if rows.len() > MAX_GRAPH_AGENTS {
        bail!(
            "{name}: {} vectors, but the graph takes at most {MAX_GRAPH_AGENTS} agents",
            rows.len()
        );
    }
    let dim = first.len();
    if dim == 0 {
        bail!("{name}: vectors have dimension 0");
    }
    if let Some((i, row)) = rows.iter().enumerate().find(|(_, row)| row.len() != dim) {
        bail!(
            "{name}: ragged vectors: vector 0 has {dim} entries but vector {i} has {}",
            row.len()
        );
    }
    let mut flat = Vec::with_capacity(rows.len() * dim);
    for (i, row) in rows.iter().enumerate() {
        for (j, &x) in row.iter().enumerate() {
            let v = x as f32;
            if !v.is_finite() {
                bail!(
                    "{name}: vector {i}, entry {j}: {x:e} is not a finite 32-bit float \
                     (|x| ≤ {:e})",
                    f32::MAX
                );
            }
            flat.push(v);
        }
    }
    Array2::from_shape_vec((rows.len(), dim), flat).with_context(|| {
        format!(
            "{name}: cannot shape {} vectors of dimension {dim}",
            rows.len()
        )
    })
}

fn plain(g: &Graph) -> String {
    let psi: Vec<String> = g.psi.iter().map(|p| format!("{p:.4}")).collect();
    let edges = |e: &[(usize, usize)]| -> String {
        if e.is_empty() {
            "(none)".to_string()
        } else {
            e.iter()
                .map(|(m, n)| format!("{m}->{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let order: Vec<String> = g.order.iter().map(|o| o.to_string()).collect();
    format!(
        "psi:     [{}]\nedges:   {}\nremoved: {}\norder:   [{}]\nleader:  {}\n",
        psi.join(", "),
        edges(&g.edges),
        edges(&g.removed),
        order.join(", "),
        g.leader
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("colony-selforg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn reads_and_rejects_vectors() {
        let ok = write("ok.json", "[[1, 0.1, 0, 0.2], [0.9, 0.3, 0.1, 0]]");
        let r = read_vectors(&ok).unwrap();
        assert_eq!(r.dim(), (2, 4));
        for (name, text, needle) in [
            ("ragged.json", "[[1, 2], [3]]", "ragged"),
            ("empty.json", "[]", "empty"),
            ("bad.json", "{\"a\": 1}", "expected a JSON list"),
            (
                "huge.json",
                "[[1e308, 0], [0, 1]]",
                "not a finite 32-bit float",
            ),
            ("neg.json", "[[1, 0], [0, -1e39]]", "vector 1, entry 1"),
        ] {
            let p = write(name, text);
            let e = format!("{:#}", read_vectors(&p).unwrap_err());
            assert!(e.contains(needle) && e.contains(name), "{e}");
        }
        let missing = ok.with_file_name("missing.json");
        let e = format!("{:#}", read_vectors(&missing).unwrap_err());
        assert!(
            e.contains("missing.json") && e.contains("cannot read"),
            "{e}"
        );
    }

    #[test]
    fn plain_output() {
        let g = Graph {
            psi: vec![0.5, 0.25],
            edges: vec![(0, 1)],
            order: vec![0, 1],
            leader: 0,
            removed: vec![],
        };
        let t = plain(&g);
        assert!(
            t.contains("edges:   0->1") && t.contains("removed: (none)"),
            "{t}"
        );
    }
}
