//! Plots of a sweep's merged results with `plotters`, in SVG and PNG: every numeric
//! metric against every axis, one series per combination of the other axes' values,
//! with axis labels and a legend. Text is drawn with DejaVu Sans, embedded (see
//! `asic-flow/fonts/`), so PNGs need no system font.

use super::spec::Plan;
use super::SweepError;
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;
use std::path::Path;
use std::sync::Once;

type Row = Vec<(String, Value)>;

const SIZE: (u32, u32) = (800, 500);
const FONT: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");

/// One line of a plot: its legend and its (x, y) points.
struct Series {
    label: String,
    points: Vec<(f64, f64)>,
}

/// The x axis: numeric values, or categories placed at 0, 1, 2... with their labels.
struct XAxis {
    name: String,
    categories: Option<Vec<String>>,
}

/// Writes `<metric>-vs-<axis>.svg` and `.png` into `dir` for every numeric metric
/// (a column after the axes) and axis.
pub fn plots(dir: &Path, plan: &Plan, columns: &[String], rows: &[Row]) -> Result<(), SweepError> {
    static FONTS: Once = Once::new();
    FONTS.call_once(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
            .unwrap_or_else(|_| panic!("the embedded font is valid"));
    });
    std::fs::create_dir_all(dir).map_err(|e| SweepError::io(dir, e))?;
    for metric in columns {
        for (a, axis) in plan.axes.iter().enumerate() {
            let categories = axis
                .values
                .iter()
                .any(|v| v.as_integer().is_none() && v.as_float().is_none())
                .then(|| axis.values.iter().map(|v| v.to_string()).collect());
            let x = XAxis {
                name: axis.name.clone(),
                categories,
            };
            let series = series(plan, a, &x, metric, rows);
            if series.iter().all(|s| s.points.is_empty()) {
                continue;
            }
            let base = format!("{metric}-vs-{}", axis.name);
            let svg = dir.join(format!("{base}.svg"));
            let png = dir.join(format!("{base}.png"));
            let fail = |path: &Path| {
                let path = path.to_path_buf();
                move |message: String| SweepError::Plot { path, message }
            };
            let mut text = String::new();
            draw(
                SVGBackend::with_string(&mut text, SIZE).into_drawing_area(),
                metric,
                &x,
                &series,
            )
            .map_err(fail(&svg))?;
            super::write_file(&svg, text.as_bytes())?;
            draw(
                BitMapBackend::new(&png, SIZE).into_drawing_area(),
                metric,
                &x,
                &series,
            )
            .map_err(fail(&png))?;
        }
    }
    Ok(())
}

/// The series of `metric` against axis `a`: rows grouped by their other axes' values.
fn series(plan: &Plan, a: usize, x: &XAxis, metric: &str, rows: &[Row]) -> Vec<Series> {
    let mut out: Vec<Series> = Vec::new();
    for row in rows {
        // Columns: point, then one per axis.
        let value = |i: usize| &row[1 + i].1;
        let others: Vec<String> = plan
            .axes
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != a)
            .map(|(i, ax)| format!("{}={}", ax.name, value(i)))
            .collect();
        let label = if others.is_empty() {
            metric.to_string()
        } else {
            others.join(", ")
        };
        let xv = match &x.categories {
            Some(c) => {
                let label = value(a).to_string();
                c.iter().position(|s| *s == label).map(|i| i as f64)
            }
            None => value(a).as_f64(),
        };
        let yv = row
            .iter()
            .find(|(k, _)| k == metric)
            .and_then(|(_, v)| v.as_f64());
        let i = match out.iter().position(|s| s.label == label) {
            Some(i) => i,
            None => {
                out.push(Series {
                    label,
                    points: vec![],
                });
                out.len() - 1
            }
        };
        if let (Some(xv), Some(yv)) = (xv, yv) {
            out[i].points.push((xv, yv));
        }
    }
    for s in &mut out {
        s.points.sort_by(|p, q| p.0.total_cmp(&q.0));
    }
    out
}

/// `lo..hi` around `values`, padded by 5% (a single value gets a unit of room).
fn range(values: impl Iterator<Item = f64> + Clone) -> std::ops::Range<f64> {
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(f64::NEG_INFINITY, f64::max);
    let pad = if hi > lo {
        (hi - lo) * 0.05
    } else {
        lo.abs().max(1.0) * 0.5
    };
    lo - pad..hi + pad
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    metric: &str,
    x: &XAxis,
    series: &[Series],
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let all = series.iter().flat_map(|s| s.points.iter());
    let xr = range(all.clone().map(|p| p.0));
    let yr = range(all.map(|p| p.1));
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{metric} vs {}", x.name), ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(xr, yr)
        .map_err(e)?;
    let label_x = |v: &f64| match &x.categories {
        Some(c) if (v - v.round()).abs() < 1e-9 && *v >= 0.0 => {
            c.get(v.round() as usize).cloned().unwrap_or_default()
        }
        Some(_) => String::new(),
        None => format!("{v}"),
    };
    chart
        .configure_mesh()
        .x_desc(x.name.as_str())
        .y_desc(metric)
        .x_labels(x.categories.as_ref().map_or(10, |c| c.len() * 4 + 1))
        .x_label_formatter(&label_x)
        .y_label_formatter(&|v| format!("{v}"))
        .draw()
        .map_err(e)?;
    for (i, s) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(s.points.clone(), color.stroke_width(2)))
            .map_err(e)?
            .label(s.label.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(s.points.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(e)?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}
