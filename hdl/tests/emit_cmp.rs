//! Comparisons whose result is fixed by an extreme constant stay lint-clean.

use hdl::emit::{emit, EmitOptions};
use hdl::*;
use std::process::Command;

#[test]
fn constant_comparisons_are_folded_and_lint_clean() {
    let mut m = ModuleBuilder::new("Cmp");
    let a = m.input("a", 8);
    let y = m.output("y", 8);
    let (zero, max, mid) = (m.lit(0, 8), m.lit(255, 8), m.lit(7, 8));
    let bits = [
        a.le(&max),
        zero.le(&a),
        a.lt(&zero),
        max.lt(&a),
        a.ge(&zero),
        a.gt(&max),
        a.lt(&mid),
        max.le(&a),
    ];
    let refs: Vec<&Value> = bits.iter().collect();
    m.connect(&y, &cat(&refs));
    let d = Design::new(&m.finish().unwrap());
    let text = emit(&d, &EmitOptions::default()).single_file();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cmp.v"), &text).unwrap();
    let out = Command::new("verilator")
        .current_dir(dir.path())
        .args(["--lint-only", "-Wall", "Cmp.v"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut s = sim::Sim::new(&d);
    for v in [0u64, 7, 8, 200, 255] {
        s.poke_u64("a", v).unwrap();
        let expect = [
            v <= 255,
            true,
            false,
            255 < v,
            true,
            v > 255,
            v < 7,
            v == 255,
        ]
        .iter()
        .fold(0u64, |acc, &b| acc << 1 | b as u64);
        assert_eq!(s.peek_u64("y").unwrap(), expect, "a = {v}");
    }
}
