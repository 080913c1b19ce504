//! Emitter properties: structural dedup, deterministic output, SRAM macros, and
//! lint-cleanliness of what the builder can express (checked by the real tools).

use hdl::emit::{emit, EmitOptions};
use hdl::*;
use std::process::Command;
use std::rc::Rc;

/// A bank: a 1R1W synchronous-read memory with a byte-masked write.
fn bank(style: MemStyle) -> Rc<Module> {
    let mut m = ModuleBuilder::new("Bank");
    let raddr = m.input("raddr", 8);
    let ren = m.input("ren", 1);
    let waddr = m.input("waddr", 8);
    let wen = m.input("wen", 1);
    let wdata = m.input("wdata", 128);
    let wmask = m.input("wmask", 16);
    let rdata = m.output("rdata", 128);
    let mem = m.mem("ram", 256, 128, style);
    let rd = m.read_sync(&mem, &raddr, &ren);
    m.when(&wen, |m| m.write_masked(&mem, &waddr, &wdata, &wmask));
    m.connect(&rdata, &rd);
    m.finish().unwrap()
}

/// `banks` banks, each built by its own call (so dedup must find them equal).
fn banked(banks: u32, style: MemStyle) -> Design {
    let mut m = ModuleBuilder::new("Banked");
    let raddr = m.input("raddr", 8);
    let waddr = m.input("waddr", 8);
    let wdata = m.input("wdata", 128);
    let sel = m.input("sel", banks);
    let rdata = m.output("rdata", 128);
    let mut acc = m.lit(0, 128);
    let ones = m.lit(0xffff, 16);
    for i in 0..banks {
        let b = m.instance(&format!("bank{i}"), &bank(style));
        m.connect(&b.port("raddr"), &raddr);
        m.connect(&b.port("ren"), &sel.bit(i));
        m.connect(&b.port("waddr"), &waddr);
        m.connect(&b.port("wen"), &!&sel.bit(i));
        m.connect(&b.port("wdata"), &wdata);
        m.connect(&b.port("wmask"), &ones);
        acc = &acc ^ &b.port("rdata");
    }
    m.connect(&rdata, &acc);
    Design::new(&m.finish().unwrap())
}

fn tool(cmd: &mut Command) -> (bool, String) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?} (scripts/test installs it): {e}"));
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Verilator -Wall, Yosys check and Icarus on the per-module files of `e`.
fn assert_lint_clean(e: &emit::Emitted) {
    let dir = tempfile::tempdir().unwrap();
    let mut vfiles = Vec::new();
    for (name, text) in e.files() {
        std::fs::write(dir.path().join(&name), text).unwrap();
        if name.ends_with(".v") {
            vfiles.push(name);
        }
    }
    let (ok, log) = tool(
        Command::new("verilator")
            .current_dir(dir.path())
            .args(["--lint-only", "-Wall", "--top-module", &e.top])
            .args(&vfiles),
    );
    assert!(ok && log.trim().is_empty(), "verilator -Wall:\n{log}");
    let script = format!(
        "read_verilog {}; hierarchy -check -top {}; proc; check -assert",
        vfiles.join(" "),
        e.top
    );
    let (ok, log) = tool(
        Command::new("yosys")
            .current_dir(dir.path())
            .args(["-q", "-p", &script]),
    );
    assert!(ok, "yosys:\n{log}");
    let (ok, log) = tool(
        Command::new("iverilog")
            .current_dir(dir.path())
            .args(["-g2005", "-o", "/dev/null", "-s", &e.top])
            .args(&vfiles),
    );
    assert!(ok && log.trim().is_empty(), "iverilog:\n{log}");
}

#[test]
fn identical_banks_are_one_definition() {
    let d = banked(16, MemStyle::Inferred);
    let names: Vec<&str> = d.modules().map(|(n, _)| n).collect();
    assert_eq!(names, ["Bank", "Banked"]);
    let e = emit(&d, &EmitOptions::default());
    assert_eq!(e.modules[1].1.matches("  Bank bank").count(), 16);
}

#[test]
fn different_modules_with_one_name_are_numbered() {
    let mk = |w: u32| {
        let mut m = ModuleBuilder::new("Leaf");
        let a = m.input("a", w);
        let y = m.output("y", w);
        m.connect(&y, &!&a);
        m.finish().unwrap()
    };
    let mut m = ModuleBuilder::new("Top");
    let a = m.input("a", 4);
    let y = m.output("y", 8);
    let u = m.instance("narrow", &mk(4));
    let v = m.instance("wide", &mk(8));
    m.connect(&u.port("a"), &a);
    m.connect(&v.port("a"), &a.zext(8));
    m.connect(&y, &(&v.port("y") ^ &u.port("y").zext(8)));
    let d = Design::new(&m.finish().unwrap());
    let mut names: Vec<&str> = d.modules().map(|(n, _)| n).collect();
    names.sort();
    assert_eq!(names, ["Leaf", "Leaf_1", "Top"]);
    assert_lint_clean(&emit(&d, &EmitOptions::default()));
}

