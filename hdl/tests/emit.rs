//! Emitter properties: structural dedup, deterministic output, SRAM macros, lines no
//! longer than `MAX_LINE` however large the expressions, and lint-cleanliness of what
//! the builder can express (checked by the real tools).

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

/// No line of `e` is longer than `MAX_LINE`.
fn assert_lines_bounded(e: &emit::Emitted) {
    for (name, text) in e.files() {
        for (i, line) in text.lines().enumerate() {
            assert!(
                line.len() <= emit::MAX_LINE,
                "{name}:{}: {} bytes: {}...",
                i + 1,
                line.len(),
                &line[..200.min(line.len())]
            );
        }
    }
}

/// Verilator -Wall, Yosys check and Icarus on the per-module files of `e`, whose lines
/// are all within the bound.
fn assert_lint_clean(e: &emit::Emitted) {
    assert_lines_bounded(e);
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

/// A port keeps the name it was declared with although an instance's wire, a register
/// or an instance already had it: those are renamed instead.
#[test]
fn ports_keep_their_names() {
    let mut leaf = ModuleBuilder::new("Leaf");
    let a = leaf.input("a", 4);
    let y = leaf.output("y", 4);
    leaf.connect(&y, &!&a);
    let leaf = leaf.finish().unwrap();
    let mut m = ModuleBuilder::new("Top");
    let a = m.input("a", 4);
    let u = m.instance("u", &leaf);
    m.connect(&u.port("a"), &a);
    let r = m.reg("r_q", 4, 0u64);
    m.connect(&r, &u.port("y"));
    // `u_y` is the instance's wire, `r_q` the register's, `u` the instance's name.
    for name in ["u_y", "r_q", "u"] {
        let o = m.output(name, 4);
        m.connect(&o, &r);
    }
    let top = m.finish().unwrap();
    let ports: Vec<&str> = top.body.ports.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(ports, ["a", "u_y", "r_q", "u"]);
    let e = emit(&Design::new(&top), &EmitOptions::default());
    assert_lint_clean(&e);
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

/// Term `i`'s 16-bit constant in the long-expression design (a fixed scramble of `i`).
fn scramble(i: u32) -> u64 {
    (u64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 23) & 0xffff
}

/// Terms of `sum`, choices of `pick`, bits of `bits`, and bits and constants of `wide`
/// (as wide as the IR allows).
const TERMS: u32 = 600;
const CHOICES: u32 = 300;
const LIST_BITS: u32 = 600;
const WIDE_BITS: u32 = 4096;
const WIDE_CONSTS: u32 = 4;

/// Bit `j` of `wide`'s constant `c`.
fn wide_bit(c: u32, j: u32) -> bool {
    scramble(c * WIDE_BITS + j / 16) >> (j % 16) & 1 == 1
}

/// One module whose outputs are each one enormous expression: `sum` a 600-term chain of
/// additions, `pick` a 300-deep chain of muxes, `bits` a concatenation of 600 one-bit
/// terms and `wide` the exclusive or of four 4096-bit literals. Inlined as written, each
/// would be one line of 4 to 12 KB (sizes kept small enough for Icarus to simulate fast).
fn enormous() -> Design {
    let mut m = ModuleBuilder::new("Enormous");
    let x = m.input("x", 16);
    let k = m.input("k", 16);
    let sel = m.input("sel", 10);
    let sum = m.output("sum", 16);
    let pick = m.output("pick", 16);
    let bits = m.output("bits", LIST_BITS);
    let wide = m.output("wide", WIDE_BITS);
    let mut acc = m.lit(0, 16);
    for i in 0..TERMS {
        let c = m.lit(scramble(i), 16);
        acc = &acc + &(&x ^ &c);
    }
    m.connect(&sum, &acc);
    let mut acc = k.clone();
    for i in 0..CHOICES {
        let (c, n) = (m.lit(scramble(i), 16), m.lit(u64::from(i), 10));
        acc = sel.eq(&n).mux(&(&x ^ &c), &acc);
    }
    m.connect(&pick, &acc);
    let parts: Vec<Value> = (0..LIST_BITS)
        .map(|j| &x.bit(j % 16) ^ &k.bit(j * 7 % 16))
        .collect();
    m.connect(&bits, &cat(&parts.iter().rev().collect::<Vec<_>>()));
    let mut acc = x.repeat(WIDE_BITS / 16);
    for c in 0..WIDE_CONSTS {
        let words: Vec<u64> = (0..WIDE_BITS / 64)
            .map(|w| (0..64).fold(0, |a, b| a | (u64::from(wide_bit(c, w * 64 + b)) << b)))
            .collect();
        acc = &acc ^ &m.lit_bits(Bits::from_words(WIDE_BITS, &words));
    }
    m.connect(&wide, &acc);
    Design::new(&m.finish().unwrap())
}

/// `width` bits as `$display("%h")` prints them, bit `j` being `bit(j)`.
fn hex(width: u32, bit: impl Fn(u32) -> bool) -> String {
    (0..width.div_ceil(4))
        .rev()
        .map(|d| {
            let v = (0..4).fold(0, |acc, b| {
                let j = d * 4 + b;
                acc | (u32::from(j < width && bit(j)) << b)
            });
            char::from_digit(v, 16).unwrap()
        })
        .collect()
}

/// What `Enormous` outputs for `x`, `k`, `sel`, computed here in plain Rust.
fn enormous_model(x: u64, k: u64, sel: u64) -> String {
    let sum = (0..TERMS).fold(0u64, |acc, i| (acc + (x ^ scramble(i))) & 0xffff);
    let pick = if sel < u64::from(CHOICES) {
        x ^ scramble(sel as u32)
    } else {
        k
    };
    let xb = |j: u32| x >> (j % 16) & 1 == 1;
    let bits = hex(LIST_BITS, |j| xb(j) ^ (k >> (j * 7 % 16) & 1 == 1));
    let wide = hex(WIDE_BITS, |j| {
        (0..WIDE_CONSTS).fold(xb(j), |acc, c| acc ^ wide_bit(c, j))
    });
    format!("{sum:04x} {pick:04x} {bits} {wide}")
}

/// No emitted line is longer than `MAX_LINE`, whatever the design: the chains become
/// named wires of about `EXPR_BUDGET` bytes at most, long lists wrap. The Verilog stays
/// lint clean and deterministic, and Icarus computes what the model does.
#[test]
fn enormous_expressions_keep_lines_short() {
    let e = emit(&enormous(), &EmitOptions::default());
    assert_lines_bounded(&e);
    // The chains are split into named wires, not just wrapped: every statement but the
    // list's is short (a literal of 4096 bits and a name exceed the budget a little).
    let text = &e.modules[0].1;
    for stmt in text.split(';').map(str::trim) {
        assert!(
            stmt.starts_with("assign bits") || stmt.len() <= emit::EXPR_BUDGET + 64,
            "a statement of {} bytes: {}...",
            stmt.len(),
            &stmt[..200.min(stmt.len())]
        );
    }
    assert_eq!(
        e.files(),
        emit(&enormous(), &EmitOptions::default()).files()
    );
    assert_lint_clean(&e);

    let vectors = [
        (0, 0, 0),
        (0xffff, 0x1234, 299),
        (0xbeef, 0xcafe, 300),
        (0x1357, 0x2468, 1023),
        (0x8001, 0x7ffe, 150),
    ];
    let stimulus: String = vectors
        .iter()
        .map(|(x, k, sel)| {
            format!(
                "    x = 16'h{x:x}; k = 16'h{k:x}; sel = 10'd{sel};\n    \
                 #1 $display(\"%h %h %h %h\", sum, pick, bits, wide);\n"
            )
        })
        .collect();
    let tb = format!(
        "module tb;\n  reg [15:0] x, k;\n  reg [9:0] sel;\n  wire [15:0] sum, pick;\n  \
         wire [{}:0] bits;\n  wire [{}:0] wide;\n  Enormous dut(.x(x), .k(k), .sel(sel), \
         .sum(sum), .pick(pick), .bits(bits), .wide(wide));\n  initial begin\n{stimulus}  \
         end\nendmodule\n",
        LIST_BITS - 1,
        WIDE_BITS - 1
    );
    let expected: Vec<String> = vectors
        .iter()
        .map(|&(x, k, sel)| enormous_model(x, k, sel))
        .collect();
    assert_eq!(icarus_run(&e, &tb), expected);
}

/// Runs testbench `tb` (module `tb`) on the design's files with Icarus; its output lines.
fn icarus_run(e: &emit::Emitted, tb: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let mut vfiles = vec!["tb.v".to_string()];
    std::fs::write(dir.path().join("tb.v"), tb).unwrap();
    for (name, text) in e.files() {
        std::fs::write(dir.path().join(&name), text).unwrap();
        if name.ends_with(".v") {
            vfiles.push(name);
        }
    }
    let (ok, log) = tool(
        Command::new("iverilog")
            .current_dir(dir.path())
            .args(["-g2005", "-o", "sim", "-s", "tb"])
            .args(&vfiles),
    );
    assert!(ok, "iverilog:\n{log}");
    let (ok, log) = tool(
        Command::new("vvp")
            .current_dir(dir.path())
            .args(["-n", "sim"]),
    );
    assert!(ok, "vvp:\n{log}");
    log.lines().map(str::to_string).collect()
}

/// A full-width product is one multiply of the operands' real widths, in a wire of the
/// product's width: signed, unsigned, and signed by unsigned (a zero on top of the
/// unsigned factor); an operand that is an expression is named first, so the product's
/// width does not reach into it.
#[test]
fn full_width_products_multiply_the_real_operands() {
    let mut m = ModuleBuilder::new("Products");
    let a = m.input("a", Ty::S(65));
    let b = m.input("b", Ty::S(65));
    let c = m.input("c", 7);
    let d = m.input("d", 9);
    let signed = m.output("signed", Ty::S(130));
    let unsigned = m.output("unsigned", 16);
    let mixed = m.output("mixed", Ty::S(75));
    let sum = m.output("sum", 16);
    m.connect(&signed, &a.mul(&b));
    m.connect(&unsigned, &c.mul(&d));
    m.connect(&mixed, &a.mul(&d.zext(10).as_signed()));
    m.connect(&sum, &(&c + &c).mul(&d));
    let e = emit(&Design::new(&m.finish().unwrap()), &EmitOptions::default());
    let text = &e.modules[0].1;
    for line in [
        "wire [129:0] _GEN_0 = $signed(a) * $signed(b);",
        "wire [15:0] _GEN_1 = c * d;",
        "wire [74:0] _GEN_2 = $signed(a) * $signed({1'b0, d});",
        "wire [6:0] _GEN_3 = c + c;",
        "wire [15:0] _GEN_4 = _GEN_3 * d;",
    ] {
        assert!(text.contains(line), "no `{line}` in:\n{text}");
    }
    assert_lint_clean(&e);
}

/// A 16 x 12-bit ROM preloaded with `words` from `words.hex`, read synchronously.
fn preloaded_rom(words: &[u64]) -> Design {
    let mut m = ModuleBuilder::new("Rom");
    let a = m.input("a", 4);
    let y = m.output("y", 12);
    let mem = m.mem("rom", 16, 12, MemStyle::Inferred);
    m.mem_init(&mem, "words.hex", words.to_vec());
    let en = m.lit(1, 1);
    let rd = m.read_sync(&mem, &a, &en);
    m.connect(&y, &rd);
    Design::new(&m.finish().unwrap())
}

/// The words a bench reads from every address of `rom` on `clock` edges, as printed.
const ROM_BENCH: &str = "module tb; reg clock = 0, reset = 0; reg [3:0] a = 0; wire [11:0] y;\n\
    integer i; Rom dut(.clock(clock), .reset(reset), .a(a), .y(y));\n\
    initial begin for (i = 0; i < 16; i = i + 1) begin a = i; #1 clock = 1; #1 clock = 0;\n\
    $display(\"%0d\", y); end $finish; end endmodule\n";

/// A preloaded memory's contents reach a simulator: Icarus, running a bench that reads
/// every word of the emitted ROM with the emitted hex file beside it, prints the words
/// given to the builder (the zeroing `sim_mem_init` block gives way to the file), and
/// so does the IR simulator.
#[test]
fn memories_load_their_init_file() {
    let words: Vec<u64> = (0..13).map(|i| scramble(i) & 0xfff).collect();
    let mut expected = words.clone();
    expected.resize(16, 0);
    let design = preloaded_rom(&words);
    let e = emit(
        &design,
        &EmitOptions {
            sim_mem_init: true,
            ..Default::default()
        },
    );
    assert_eq!(e.init_files.len(), 1);
    assert_lint_clean(&e);
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in e.files() {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    std::fs::write(dir.path().join("tb.v"), ROM_BENCH).unwrap();
    let (ok, log) = tool(
        Command::new("iverilog")
            .current_dir(dir.path())
            .args(["-g2005", "-o", "tb.vvp", "-s", "tb", "tb.v", "Rom.v"]),
    );
    assert!(ok, "iverilog:\n{log}");
    let (ok, log) = tool(
        Command::new("vvp")
            .current_dir(dir.path())
            .args(["-n", "tb.vvp"]),
    );
    assert!(ok, "vvp:\n{log}");
    let read: Vec<u64> = log.lines().map(|v| v.trim().parse().unwrap()).collect();
    assert_eq!(read, expected, "{log}");
    let mut sim = hdl::sim::Sim::new(&design);
    let ir: Vec<u64> = (0..16)
        .map(|i| {
            sim.poke_u64("a", i).unwrap();
            sim.step();
            sim.peek_u64("y").unwrap()
        })
        .collect();
    assert_eq!(ir, expected);
}

#[test]
fn bad_preloads_are_errors() {
    for (style, file, words, message) in [
        (
            MemStyle::Sram,
            "x.hex",
            vec![1],
            "SRAM macros cannot be preloaded",
        ),
        (MemStyle::Inferred, "a\"b.hex", vec![1], "init file name"),
        (MemStyle::Inferred, "x.hex", vec![0x100], "do not fit"),
        (MemStyle::Inferred, "x.hex", vec![0; 17], "do not fit"),
    ] {
        let mut m = ModuleBuilder::new("M");
        let mem = m.mem("ram", 16, 8, style);
        m.mem_init(&mem, file, words);
        let errs = m.finish().unwrap_err().to_string();
        assert!(errs.contains(message), "{errs}");
    }
}

/// Registers without reset: no reset branch (with and without enable), the module's
/// `reset` unused when nothing else takes it, lint clean.
#[test]
fn registers_without_reset_have_no_reset_branch() {
    let mut m = ModuleBuilder::new("NoReset");
    let d = m.input("d", 8);
    let en = m.input("en", 1);
    let q = m.reg("q", 8, ResetValue::None);
    let qe = m.reg_en("qe", 8, ResetValue::None, &en);
    m.connect(&q, &d);
    m.connect(&qe, &q);
    let o = m.output("o", 8);
    m.connect(&o, &qe);
    let e = emit::emit(
        &Design::new(&m.finish().unwrap()),
        &emit::EmitOptions::default(),
    );
    let v = e.single_file();
    assert!(v.contains("always @(posedge clock) q <= d;"), "{v}");
    assert!(
        v.contains("always @(posedge clock) if (en) qe <= q;"),
        "{v}"
    );
    assert!(!v.contains("if (reset)"), "{v}");
    assert_lint_clean(&e);
}
