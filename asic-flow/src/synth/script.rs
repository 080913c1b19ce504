//! The Yosys script of `synth`: generic synthesis keeping the hierarchy, then mapping to
//! the Liberty's cells timing-driven. Yosys 0.23's `abc -liberty` alone maps for area and
//! neither buffers nor sizes (an area-only rocket-default netlist has a 53 ns path through
//! one flop driving 1,141 loads); with `-D` (the delay target) and `-constr` (driving cell
//! and output load) its script ends in `buffer; upsize; dnsize`, so the netlist's Fmax is
//! the design's. The netlist is then made readable by OpenSTA 2019 as in
//! OpenROAD-flow-scripts: constants as tie cells, no `assign` (buffers instead).

use crate::liberty::Library;
use std::fmt::Write;

/// The output load `abc` assumes on every primary output, in fF (OpenROAD-flow-scripts'
/// `ABC_LOAD_IN_FF` for nangate45 is 3.898).
pub const ABC_LOAD_FF: f64 = 4.0;

/// What the script needs; file names are relative to Yosys's working directory (plain
/// names: Yosys's `tee` and friends do not unquote).
pub struct ScriptInput<'a> {
    pub top: &'a str,
    /// SRAM macros the top instantiates: read from their behavioural model but kept as
    /// black boxes.
    pub macros: &'a [String],
    pub liberty: &'a str,
    pub constr: &'a str,
    pub period_ps: u64,
    /// Where the statistics (JSON) before and after mapping and the netlist go.
    pub generic_stat: &'a str,
    pub mapped_stat: &'a str,
    pub netlist: &'a str,
}

/// The `abc -constr` file: the library's smallest buffer drives the inputs.
pub fn abc_constr(lib: &Library) -> Option<String> {
    let (buf, _, _) = lib.buffer()?;
    Some(format!(
        "set_driving_cell {}\nset_load {ABC_LOAD_FF}\n",
        buf.name
    ))
}

/// The Yosys script (the Verilog files are read before it runs).
pub fn script(i: &ScriptInput, lib: &Library) -> String {
    let mut s = String::new();
    // Modules are elaborated by `hierarchy`: only then can they be made black boxes.
    let _ = writeln!(s, "hierarchy -check -top {}", i.top);
    for m in i.macros {
        let _ = writeln!(s, "blackbox {m}");
    }
    let _ = writeln!(s, "synth -top {}", i.top);
    let _ = writeln!(s, "tee -q -o {} stat -json", i.generic_stat);
    let _ = writeln!(s, "dfflibmap -liberty {}", i.liberty);
    let _ = writeln!(
        s,
        "abc -D {} -constr {} -liberty {}",
        i.period_ps, i.constr, i.liberty
    );
    s.push_str("opt_clean -purge\nsetundef -zero\nsplitnets\n");
    if let (Some((hi, hp)), Some((lo, lp))) = (lib.tie("1"), lib.tie("0")) {
        let _ = writeln!(
            s,
            "hilomap -singleton -hicell {} {hp} -locell {} {lp}",
            hi.name, lo.name
        );
    }
    if let Some((buf, a, z)) = lib.buffer() {
        let _ = writeln!(s, "insbuf -buf {} {a} {z}", buf.name);
    }
    s.push_str("opt_clean -purge\n");
    let _ = writeln!(s, "tee -q -o {} stat -json -top {}", i.mapped_stat, i.top);
    let _ = writeln!(
        s,
        "write_verilog -noattr -noexpr -nohex -nodec {}",
        i.netlist
    );
    s
}