#[test]
fn output_is_deterministic() {
    let a = emit(&banked(4, MemStyle::Sram), &EmitOptions::default());
    let b = emit(&banked(4, MemStyle::Sram), &EmitOptions::default());
    assert_eq!(a.files(), b.files());
    assert_eq!(a.single_file(), b.single_file());
}

#[test]
fn sram_macros_are_listed_and_lint_clean() {
    let e = emit(&banked(4, MemStyle::Sram), &EmitOptions::default());
    assert_eq!(e.macros.len(), 1);
    let json = serde_json::to_value(&e.macros).unwrap();
    assert_eq!(
        json,
        serde_json::json!([{
            "name": "sram_256x128_1r1w_m8", "depth": 256, "width": 128,
            "ports": [{"kind": "read"}, {"kind": "write", "mask_gran": 8}]
        }])
    );
    assert!(e.modules[0].1.contains("sram_256x128_1r1w_m8 ram ("));
    assert_lint_clean(&e);
}

#[test]
fn inferred_memories_are_lint_clean() {
    assert_lint_clean(&emit(
        &banked(2, MemStyle::Inferred),
        &EmitOptions::default(),
    ));
    let all = emit(
        &banked(2, MemStyle::Sram),
        &EmitOptions {
            all_inferred: true,
            ..Default::default()
        },
    );
    assert!(all.macros.is_empty());
    assert_lint_clean(&all);
}

#[test]
fn sram_memories_need_synchronous_reads() {
    let mut m = ModuleBuilder::new("M");
    let a = m.input("a", 4);
    let y = m.output("y", 8);
    let mem = m.mem("ram", 16, 8, MemStyle::Sram);
    m.write(&mem, &a, &y);
    let line = line!() + 1;
    let rd = m.read(&mem, &a);
    m.connect(&y, &rd);
    let errs = m.finish().unwrap_err();
    assert_eq!(
        errs.to_string(),
        format!(
            "{}:{line}: invalid parameter at M.ram: SRAM macros have synchronous read ports only; use `read_sync`",
            file!()
        )
    );
}

#[test]
fn bundles_connect_whole_interfaces() {
    // A pass-through of a ready/valid interface: ready flows backwards.
    let shape = Shape::decoupled(Shape::bundle(vec![
        Shape::field("data", Shape::UInt(8)),
        Shape::field("last", Shape::UInt(1)),
    ]));
    let mut c = ModuleBuilder::new("Pass");
    let enq = c.io("enq", Dir::In, &shape);
    let deq = c.io("deq", Dir::Out, &shape);
    c.connect_bundle(&deq, &enq);
    let pass = c.finish().unwrap();
    let mut m = ModuleBuilder::new("Top");
    let enq = m.io("in", Dir::In, &shape);
    let deq = m.io("out", Dir::Out, &shape);
    let u = m.instance("p", &pass);
    m.connect_bundle(&u.io("enq"), &enq);
    m.connect_bundle(&deq, &u.io("deq"));
    let d = Design::new(&m.finish().unwrap());
    let ports: Vec<(String, Dir)> = d
        .top()
        .body
        .ports
        .iter()
        .map(|p| (p.name.clone(), p.dir))
        .collect();
    assert_eq!(
        ports,
        [
            ("in_valid".to_string(), Dir::In),
            ("in_ready".to_string(), Dir::Out),
            ("in_bits_data".to_string(), Dir::In),
            ("in_bits_last".to_string(), Dir::In),
            ("out_valid".to_string(), Dir::Out),
            ("out_ready".to_string(), Dir::In),
            ("out_bits_data".to_string(), Dir::Out),
            ("out_bits_last".to_string(), Dir::Out),
        ]
    );
    let mut s = sim::Sim::new(&d);
    s.poke_u64("in_valid", 1).unwrap();
    s.poke_u64("in_bits_data", 0xa5).unwrap();
    s.poke_u64("out_ready", 1).unwrap();
    assert_eq!(s.peek_u64("out_valid").unwrap(), 1);
    assert_eq!(s.peek_u64("out_bits_data").unwrap(), 0xa5);
    assert_eq!(s.peek_u64("in_ready").unwrap(), 1);
    s.poke_u64("out_ready", 0).unwrap();
    assert_eq!(s.peek_u64("in_ready").unwrap(), 0);
    assert_lint_clean(&emit(&d, &EmitOptions::default()));
}
