//! Every elaboration check, with the exact error it must produce (kind, hierarchical
//! signal, the Rust line that built the hardware, message).

use hdl::*;

/// The one error of a failed elaboration, rendered.
fn only_error(r: Result<std::rc::Rc<Module>, HdlErrors>) -> String {
    match r {
        Ok(_) => panic!("elaboration succeeded"),
        Err(HdlErrors(errs)) => {
            assert_eq!(errs.len(), 1, "expected one error, got: {errs:#?}");
            errs[0].to_string()
        }
    }
}

/// Module `C`: a 2-bit input `i` wired combinationally to output `o`.
fn wire_through() -> std::rc::Rc<Module> {
    let mut c = ModuleBuilder::new("C");
    let ci = c.input("i", 2);
    let co = c.output("o", 2);
    c.connect(&co, &!&ci);
    c.finish().unwrap()
}

fn at(line: u32) -> String {
    format!("{}:{line}", file!())
}

#[test]
fn width_mismatch_in_an_operator() {
    let mut m = ModuleBuilder::new("M");
    let a = m.input("a", 8);
    let b = m.input("b", 9);
    let y = m.output("y", 8);
    let line = line!() + 1;
    let s = &a + &b;
    m.connect(&y, &s);
    assert_eq!(
        only_error(m.finish()),
        format!(
            "{}: width mismatch at M: operands of `+` are `a` (8 bits) and `b` (9 bits)",
            at(line)
        )
    );
}

#[test]
fn width_mismatch_in_a_connection() {
    let mut m = ModuleBuilder::new("M");
    let a = m.input("a", 8);
    let y = m.output("y", 9);
    let line = line!() + 1;
    m.connect(&y, &a);
    assert_eq!(
        only_error(m.finish()),
        format!(
            "{}: width mismatch at M.y: connecting a 8-bit `a` to 9-bit `y`",
            at(line)
        )
    );
}

#[test]
fn signedness_mismatch() {
    let mut m = ModuleBuilder::new("M");
    let a = m.input("a", Ty::S(4));
    let b = m.input("b", 4);
    let y = m.output("y", 1);
    let line = line!() + 1;
    let lt = a.lt(&b);
    m.connect(&y, &lt);
    assert_eq!(
        only_error(m.finish()),
        format!(
            "{}: type mismatch at M: operands of `<` mix signed and unsigned: `a` and `b`",
            at(line)
        )
    );
}

#[test]
fn undriven_output_and_wire() {
    let mut m = ModuleBuilder::new("M");
    let line = line!() + 1;
    let _y = m.output("y", 3);
    assert_eq!(
        only_error(m.finish()),
        format!("{}: undriven at M.y: output `y` is never driven", at(line))
    );

    let mut m = ModuleBuilder::new("M");
    let y = m.output("y", 3);
    let line = line!() + 1;
    let w = m.wire("w", 3);
    m.connect(&y, &w);
    assert_eq!(
        only_error(m.finish()),
        format!("{}: undriven at M.w: wire `w` is never driven", at(line))
    );
}

#[test]
fn driven_only_under_a_condition() {
    let mut m = ModuleBuilder::new("M");
    let c = m.input("c", 1);
    let a = m.input("a", 4);
    let line = line!() + 1;
    let y = m.output("y", 4);
    m.when(&c, |m| m.connect(&y, &a));
    assert_eq!(
        only_error(m.finish()),
        format!(
            "{}: undriven at M.y: `y` is driven only under some conditions",
            at(line)
        )
    );
}

