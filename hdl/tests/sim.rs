//! Simulator API behaviour: port errors, waveforms, memory semantics.

use hdl::sim::{Sim, SimError};
use hdl::*;
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

fn counter() -> Design {
    let mut m = ModuleBuilder::new("Counter");
    let en = m.input("en", 1);
    let y = m.output("y", 4);
    let r = m.reg_en("count", 4, 0u64, &en);
    let one = m.lit(1, 4);
    m.connect(&r, &(&r + &one));
    m.connect(&y, &r);
    Design::new(&m.finish().unwrap())
}

#[test]
fn bad_pokes_and_peeks_are_errors() {
    let mut s = Sim::new(&counter());
    assert_eq!(s.poke_u64("nope", 1), Err(SimError::NoInput("nope".into())));
    assert_eq!(s.poke_u64("y", 1), Err(SimError::NoInput("y".into())));
    assert_eq!(
        s.poke_u64("en", 2).unwrap_err().to_string(),
        "value 64'h0000000000000002 does not fit port `en` of 1 bits"
    );
    assert_eq!(s.peek("nope"), Err(SimError::NoPort("nope".into())));
}

#[test]
fn enable_gates_updates_and_reset_wins() {
    let mut s = Sim::new(&counter());
    s.poke_u64("reset", 1).unwrap();
    s.poke_u64("en", 1).unwrap();
    s.step();
    assert_eq!(s.peek_u64("y").unwrap(), 0);
    s.poke_u64("reset", 0).unwrap();
    s.step();
    s.step();
    assert_eq!(s.peek_u64("y").unwrap(), 2);
    s.poke_u64("en", 0).unwrap();
    s.step();
    assert_eq!(s.peek_u64("y").unwrap(), 2);
}

#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn vcd_has_scopes_and_value_changes() {
    let buf = Shared::default();
    let mut s = Sim::new(&counter());
    s.dump_vcd(Box::new(buf.clone())).unwrap();
    s.poke_u64("reset", 1).unwrap();
    s.step();
    s.poke_u64("reset", 0).unwrap();
    s.poke_u64("en", 1).unwrap();
    for _ in 0..3 {
        s.step();
    }
    s.finish_vcd().unwrap();
    let text = String::from_utf8(buf.0.borrow().clone()).unwrap();
    assert!(text.contains("$scope module Counter $end"), "{text}");
    let id = text
        .lines()
        .find_map(|l| {
            l.strip_suffix(" count $end")
                .and_then(|l| l.strip_prefix("$var wire 4 "))
        })
        .unwrap_or_else(|| panic!("no count variable in {text}"));
    // Sampled before each edge (time 2 x cycle), values only when they change: reset
    // holds 0 through #2, then the enabled counter counts.
    for (t, v) in [(0, "b0000"), (4, "b0001"), (6, "b0010"), (8, "b0011")] {
        let at = text
            .find(&format!("#{t}\n"))
            .unwrap_or_else(|| panic!("no #{t} in {text}"));
        let block = format!("{}\n", text[at..].split("\n#").next().unwrap());
        assert!(
            block.contains(&format!("{v} {id}\n")),
            "no {v} for count at #{t} in {text}"
        );
    }
}

#[test]
fn synchronous_reads_see_old_data_and_later_writes_win() {
    let mut m = ModuleBuilder::new("M");
    let addr = m.input("addr", 2);
    let d0 = m.input("d0", 8);
    let d1 = m.input("d1", 8);
    let we = m.input("we", 1);
    let y = m.output("y", 8);
    let mem = m.mem("ram", 4, 8, MemStyle::Inferred);
    let one = m.lit(1, 1);
    let rd = m.read_sync(&mem, &addr, &one);
    m.when(&we, |m| {
        m.write(&mem, &addr, &d0);
        m.write(&mem, &addr, &d1);
    });
    m.connect(&y, &rd);
    let mut s = Sim::new(&Design::new(&m.finish().unwrap()));
    s.poke_u64("reset", 1).unwrap();
    s.step();
    s.poke_u64("reset", 0).unwrap();
    s.poke_u64("addr", 2).unwrap();
    s.poke_u64("d0", 0x11).unwrap();
    s.poke_u64("d1", 0x22).unwrap();
    s.poke_u64("we", 1).unwrap();
    s.step();
    assert_eq!(
        s.peek_u64("y").unwrap(),
        0,
        "read in the write cycle returns the old word"
    );
    s.poke_u64("we", 0).unwrap();
    s.step();
    assert_eq!(s.peek_u64("y").unwrap(), 0x22, "the later write port wins");
}

/// `popcount_tree` and `prefix_counts` against `count_ones` on every value of 13 bits
/// (an odd width: a tree level with a lone operand) and `popcount`'s chain.
#[test]
fn tree_popcount_and_prefix_counts_count_ones() {
    let mut m = ModuleBuilder::new("Counts");
    let v = m.input("v", 13);
    let tree = m.output("tree", 4);
    let chain = m.output("chain", 4);
    let t = helpers::popcount_tree(&v);
    m.connect(&tree, &t);
    m.connect(&chain, &helpers::popcount(&v));
    let bits: Vec<Value> = (0..13).map(|i| v.bit(i)).collect();
    for (i, c) in helpers::prefix_counts(&bits, 4).iter().enumerate() {
        let o = m.output(&format!("before{i}"), 4);
        m.connect(&o, c);
    }
    let mut s = Sim::new(&Design::new(&m.finish().unwrap()));
    for x in 0..1u64 << 13 {
        s.poke_u64("v", x).unwrap();
        assert_eq!(s.peek_u64("tree").unwrap(), x.count_ones() as u64, "{x:#x}");
        assert_eq!(
            s.peek_u64("chain").unwrap(),
            x.count_ones() as u64,
            "{x:#x}"
        );
        for i in 0..13 {
            let below = x & ((1 << i) - 1);
            let got = s.peek_u64(&format!("before{i}")).unwrap();
            assert_eq!(got, below.count_ones() as u64, "{x:#x} before {i}");
        }
    }
}
