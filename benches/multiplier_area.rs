//! Cell area and logic depth of the multiplier generator (`generators::arith`) next to a
//! plain `*`, and of the Hwacha lane's IMul, synthesized by Yosys (`synth`, then
//! `abc -liberty` and `dfflibmap` on nangate45, `/work/shared/pdk/nangate45_typ.lib.gz`
//! or `$ACCELGEN_LIBERTY`). Depth is the longest path in cells between registers and
//! ports (`ltp -noff` after mapping). Prints a table; asserts nothing.
//! `ACCELGEN_BENCH_FILTER=65x65` runs the rows whose name contains it. The plain `*` of
//! 64 and 65 bits takes Yosys 0.23 over half an hour (it expands a signed product to an
//! array of the product's width): those rows run with `ACCELGEN_LONG=1` only.

use generators::arith::{multiplier::plan, multiplier_module, MultiplierParams};
use generators::hwacha::lane::imul::imul;
use generators::hwacha::params::HwachaParams;
use hdl::{Design, Module, ModuleBuilder, Ty};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use std::time::Instant;

/// Area in um^2 and depth in cells of `top` after synthesis with `liberty`.
fn synthesize(top: &Rc<Module>, liberty: &Path, dir: &Path) -> Result<(f64, u32), String> {
    let design = Design::new(top);
    let emitted = hdl::emit::emit(&design, &Default::default());
    let name = emitted.top.clone();
    let verilog = dir.join(format!("{name}.v"));
    std::fs::write(&verilog, emitted.single_file()).map_err(|e| e.to_string())?;
    let lib = liberty.display();
    let script = format!(
        "read_liberty -lib {lib}; read_verilog {}; synth -top {name}; \
         abc -liberty {lib}; opt_clean; ltp -noff; dfflibmap -liberty {lib}; \
         opt_clean; stat -liberty {lib}",
        verilog.display()
    );
    let out = Command::new("yosys")
        .args(["-q", "-p", &script, "-l"])
        .arg(dir.join(format!("{name}.log")))
        .output()
        .map_err(|e| format!("yosys: {e}"))?;
    let log = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap_or_default();
    if !out.status.success() {
        return Err(format!(
            "yosys failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let area = log
        .lines()
        .filter_map(|l| l.split("Chip area for module").nth(1))
        .filter_map(|r| r.rsplit(':').next()?.trim().parse::<f64>().ok())
        .next_back()
        .ok_or("no area in the log")?;
    let depth = log
        .lines()
        .filter_map(|l| l.split("(length=").nth(1))
        .filter_map(|r| r.trim_end_matches("):").parse::<u32>().ok())
        .next_back()
        .ok_or("no longest path in the log")?;
    Ok((area, depth))
}

/// `a * b` by the IR's `*` (the emitter writes one multiply of the operands' widths).
fn plain(p: &MultiplierParams) -> Rc<Module> {
    let ty = |w, s| if s { Ty::S(w) } else { Ty::U(w) };
    let mut m = ModuleBuilder::new("Plain");
    let a = m.input("a", ty(p.a_width, p.a_signed));
    let b = m.input("b", ty(p.b_width, p.b_signed));
    // The IR multiplies operands of one signedness: an unsigned one beside a signed one
    // gets a zero on top.
    let signed = p.a_signed || p.b_signed;
    let fit = |v: &hdl::Value| match (signed, v.is_signed()) {
        (true, false) => v.zext(v.width() + 1).as_signed(),
        _ => v.clone(),
    };
    let product = fit(&a).mul(&fit(&b));
    let out = m.output("p", ty(p.a_width + p.b_width, signed));
    m.connect(&out, &product.trunc(p.a_width + p.b_width));
    m.finish().expect("plain multiplier")
}

fn liberty(dir: &Path) -> PathBuf {
    let gz = std::env::var_os("ACCELGEN_LIBERTY")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/pdk/nangate45_typ.lib.gz"));
    if gz.extension().is_none_or(|e| e != "gz") {
        return gz;
    }
    let out = Command::new("gzip")
        .arg("-dc")
        .arg(&gz)
        .output()
        .expect("gzip");
    let lib = dir.join("cells.lib");
    std::fs::write(&lib, out.stdout).expect("write liberty");
    lib
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lib = liberty(dir.path());
    let filter = std::env::var("ACCELGEN_BENCH_FILTER").unwrap_or_default();
    let shapes = [
        (16, false),
        (24, false),
        (32, true),
        (53, false),
        (64, true),
        (65, true),
    ];
    println!(
        "{:<28} {:>11} {:>6} {:>10} {:>9}",
        "design", "area um^2", "depth", "model dep", "reg bits"
    );
    let mut rows: Vec<(String, Rc<Module>, String)> = Vec::new();
    for (w, signed) in shapes {
        let s = if signed { "s" } else { "u" };
        let long = std::env::var_os("ACCELGEN_LONG").is_some();
        let plain_row = (w <= 53 || long).then_some(None);
        for stages in plain_row.into_iter().chain([Some(0), Some(2), Some(3)]) {
            let p = MultiplierParams {
                a_width: w,
                b_width: w,
                a_signed: signed,
                b_signed: signed,
                stages: stages.unwrap_or(0),
            };
            let (name, top, model) = match stages {
                None => (format!("{w}x{w}{s} plain *"), plain(&p), String::new()),
                Some(k) => {
                    let pl = plan((w, signed), (w, signed), k);
                    let model = format!("{:>10} {:>9}", pl.depth, pl.register_bits);
                    let top = multiplier_module(&p).expect("valid");
                    (format!("{w}x{w}{s} booth, {k} stages"), top, model)
                }
            };
            rows.push((name, top, model));
        }
    }
    let lane = HwachaParams::default();
    rows.push((
        format!("hwacha IMul, {} stages", lane.stages_imul),
        imul(&lane).expect("IMul"),
        String::new(),
    ));
    for (name, top, model) in rows.into_iter().filter(|r| r.0.contains(&filter)) {
        let start = Instant::now();
        match synthesize(&top, &lib, dir.path()) {
            Ok((area, depth)) => println!(
                "{name:<28} {area:>11.0} {depth:>6} {model}   ({:.0} s)",
                start.elapsed().as_secs_f64()
            ),
            Err(e) => println!("{name:<28} {e}"),
        }
    }
}
