//! The points of a sweep: the product of its axes (the last axis varying fastest), each
//! the base config with one value per axis, validated by the design without building it.

use super::spec::{InvalidPoints, Plan};
use super::SweepError;
use generators::overrides::{dotted, merge};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One design point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub index: usize,
    /// One value per axis of the plan, in the plan's axis order.
    pub values: Vec<toml::Value>,
    /// The overrides: the base config and the axis values.
    pub overrides: toml::Table,
    /// Every parameter of the design at this point, or why the design refuses the point.
    pub params: Result<toml::Table, String>,
}

impl Point {
    /// `name=value` for every axis, for messages and legends.
    pub fn label(&self, plan: &Plan) -> String {
        let parts: Vec<String> = plan
            .axes
            .iter()
            .zip(&self.values)
            .map(|(a, v)| format!("{}={v}", a.name))
            .collect();
        parts.join(", ")
    }
}

/// Every point of `plan`, validated; with `invalid_points = "error"` the first point the
/// design refuses is an error naming the point (`spec` is the spec file, for the error).
pub fn expand(plan: &Plan, spec: &Path) -> Result<Vec<Point>, SweepError> {
    let info = generators::design(&plan.design).map_err(|e| SweepError::Spec {
        spec: spec.to_path_buf(),
        key: "design".into(),
        message: e.to_string(),
    })?;
    let count: usize = plan.axes.iter().map(|a| a.values.len()).product();
    let mut points = Vec::with_capacity(count);
    for index in 0..count {
        let mut rest = index;
        let mut values = vec![toml::Value::Boolean(false); plan.axes.len()];
        for (i, axis) in plan.axes.iter().enumerate().rev() {
            values[i] = axis.values[rest % axis.values.len()].clone();
            rest /= axis.values.len();
        }
        let mut overrides = plan.base.clone();
        for (axis, v) in plan.axes.iter().zip(&values) {
            merge(&mut overrides, dotted(&axis.name, v.clone()));
        }
        let params = info.validate(&overrides).map_err(|e| e.to_string());
        let point = Point {
            index,
            values,
            overrides,
            params,
        };
        if let (Err(e), InvalidPoints::Error) = (&point.params, plan.invalid_points) {
            return Err(SweepError::Spec {
                spec: spec.to_path_buf(),
                key: "axes".into(),
                message: format!(
                    "point {index} ({}): {e} (set invalid_points = \"row\" to record such \
                     points as failed rows instead)",
                    point.label(plan)
                ),
            });
        }
        points.push(point);
    }
    Ok(points)
}
