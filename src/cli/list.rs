//! `accelgen list [DESIGN] [--json]`: the designs and their parameters (nested ones by
//! dotted name) with type, default, accepted values and meaning, as a table that fits
//! 100 columns or as JSON for tools (schema in the README).

use clap::Args;
use generators::schema::Kind;
use generators::{DesignInfo, ParamInfo};
use serde::Serialize;

#[derive(Args)]
pub struct ListArgs {
    /// Only this design.
    design: Option<String>,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: ListArgs) -> anyhow::Result<u8> {
    let designs = match &args.design {
        Some(name) => vec![generators::design(name)?],
        None => generators::designs(),
    };
    if args.json {
        let list = JsonList {
            designs: designs.iter().map(JsonDesign::of).collect(),
        };
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        print!("{}", render(&designs));
    }
    Ok(0)
}

/// The table's width in columns.
const WIDTH: usize = 100;
/// Descriptions narrower than this go under their rows, from `STACKED_DOC_COLUMN`.
const MIN_DOC_WIDTH: usize = 30;
const STACKED_DOC_COLUMN: usize = 6;

fn push_line(out: &mut String, line: &str) {
    out.push_str(line.trim_end());
    out.push('\n');
}

/// Per design a header line, then a table of its parameters with the descriptions
/// wrapped to fit `WIDTH` columns.
fn render(designs: &[DesignInfo]) -> String {
    let mut out = String::new();
    for d in designs {
        let title = wrap(&format!("{}: {}", d.name, d.description), WIDTH - 2);
        for (i, line) in title.iter().enumerate() {
            let indent = if i == 0 { "" } else { "  " };
            out.push_str(&format!("{indent}{line}\n"));
        }
        let header = ["NAME", "TYPE", "DEFAULT", "RANGE"].map(String::from);
        let mut rows = vec![(header, "DESCRIPTION")];
        rows.extend(d.params.iter().map(|p| (cells(p), p.param.doc)));
        let widths: Vec<usize> = (0..4)
            .map(|i| {
                rows.iter()
                    .map(|(c, _)| c[i].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // The description in a column of its own, or under its row if that would be
        // narrower than MIN_DOC_WIDTH.
        let mut doc_column = 2 + widths.iter().map(|w| w + 2).sum::<usize>();
        let beside = WIDTH.saturating_sub(doc_column) >= MIN_DOC_WIDTH;
        if !beside {
            doc_column = STACKED_DOC_COLUMN;
        }
        for (cells, doc) in rows {
            let mut line = String::from("  ");
            for (cell, w) in cells.iter().zip(&widths) {
                line.push_str(&format!("{cell:w$}  "));
            }
            if !beside {
                push_line(&mut out, &line);
                line = " ".repeat(doc_column);
            }
            for part in wrap(doc, WIDTH - doc_column) {
                line.push_str(&part);
                push_line(&mut out, &line);
                line = " ".repeat(doc_column);
            }
        }
        out.push('\n');
    }
    out.push_str("Generate with: accelgen generate <design> [--set name=value ...] -o <dir>\n");
    out
}

/// Name, type, default (a TOML literal, addresses in hexadecimal) and accepted values.
fn cells(p: &ParamInfo) -> [String; 4] {
    let default = match (&p.default, &p.param.kind) {
        (Some(toml::Value::Integer(v)), Kind::Integer { hex: true, .. }) => format!("{v:#x}"),
        (Some(v), _) => v.to_string(),
        (None, _) => String::new(),
    };
    [
        p.name.clone(),
        p.param.type_name().to_string(),
        default,
        p.param.range(),
    ]
}

/// `text` in lines of at most `width` columns, broken between words (a longer word gets
/// a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

/// `accelgen list --json`.
#[derive(Serialize)]
struct JsonList<'a> {
    designs: Vec<JsonDesign<'a>>,
}

#[derive(Serialize)]
struct JsonDesign<'a> {
    name: &'a str,
    description: &'a str,
    parameters: Vec<JsonParam<'a>>,
}

/// One parameter; which optional fields are present depends on `type`.
#[derive(Serialize)]
struct JsonParam<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    default: Option<&'a toml::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    power_of_two: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    choices: Option<&'static [&'static str]>,
    description: &'static str,
}

impl<'a> JsonDesign<'a> {
    fn of(d: &'a DesignInfo) -> JsonDesign<'a> {
        JsonDesign {
            name: d.name,
            description: d.description,
            parameters: d.params.iter().map(JsonParam::of).collect(),
        }
    }
}

impl<'a> JsonParam<'a> {
    fn of(p: &'a ParamInfo) -> JsonParam<'a> {
        let mut j = JsonParam {
            name: &p.name,
            ty: p.param.type_name(),
            default: p.default.as_ref(),
            min: None,
            max: None,
            power_of_two: None,
            choices: None,
            description: p.param.doc,
        };
        match p.param.kind {
            Kind::Integer { min, max, pow2, .. } => {
                (j.min, j.max, j.power_of_two) = (Some(min), Some(max), Some(pow2));
            }
            Kind::Choice(choices) => j.choices = Some(choices),
            Kind::Boolean | Kind::Table(_) => {}
        }
        j
    }
}