#[test]
fn full_when_chain_is_driven() {
    let mut m = ModuleBuilder::new("M");
    let c = m.input("c", 2);
    let a = m.input("a", 4);
    let y = m.output("y", 4);
    let one = m.lit(1, 2);
    let two = m.lit(2, 2);
    let k = m.lit(9, 4);
    m.when(&c.eq(&one), |m| m.connect(&y, &a))
        .elsewhen(&c.eq(&two), |m| m.connect(&y, &!&a))
        .otherwise(|m| m.connect(&y, &k));
    let d = Design::new(&m.finish().expect("fully driven"));
    let mut s = sim::Sim::new(&d);
    for (cv, expect) in [(0u64, 9u64), (1, 5), (2, 10), (3, 9)] {
        s.poke_u64("c", cv).unwrap();
        s.poke_u64("a", 5).unwrap();
        assert_eq!(s.peek_u64("y").unwrap(), expect, "c = {cv}");
    }
}

#[test]
fn driving_an_input_is_a_multiple_driver() {
    let mut m = ModuleBuilder::new("M");
    let a = m.input("a", 4);
    let b = m.input("b", 4);
    let y = m.output("y", 4);
    m.connect(&y, &b);
    let line = line!() + 1;
    m.connect(&a, &b);
    assert_eq!(
        only_error(m.finish()),
        format!(
            "{}: multiple drivers at M.a: `a` is an input port, already driven",
            at(line)
        )
    );
}

#[test]
fn driving_an_instance_output_is_a_multiple_driver() {
    let child = wire_through();
    let mut m = ModuleBuilder::new("M");
    let a = m.input("a", 2);
    let u = m.instance("u", &child);
    m.connect(&u.port("i"), &a);
    let line = line!() + 1;
    m.connect(&u.port("o"), &a);
    assert_eq!(
        only_error(m.finish()),
        format!(
            "{}: multiple drivers at M.u_o: `u_o` is an instance output, already driven",
            at(line)
        )
    );
}

#[test]
fn combinational_loop_in_a_module() {
    let mut m = ModuleBuilder::new("M");
    let y = m.output("y", 4);
    let line = line!() + 1;
    let w1 = m.wire("w1", 4);
    let w2 = m.wire("w2", 4);
    m.connect(&w1, &!&w2);
    m.connect(&w2, &w1);
    m.connect(&y, &w2);
    let e = only_error(m.finish());
    assert!(
        e == format!("{}: combinational loop at M.w1: w1 -> w2 -> w1", at(line))
            || e == format!(
                "{}: combinational loop at M.w2: w2 -> w1 -> w2",
                at(line + 1)
            ),
        "{e}"
    );
}

#[test]
fn combinational_loop_through_a_submodule() {
    let child = wire_through();
    let mut m = ModuleBuilder::new("M");
    let y = m.output("y", 2);
    let line = line!() + 1;
    let u = m.instance("u", &child);
    m.connect(&u.port("i"), &u.port("o"));
    m.connect(&y, &u.port("o"));
    let e = only_error(m.finish());
    assert!(
        e.starts_with(&format!("{}: combinational loop at M.u_", at(line))),
        "{e}"
    );
    assert!(e.contains("u_i -> u_o") || e.contains("u_o -> u_i"), "{e}");
}

#[test]
fn a_register_breaks_a_loop() {
    let mut m = ModuleBuilder::new("M");
    let y = m.output("y", 4);
    let r = m.reg("r", 4, 3u64);
    let one = m.lit(1, 4);
    m.connect(&r, &(&r + &one));
    m.connect(&y, &r);
    let d = Design::new(&m.finish().expect("no loop through a register"));
    let mut s = sim::Sim::new(&d);
    s.poke_u64("reset", 1).unwrap();
    s.step();
    s.poke_u64("reset", 0).unwrap();
    for i in 0..20u64 {
        assert_eq!(s.peek_u64("y").unwrap(), (3 + i) % 16);
        s.step();
    }
}

#[test]
fn unconnected_instance_input() {
    let child = wire_through();
    let mut m = ModuleBuilder::new("M");
    let y = m.output("y", 2);
    let line = line!() + 1;
    let u = m.instance("u", &child);
    m.connect(&y, &u.port("o"));
    assert_eq!(
        only_error(m.finish()),
        format!(
            "{}: unconnected instance input at M.u_i: input `i` of instance `u` (module `C`) is not connected",
            at(line)
        )
    );
}

