//! `accelgen generate`: elaborate a design and write its Verilog, SRAM macro list and
//! manifest. Everything is built in memory and written to a temporary directory next to
//! the destination, then renamed into place, so a failure never leaves partial output.

use anyhow::{anyhow, bail, Context};
use clap::Args;
use generators::output::{render, OutputOptions};
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct GenerateArgs {
    /// Design to generate (see `accelgen list`).
    design: String,
    /// TOML file of parameter values (`name = value` lines).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Set a parameter to a TOML value, overriding --config (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Output directory; replaced if it holds earlier output of `accelgen generate`.
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// Write all modules into one `<top>.v`.
    #[arg(long)]
    single_file: bool,
    /// Emit every memory as an inferred array instead of SRAM macros (e.g. for FPGAs).
    #[arg(long)]
    all_inferred: bool,
}

pub fn run(args: GenerateArgs) -> anyhow::Result<u8> {
    let params = parameters(args.config.as_deref(), &args.set)?;
    let opts = OutputOptions {
        single_file: args.single_file,
        all_inferred: args.all_inferred,
    };
    let out = render(&args.design, &params, &opts)?;
    write_atomically(&args.output, &out.files)?;
    println!(
        "{}: wrote {} files (top module {}) to {}",
        args.design,
        out.files.len(),
        out.top,
        args.output.display()
    );
    Ok(0)
}

/// The parameter overrides of a design: the TOML `config` file, then each `--set`.
pub(crate) fn parameters(config: Option<&Path>, set: &[String]) -> anyhow::Result<toml::Table> {
    let mut params = match config {
        Some(path) => read_config(path)?,
        None => toml::Table::new(),
    };
    for s in set {
        let (name, value) = parse_set(s)?;
        params.insert(name, value);
    }
    Ok(params)
}

fn read_config(path: &Path) -> anyhow::Result<toml::Table> {
    let text = fs::read_to_string(path)
        .with_context(|| format!("cannot read config file {}", path.display()))?;
    text.parse::<toml::Table>()
        .map_err(|e| anyhow!("config file {} is not valid TOML: {e}", path.display()))
}

/// `name=value`, the value a TOML literal (`8`, `true`, `"text"`).
fn parse_set(s: &str) -> anyhow::Result<(String, toml::Value)> {
    let Some((name, value)) = s.split_once('=') else {
        bail!("--set `{s}`: expected NAME=VALUE");
    };
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() {
        bail!("--set `{s}`: missing parameter name before `=`");
    }
    let parsed = format!("v = {value}").parse::<toml::Table>().ok();
    match parsed.and_then(|mut t| t.remove("v")) {
        Some(v) => Ok((name.to_string(), v)),
        None => {
            bail!("--set {name}={value}: `{value}` is not a TOML value (e.g. 8, true, \"text\")")
        }
    }
}

/// Writes `files` as directory `dest`, all or nothing. An existing `dest` is replaced only
/// if it is empty or earlier generator output (has `manifest.json`).
fn write_atomically(dest: &Path, files: &[(String, String)]) -> anyhow::Result<()> {
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let replacing = match fs::metadata(dest) {
        Ok(m) if !m.is_dir() => bail!("output {} exists and is not a directory", dest.display()),
        Ok(_) => {
            let empty = fs::read_dir(dest)
                .with_context(|| format!("cannot read output directory {}", dest.display()))?
                .next()
                .is_none();
            if !empty && !dest.join("manifest.json").is_file() {
                bail!(
                    "output directory {} is not empty and holds no earlier accelgen output \
                     (manifest.json); refusing to overwrite it",
                    dest.display()
                );
            }
            true
        }
        Err(_) => false,
    };
    fs::create_dir_all(parent)
        .with_context(|| format!("cannot create output directory {}", parent.display()))?;
    let staged = tempfile::Builder::new()
        .prefix(".accelgen-")
        .tempdir_in(parent)
        .with_context(|| format!("cannot write into {}", parent.display()))?;
    for (name, text) in files {
        let path = staged.path().join(name);
        fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    // Temporary directories are private; the output is an ordinary directory.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(staged.path(), fs::Permissions::from_mode(0o755))?;
    }
    let cannot_replace = |e| anyhow!("cannot replace {}: {e}", dest.display());
    if replacing {
        // Moved aside rather than deleted first, so a failed rename can be undone.
        let old = tempfile::Builder::new()
            .prefix(".accelgen-old-")
            .tempdir_in(parent)
            .map_err(cannot_replace)?;
        let aside = old.path().join("previous");
        fs::rename(dest, &aside).map_err(cannot_replace)?;
        if let Err(e) = fs::rename(staged.path(), dest) {
            let _ = fs::rename(&aside, dest);
            return Err(cannot_replace(e));
        }
    } else {
        fs::rename(staged.path(), dest).map_err(cannot_replace)?;
    }
    // The staging directory is now `dest`; keep it from being cleaned up.
    let _ = staged.keep();
    Ok(())
}
