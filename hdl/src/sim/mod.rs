//! A cycle-based simulator of the elaborated IR, for fast unit tests without Verilator.
//!
//! Semantics match the emitted Verilog: inputs poked, combinational logic settles, outputs
//! peeked; `step` is one rising clock edge (registers, synchronous reads with read-old
//! semantics, then memory writes in port order). `reset` is an ordinary input port.

mod eval;
mod flatten;
mod vcd;

use crate::bits::Bits;
use crate::design::Design;
use eval::{Machine, Slot};
use flatten::Flat;
use std::io::Write;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("no input port `{0}` on the top module")]
    NoInput(String),
    #[error("no port `{0}` on the top module")]
    NoPort(String),
    #[error("value {value} does not fit port `{port}` of {width} bits")]
    TooWide {
        port: String,
        width: u32,
        value: String,
    },
    #[error("waveform output failed: {0}")]
    Io(String),
}

/// The state a simulation starts from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Init {
    /// Every register, read-data register and memory word at zero.
    #[default]
    Zero,
    /// Every register, read-data register and memory word (but preloaded ones) at
    /// pseudo-random values from `seed`, as Verilator's `--x-initial unique` with
    /// `+verilator+rand+reset+2`: a design that observes nothing before writing it (or
    /// resetting it) behaves the same under every seed.
    Random { seed: u64 },
}

/// SplitMix64 (Steele, Lea and Flood): a stream of well-mixed words from one seed (the
/// random initial states; tests use it for reproducible stimulus).
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

pub struct Sim {
    flat: Flat,
    m: Machine,
    dirty: bool,
    cycle: u64,
    vcd: Option<vcd::VcdDump>,
    reg_next: Vec<u64>,
}

impl Sim {
    /// A simulation starting from zeros ([`Init::Zero`]).
    pub fn new(design: &Design) -> Sim {
        Sim::with_init(design, Init::Zero)
    }

    /// A simulation starting from `init`.
    pub fn with_init(design: &Design, init: Init) -> Sim {
        let flat = flatten::flatten(design.top());
        let m = machine(&flat, init);
        Sim {
            flat,
            m,
            dirty: true,
            cycle: 0,
            vcd: None,
            reg_next: Vec::new(),
        }
    }

    /// Starts over from `init`: every value, register and memory word as `init` says
    /// (inputs at zero), cycle 0.
    pub fn reinit(&mut self, init: Init) {
        self.m = machine(&self.flat, init);
        self.dirty = true;
        self.cycle = 0;
    }

