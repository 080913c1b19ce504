//! `accelgen list`: the designs and their parameters with defaults.

use clap::Args;

#[derive(Args)]
pub struct ListArgs {}

pub fn run(_args: ListArgs) -> anyhow::Result<u8> {
    print!("{}", render());
    Ok(0)
}

/// The listing: per design a header line, then one aligned line per parameter.
fn render() -> String {
    let designs = generators::designs();
    let rows: Vec<Vec<[String; 3]>> = designs
        .iter()
        .map(|d| {
            d.params
                .iter()
                .map(|p| {
                    let default = p.default.as_ref().map(|v| format!(" = {v}"));
                    [
                        p.name.clone(),
                        format!("{}{}", p.param.type_name(), default.unwrap_or_default()),
                        p.param.doc.to_string(),
                    ]
                })
                .collect()
        })
        .collect();
    let col = |i: usize| rows.iter().flatten().map(|r| r[i].len()).max().unwrap_or(0);
    let (w0, w1) = (col(0), col(1));
    let mut out = String::new();
    for (d, rows) in designs.iter().zip(&rows) {
        out.push_str(&format!("{}: {}\n", d.name, d.description));
        for [name, ty, doc] in rows {
            out.push_str(&format!("  {name:w0$}  {ty:w1$}  {doc}\n"));
        }
        out.push('\n');
    }
    out.push_str("Generate with: accelgen generate <design> [--set name=value ...] -o <dir>\n");
    out
}