#[test]
fn invalid_widths_and_slices() {
    let mut m = ModuleBuilder::new("M");
    let line = line!() + 1;
    let a = m.input("a", 0);
    let y = m.output("y", 1);
    m.connect(&y, &a);
    assert_eq!(
        only_error(m.finish()),
        format!(
            "{}: invalid width at M.a: width 0 is outside 1..=4096",
            at(line)
        )
    );

    let mut m = ModuleBuilder::new("M");
    let a = m.input("a", 8);
    let y = m.output("y", 1);
    let line = line!() + 1;
    let s = a.slice(8, 8);
    m.connect(&y, &s);
    assert_eq!(
        only_error(m.finish()),
        format!(
            "{}: width mismatch at M: slice [8:8] of a 8-bit `a`",
            at(line)
        )
    );
}

#[test]
fn all_errors_are_reported_together() {
    let mut m = ModuleBuilder::new("M");
    let a = m.input("a", 8);
    let _y = m.output("y", 8);
    let _z = m.output("z", 8);
    let _ = &a + &m.input("b", 4);
    let errs = m.finish().unwrap_err().0;
    let kinds: Vec<ErrorKind> = errs.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            ErrorKind::WidthMismatch,
            ErrorKind::Undriven,
            ErrorKind::Undriven
        ]
    );
}

#[test]
fn memory_never_written() {
    let mut m = ModuleBuilder::new("M");
    let a = m.input("a", 2);
    let y = m.output("y", 8);
    let line = line!() + 1;
    let mem = m.mem("rom", 4, 8, MemStyle::Inferred);
    let rd = m.read(&mem, &a);
    m.connect(&y, &rd);
    assert_eq!(
        only_error(m.finish()),
        format!(
            "{}: undriven at M.rom: memory `rom` is never written",
            at(line)
        )
    );
}

#[test]
fn onehot_decode_takes_a_signed_index() {
    let mut m = ModuleBuilder::new("M");
    let i = m.input("i", Ty::S(3));
    let y = m.output("y", 4);
    m.connect(&y, &hdl::helpers::onehot_decode(&i, 4));
    let mut s = sim::Sim::new(&Design::new(&m.finish().unwrap()));
    for (iv, expect) in [(0u64, 1u64), (3, 8), (5, 0)] {
        s.poke_u64("i", iv).unwrap();
        assert_eq!(s.peek_u64("y").unwrap(), expect);
    }
}

#[test]
fn a_register_without_reset_must_be_written() {
    let mut m = ModuleBuilder::new("M");
    let y = m.output("y", 4);
    let line = line!() + 1;
    let r = m.reg("r", 4, ResetValue::None);
    m.connect(&y, &r);
    assert_eq!(
        only_error(m.finish()),
        format!(
            "{}: undriven at M.r: register `r` has no reset and is never written",
            at(line)
        )
    );
}

#[test]
fn a_register_with_reset_must_be_written_with_something_else() {
    for self_driven in [false, true] {
        let mut m = ModuleBuilder::new("M");
        let y = m.output("y", 4);
        let c = m.input("c", Ty::U(1));
        let line = line!() + 1;
        let r = m.reg("r", 4, 0u64);
        if self_driven {
            m.when(&c, |m| m.connect(&r, &r));
        }
        m.connect(&y, &r);
        assert_eq!(
            only_error(m.finish()),
            format!(
                "{}: undriven at M.r: register `r` is never written: it holds its reset value \
                 forever (a constant, or logic that looks for it before it exists)",
                at(line)
            )
        );
    }
    // Written under a condition, it is a register.
    let mut m = ModuleBuilder::new("M");
    let y = m.output("y", 4);
    let c = m.input("c", Ty::U(1));
    let r = m.reg("r", 4, 0u64);
    let one = m.lit(1, 4);
    m.when(&c, |m| m.connect(&r, &(&r + &one)));
    m.connect(&y, &r);
    assert!(m.finish().is_ok());
}
