//! The step cache: a step's metrics stored under `DIR/cache/<hash>.json`, the hash (SHA-256)
//! of everything that determines them: the design, its full parameters, the step and its
//! options (a program's bytes included), the versions of the tools the step runs, and the
//! accelgen version. Only successful steps are stored: a failure is retried on a rerun.

use super::{read_json, to_json, write_file, SweepError};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// A step's metrics by name.
pub type Metrics = BTreeMap<String, Value>;

/// What a cache key hashes.
#[derive(Serialize)]
pub struct KeyInput<'a> {
    pub design: &'a str,
    pub params: &'a toml::Table,
    pub step: &'a str,
    pub options: Value,
    pub tools: Vec<String>,
    pub accelgen: &'a str,
}

impl KeyInput<'_> {
    /// The hex SHA-256 of the key's canonical JSON (tables are ordered maps).
    pub fn hash(&self) -> String {
        let json = serde_json::to_string(self).expect("cache keys serialize");
        hex(&Sha256::digest(json.as_bytes()))
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The hex SHA-256 of file `path`.
pub fn file_hash(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(hex(&Sha256::digest(&bytes)))
}

fn entry(dir: &Path, hash: &str) -> PathBuf {
    dir.join("cache").join(format!("{hash}.json"))
}

/// The cached metrics of key `hash` in sweep directory `dir`, if any (an unreadable
/// entry counts as a miss and is rewritten).
pub fn get(dir: &Path, hash: &str) -> Option<Metrics> {
    read_json(&entry(dir, hash)).ok()
}

pub fn put(dir: &Path, hash: &str, metrics: &Metrics) -> Result<(), SweepError> {
    write_file(&entry(dir, hash), to_json(metrics).as_bytes())
}

/// The first line `program args` prints (the tool's version), or `program: missing`;
/// asked once per process.
pub fn tool_version(program: &str, arg: &str) -> String {
    static SEEN: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
    let key = format!("{program} {arg}");
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    seen.entry(key)
        .or_insert_with(|| {
            let out = Command::new(program).arg(arg).output();
            match out {
                Ok(o) => {
                    let text = String::from_utf8_lossy(&o.stdout).into_owned()
                        + &String::from_utf8_lossy(&o.stderr);
                    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                    format!("{program}: {}", line.trim())
                }
                Err(_) => format!("{program}: missing"),
            }
        })
        .clone()
}
