use hdl::*;
fn main() {
    let mut c = ModuleBuilder::new("Child");
    let a = c.input("a", 8);
    let b = c.input("b", 8);
    let y = c.output("y", 9);
    c.connect(&y, &a.addc(&b));
    let child = c.finish().unwrap();

    let mut m = ModuleBuilder::new("Top");
    let x = m.input("x", 8);
    let s = m.input("s", 3);
    let en = m.input("en", 1);
    let out = m.output("out", 9);
    let o2 = m.output("o2", 8);
    let r = m.reg("acc", 8, 0u64);
    let u0 = m.instance("u0", &child);
    let u1 = m.instance("u1", &child);
    m.connect(&u0.port("a"), &x);
    m.connect(&u0.port("b"), &r);
    m.connect(&u1.port("a"), &x.as_signed().dshr(&s).as_unsigned());
    m.connect(&u1.port("b"), &x.slice(7, 4).zext(8));
    let w = m.wire("w", 9);
    m.when(&en, |m| m.connect(&w, &u0.port("y")))
        .otherwise(|m| m.connect(&w, &u1.port("y")));
    m.connect(&out, &w);
    m.when(&en, |m| m.connect(&r, &(&r + &x)));
    let mem = m.mem("ram", 16, 8, MemStyle::Inferred);
    let rd = m.read_sync(&mem, &x.slice(3, 0), &en);
    m.when(&en, |m| m.write(&mem, &s.zext(4), &x));
    m.connect(&o2, &rd);
    let top = m.finish().unwrap();
    let d = Design::new(&top);
    let e = emit::emit(&d, &emit::EmitOptions::default());
    print!("{}", e.single_file());
    sim_check(&d);
}

#[allow(dead_code)]
fn sim_check(d: &Design) {
    let mut s = sim::Sim::new(d);
    s.poke_u64("reset", 1).unwrap();
    s.step();
    s.poke_u64("reset", 0).unwrap();
    s.poke_u64("en", 1).unwrap();
    for i in 0..5u64 {
        s.poke_u64("x", 10 + i).unwrap();
        s.poke_u64("s", i).unwrap();
        println!(
            "cycle {} out={} o2={}",
            s.cycle(),
            s.peek_u64("out").unwrap(),
            s.peek_u64("o2").unwrap()
        );
        s.step();
    }
}