    /// Rising clock edges so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    pub fn poke(&mut self, port: &str, value: &Bits) -> Result<(), SimError> {
        let slot = *self
            .flat
            .inputs
            .get(port)
            .ok_or_else(|| SimError::NoInput(port.to_string()))?;
        let fits = value.words().iter().enumerate().all(|(i, &w)| {
            let lo = i as u32 * 64;
            lo + 64 <= slot.w
                || (lo >= slot.w && w == 0)
                || (lo < slot.w && w >> (slot.w - lo) == 0)
        });
        if !fits {
            return Err(SimError::TooWide {
                port: port.to_string(),
                width: slot.w,
                value: value.to_string(),
            });
        }
        self.m
            .store_words(slot, Bits::from_words(slot.w, value.words()).words());
        self.dirty = true;
        Ok(())
    }

    pub fn poke_u64(&mut self, port: &str, value: u64) -> Result<(), SimError> {
        self.poke(port, &Bits::from_u64(64, value))
    }

    fn settle(&mut self) {
        if self.dirty {
            for ins in &self.flat.instrs {
                self.m.exec(ins);
            }
            self.dirty = false;
        }
    }

    fn port_slot(&self, port: &str) -> Result<Slot, SimError> {
        self.flat
            .outputs
            .get(port)
            .or_else(|| self.flat.inputs.get(port))
            .copied()
            .ok_or_else(|| SimError::NoPort(port.to_string()))
    }

    /// The current value of a top-level port.
    pub fn peek(&mut self, port: &str) -> Result<Bits, SimError> {
        let slot = self.port_slot(port)?;
        self.settle();
        Ok(Bits::from_words(slot.w, &self.m.words(slot)))
    }

    pub fn peek_u64(&mut self, port: &str) -> Result<u64, SimError> {
        Ok(self.peek(port)?.to_u64())
    }

    /// One rising clock edge.
    pub fn step(&mut self) {
        self.settle();
        if let Some(v) = &mut self.vcd {
            v.sample(&self.m, &self.flat, self.cycle * 2);
        }
        let reset = self.flat.reset.is_some_and(|r| self.m.is_true(r));
        // Sample everything from the pre-edge state, then commit.
        // Next register values go to one reused buffer, back to back.
        let mut next = std::mem::take(&mut self.reg_next);
        next.clear();
        for r in &self.flat.regs {
            let src = if let (true, Some(value)) = (reset, &r.reset) {
                next.extend_from_slice(value.words());
                continue;
            } else if reset {
                r.slot
            } else if r.enable.is_none_or(|e| self.m.is_true(e)) {
                r.next
            } else {
                r.slot
            };
            next.extend_from_slice(
                &self.m.vals[src.off as usize..src.off as usize + crate::bits::words_for(src.w)],
            );
        }
        let mut read_data: Vec<(Slot, Vec<u64>)> = Vec::new();
        for (mi, mem) in self.flat.mems.iter().enumerate() {
            for r in &mem.sync_reads {
                if self.m.is_true(r.en) {
                    let addr = self.m.words(r.addr);
                    let idx = if addr[1..].iter().any(|&w| w != 0) {
                        u64::MAX
                    } else {
                        addr[0]
                    };
                    read_data.push((r.data, self.m.mem_word(mi, idx)));
                }
            }
        }
        for (mi, mem) in self.flat.mems.iter().enumerate() {
            let n = crate::bits::words_for(mem.width);
            for w in &mem.writes {
                if !self.m.is_true(w.en) {
                    continue;
                }
                let addr = self.m.words(w.addr);
                if addr[1..].iter().any(|&x| x != 0) || addr[0] >= mem.depth {
                    continue;
                }
                let at = addr[0] as usize * n;
                let data = self.m.words(w.data);
                match w.mask {
                    None => self.m.mems[mi][at..at + n].copy_from_slice(&data),
                    Some(mask) => {
                        for g in 0..mem.width / w.gran {
                            if !self.m.bit(mask, g) {
                                continue;
                            }
                            for b in g * w.gran..(g + 1) * w.gran {
                                let (word, bit) = (at + (b / 64) as usize, b % 64);
                                let v = (data[(b / 64) as usize] >> bit) & 1;
                                self.m.mems[mi][word] =
                                    (self.m.mems[mi][word] & !(1 << bit)) | (v << bit);
                            }
                        }
                    }
                }
            }
        }
        let mut at = 0;
        for r in &self.flat.regs {
            let n = crate::bits::words_for(r.slot.w);
            self.m.store_words(r.slot, &next[at..at + n]);
            at += n;
        }
        self.reg_next = next;
        for (slot, v) in read_data {
            self.m.store_words(slot, &v);
        }
        self.cycle += 1;
        self.dirty = true;
    }

    /// Dumps every named signal of the hierarchy to `out` as VCD, sampled just before each
    /// clock edge (time = 2 x cycle) until `finish_vcd` or drop.
    pub fn dump_vcd(&mut self, out: Box<dyn Write>) -> Result<(), SimError> {
        self.vcd =
            Some(vcd::VcdDump::new(out, &self.flat).map_err(|e| SimError::Io(e.to_string()))?);
        Ok(())
    }

    /// Writes the final sample and flushes the waveform.
    pub fn finish_vcd(&mut self) -> Result<(), SimError> {
        self.settle();
        if let Some(mut v) = self.vcd.take() {
            v.sample(&self.m, &self.flat, self.cycle * 2);
            v.flush().map_err(|e| SimError::Io(e.to_string()))?;
        }
        Ok(())
    }
}

/// The state of a new simulation of `flat`.
fn machine(flat: &Flat, init: Init) -> Machine {
    let mut m = Machine {
        vals: vec![0; flat.n_words],
        mems: flat
            .mems
            .iter()
            .map(|d| {
                let mut words = vec![0; d.depth as usize * crate::bits::words_for(d.width)];
                // Preloaded memories have words of at most 64 bits: one word each.
                if let Some(init) = &d.init {
                    words[..init.len()].copy_from_slice(init);
                }
                words
            })
            .collect(),
        mem_words: flat
            .mems
            .iter()
            .map(|d| crate::bits::words_for(d.width))
            .collect(),
        mem_depth: flat.mems.iter().map(|d| d.depth).collect(),
    };
    if let Init::Random { seed } = init {
        randomize(flat, &mut m, &mut SplitMix(seed));
    }
    for (slot, bits) in &flat.consts {
        m.store_words(*slot, bits.words());
    }
    m
}

/// Random values in every register, read-data register and memory word not preloaded.
fn randomize(flat: &Flat, m: &mut Machine, rng: &mut SplitMix) {
    let mut fill = |m: &mut Machine, slot: Slot| {
        let words: Vec<u64> = (0..crate::bits::words_for(slot.w))
            .map(|_| rng.next_u64())
            .collect();
        m.store_words(slot, &words);
    };
    for r in &flat.regs {
        fill(m, r.slot);
    }
    for mem in &flat.mems {
        for r in &mem.sync_reads {
            fill(m, r.data);
        }
    }
    // Preloaded memories are wholly defined (their hex files list every word).
    for (mi, d) in flat
        .mems
        .iter()
        .enumerate()
        .filter(|(_, d)| d.init.is_none())
    {
        let per = crate::bits::words_for(d.width);
        let top = match d.width % 64 {
            0 => u64::MAX,
            w => (1u64 << w) - 1,
        };
        for (i, word) in m.mems[mi].iter_mut().enumerate() {
            *word = rng.next_u64() & if i % per == per - 1 { top } else { u64::MAX };
        }
    }
}
