//! A design's parameter overrides from the command line: the `--config` TOML file, then
//! each `--set NAME=VALUE` in order. Tables merge: a later source changes only the
//! parameters it names (`--set hwacha.lanes=4` and `--set 'hwacha={lanes=4}'` both keep
//! the rest of `[hwacha]` as the config file and the defaults have it).

use anyhow::{anyhow, bail, Context};
use generators::overrides::merge;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The parameter flags of `generate` and `sim`.
#[derive(clap::Args)]
pub struct ParamArgs {
    /// TOML file of parameter values (`name = value` lines, `[table]` sections).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Set a parameter to a TOML value, after --config (repeatable). A dotted name
    /// reaches into a table (`hwacha.lanes=4`); an inline table merges into it.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
}

impl ParamArgs {
    /// The overrides these flags give (see [`parameters`]).
    pub fn table(&self) -> anyhow::Result<toml::Table> {
        parameters(self.config.as_deref(), &self.set)
    }
}

/// The largest config file read, in bytes: far above any real configuration, and a bound
/// on what a wrong path (a device, a huge file) can make the tool read.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The parameter overrides: the TOML `config` file, then each `--set`.
pub fn parameters(config: Option<&Path>, set: &[String]) -> anyhow::Result<toml::Table> {
    let mut params = match config {
        Some(path) => read_config(path)?,
        None => toml::Table::new(),
    };
    for s in set {
        merge(&mut params, parse_set(s)?);
    }
    Ok(params)
}

/// Reads a config file: a regular file of at most [`MAX_CONFIG_BYTES`] holding TOML.
fn read_config(path: &Path) -> anyhow::Result<toml::Table> {
    let cannot = || format!("cannot read config file {}", path.display());
    let meta = fs::metadata(path).with_context(cannot)?;
    if meta.is_dir() {
        bail!("config file {} is a directory", path.display());
    }
    if !meta.is_file() {
        bail!(
            "config file {} is not a regular file (a device, pipe or socket)",
            path.display()
        );
    }
    let mut bytes = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes))
        .with_context(cannot)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        bail!(
            "config file {} is larger than {} KiB; it cannot be a parameter file",
            path.display(),
            MAX_CONFIG_BYTES >> 10
        );
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow!("config file {} is not UTF-8 text", path.display()))?;
    text.parse::<toml::Table>()
        .map_err(|e| anyhow!("config file {} is not valid TOML: {e}", path.display()))
}

/// `name=value` as a one-entry table: the value a TOML literal (`8`, `true`, `"text"`,
/// `{lanes = 4}`), the name a TOML key, dotted for a parameter inside a table
/// (`hwacha.lanes`), which becomes nested tables.
fn parse_set(s: &str) -> anyhow::Result<toml::Table> {
    let Some((name, value)) = s.split_once('=') else {
        bail!("--set `{s}`: expected NAME=VALUE");
    };
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() {
        bail!("--set `{s}`: missing parameter name before `=`");
    }
    let literal = format!("v = {value}").parse::<toml::Table>().ok();
    if literal.and_then(|mut t| t.remove("v")).is_none() {
        bail!("--set {name}={value}: `{value}` is not a TOML value (e.g. 8, true, \"text\")");
    }
    format!("{name} = {value}")
        .parse::<toml::Table>()
        .map_err(|_| {
            anyhow!(
                "--set {name}={value}: `{name}` is not a parameter name (e.g. depth, hwacha.lanes)"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(args: &[&str]) -> toml::Table {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parameters(None, &args).unwrap()
    }

    #[test]
    fn dotted_names_and_inline_tables_merge_into_tables() {
        let expected: toml::Table =
            "a = 1\n[hwacha]\nlanes = 4\nseq_entries = 12\n[rocket]\nx = true\n"
                .parse()
                .unwrap();
        let orders: [&[&str]; 3] = [
            &[
                "a=1",
                "hwacha.seq_entries=12",
                "hwacha.lanes=4",
                "rocket.x=true",
            ],
            &[
                "a=1",
                "hwacha={seq_entries=12}",
                "hwacha={lanes=4}",
                "rocket={x=true}",
            ],
            &[
                "hwacha={seq_entries=12, lanes=2}",
                "a=1",
                "hwacha.lanes=4",
                "rocket.x=true",
            ],
        ];
        for args in orders {
            assert_eq!(set(args), expected, "{args:?}");
        }
    }

    #[test]
    fn a_later_scalar_replaces_and_a_bad_name_is_refused() {
        assert_eq!(set(&["depth=4", "depth=8"]), "depth = 8".parse().unwrap());
        let args = vec!["hwacha..lanes=4".to_string()];
        let e = parameters(None, &args).unwrap_err().to_string();
        assert_eq!(
            e,
            "--set hwacha..lanes=4: `hwacha..lanes` is not a parameter name (e.g. depth, hwacha.lanes)"
        );
    }
}
