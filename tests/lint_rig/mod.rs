//! Linting generator blocks on their own: one wrapper module instantiates every shape of
//! a block, each port brought out, so one run of each lint tool checks them all. Each test
//! crate uses what it needs of it.
#![allow(dead_code)]

use asic_flow::lint::{run_all, LintTarget};
use hdl::emit::MAX_LINE;
use hdl::{Design, Module, ModuleBuilder};
use std::rc::Rc;
use std::time::Instant;

/// A top module instantiating every `blocks` module, each port brought out as a top
/// port (`u<i>_<port>`), so that nothing is left unused or undriven.
fn wrapper(blocks: &[Rc<Module>]) -> Rc<Module> {
    let mut m = ModuleBuilder::new("Blocks");
    for (i, block) in blocks.iter().enumerate() {
        let inst = m.instance(&format!("u{i}"), block);
        hdl::helpers::expose(&mut m, &inst, |n| Some(format!("u{i}_{n}")));
    }
    m.finish().expect("the wrapper elaborates")
}

/// Lints one wrapper of `blocks`; returns the seconds taken.
pub fn lint_blocks(group: &str, blocks: &[Rc<Module>]) -> f64 {
    let start = Instant::now();
    lint_design(&Design::new(&wrapper(blocks)), group);
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{group}: {} shapes lint clean in {seconds:.1} s",
        blocks.len()
    );
    seconds
}

/// Lints `design` (single-file Verilog, no line over the bound) with every lint tool.
pub fn lint_design(design: &Design, group: &str) {
    let verilog = hdl::emit::emit(design, &Default::default()).single_file();
    let longest = verilog.lines().map(str::len).max().unwrap_or(0);
    assert!(longest <= MAX_LINE, "{group}: a line of {longest} bytes");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("blocks.v"), verilog).unwrap();
    let target = LintTarget {
        dir: dir.path().to_path_buf(),
        files: vec!["blocks.v".into()],
        top: design.top_name().to_string(),
    };
    let verdicts = run_all(&target).unwrap_or_else(|e| panic!("{e}"));
    let problems: Vec<String> = verdicts
        .iter()
        .filter(|v| !v.clean)
        .map(|v| format!("{group}: {}:\n{}", v.tool, v.output))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
