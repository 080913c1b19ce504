//! Point results and the merged outputs: each point's `results/<i>.json` (written by a
//! local worker or a Slurm array task) merged into `results.csv` and `results.jsonl`, one
//! row per point in point order: the axis values, then `step.metric` columns (steps in
//! spec order, metrics by name), then `error` (the failed step and its message; later
//! steps are skipped). Same results, byte-identical files.

use super::cache::Metrics;
use super::spec::Plan;
use super::{plot, read_json, write_file, SweepError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    Ok,
    Failed,
    /// Not run: an earlier step of the point failed.
    Skipped,
}

/// One step's outcome at one point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub step: String,
    pub status: StepStatus,
    pub metrics: Metrics,
    pub error: Option<String>,
    /// Taken from the cache (not part of the merged outputs).
    pub cached: bool,
}

impl StepRecord {
    pub fn ok(step: &str, metrics: Metrics, cached: bool) -> StepRecord {
        StepRecord {
            step: step.into(),
            status: StepStatus::Ok,
            metrics,
            error: None,
            cached,
        }
    }

    pub fn failed(step: &str, error: String) -> StepRecord {
        StepRecord {
            step: step.into(),
            status: StepStatus::Failed,
            metrics: Metrics::new(),
            error: Some(error),
            cached: false,
        }
    }

    pub fn skipped(step: &str) -> StepRecord {
        StepRecord {
            step: step.into(),
            status: StepStatus::Skipped,
            metrics: Metrics::new(),
            error: None,
            cached: false,
        }
    }
}

/// Every step's outcome at one point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    pub index: usize,
    /// The point's value on each axis.
    pub values: Vec<toml::Value>,
    pub steps: Vec<StepRecord>,
}

impl PointResult {
    /// `step: message` of the failed step, if one failed.
    pub fn error(&self) -> Option<String> {
        self.steps.iter().find_map(|s| {
            s.error
                .as_ref()
                .map(|e| format!("{}: {}", s.step, e.replace('\n', " ")))
        })
    }
}

/// What a merge found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    pub points: usize,
    pub failed: usize,
    /// Points without a result file yet (pending, running or lost); not in `failed`.
    pub missing: usize,
}

/// One merged row: column name and value, in column order.
type Row = Vec<(String, Value)>;

/// The plan of sweep directory `dir` and every point's result (a point without a result
/// file is a failed row saying so), with counts.
fn gather(dir: &Path) -> Result<(Plan, Vec<PointResult>, Summary), SweepError> {
    let (plan, points) = super::dir::load(dir)?;
    let mut summary = Summary {
        points: points.len(),
        failed: 0,
        missing: 0,
    };
    let results: Vec<PointResult> = points
        .iter()
        .map(|p| {
            let path = dir.join("results").join(format!("{}.json", p.index));
            read_json(&path).unwrap_or_else(|_| {
                summary.missing += 1;
                PointResult {
                    index: p.index,
                    values: p.values.clone(),
                    steps: vec![StepRecord::failed(
                        "sweep",
                        "no result (pending or lost)".into(),
                    )],
                }
            })
        })
        .collect();
    summary.failed = results.iter().filter(|r| r.error().is_some()).count() - summary.missing;
    Ok((plan, results, summary))
}

/// The counts of sweep directory `dir`'s result files, without merging them.
pub fn status(dir: &Path) -> Result<Summary, SweepError> {
    gather(dir).map(|(_, _, summary)| summary)
}

/// Merges the result files of sweep directory `dir` into `results.csv`,
/// `results.jsonl` and `plots/`.
pub fn collect(dir: &Path) -> Result<Summary, SweepError> {
    let (plan, results, summary) = gather(dir)?;
    let columns = columns(&plan, &results);
    let rows: Vec<Row> = results.iter().map(|r| row(&plan, &columns, r)).collect();
    write_file(&dir.join("results.csv"), &csv(&columns, &rows)?)?;
    write_file(&dir.join("results.jsonl"), jsonl(&rows).as_bytes())?;
    plot::plots(&dir.join("plots"), &plan, &columns, &rows)?;
    Ok(summary)
}

/// The metric columns: `step.metric` for every metric any point reported, steps in plan
/// order, metrics by name.
fn columns(plan: &Plan, results: &[PointResult]) -> Vec<String> {
    let mut cols = Vec::new();
    for step in &plan.steps {
        let mut names: Vec<&String> = results
            .iter()
            .flat_map(|r| r.steps.iter().filter(|s| s.step == step.name()))
            .flat_map(|s| s.metrics.keys())
            .collect();
        names.sort();
        names.dedup();
        cols.extend(names.into_iter().map(|m| format!("{}.{m}", step.name())));
    }
    cols
}

fn row(plan: &Plan, columns: &[String], r: &PointResult) -> Row {
    let mut row: Row = vec![("point".into(), Value::from(r.index))];
    for (axis, v) in plan.axes.iter().zip(&r.values) {
        row.push((
            axis.name.clone(),
            serde_json::to_value(v).unwrap_or(Value::Null),
        ));
    }
    for col in columns {
        let (step, metric) = col.split_once('.').expect("columns are step.metric");
        let v = r
            .steps
            .iter()
            .find(|s| s.step == step)
            .and_then(|s| s.metrics.get(metric))
            .cloned()
            .unwrap_or(Value::Null);
        row.push((col.clone(), v));
    }
    row.push((
        "error".into(),
        r.error().map(Value::from).unwrap_or(Value::Null),
    ));
    row
}

fn csv(columns: &[String], rows: &[Row]) -> Result<Vec<u8>, SweepError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let header = rows
        .first()
        .map(|r| r.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_else(|| columns.to_vec());
    let fail = |e: csv::Error| SweepError::io(Path::new("results.csv"), e);
    w.write_record(&header).map_err(fail)?;
    for r in rows {
        w.write_record(r.iter().map(|(_, v)| cell(v)))
            .map_err(fail)?;
    }
    w.into_inner()
        .map_err(|e| SweepError::io(Path::new("results.csv"), e))
}

/// A CSV cell: strings bare, missing values empty, other values as JSON writes them.
fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One JSON object per row, keys in column order.
fn jsonl(rows: &[Row]) -> String {
    let mut out = String::new();
    for r in rows {
        let fields: Vec<String> = r
            .iter()
            .map(|(k, v)| format!("{}:{v}", Value::from(k.as_str())))
            .collect();
        out.push('{');
        out.push_str(&fields.join(","));
        out.push_str("}\n");
    }
    out
}
