//! What a cycle-based simulator of a design offers, so that a test can run the IR
//! simulator and a Verilator model through the same code.

use crate::rng::Rng;
use crate::verilator::PortSpec;
use hdl::sim::Init;
use hdl::{Bits, Dir};

pub trait Simulator {
    type Error: std::error::Error + Send + Sync + 'static;

    /// Sets a top-level input; it takes effect at the next peek or clock edge.
    fn poke(&mut self, port: &str, value: &Bits) -> Result<(), Self::Error>;

    fn poke_u64(&mut self, port: &str, value: u64) -> Result<(), Self::Error>;

    /// The current value of a top-level port, combinational logic settled.
    fn peek(&mut self, port: &str) -> Result<Bits, Self::Error>;

    /// The low 64 bits of `peek`.
    fn peek_u64(&mut self, port: &str) -> Result<u64, Self::Error>;

    /// One rising clock edge.
    fn step(&mut self);

    /// Rising clock edges so far.
    fn cycle(&self) -> u64;

    /// Starts over from `init` (registers and memories; inputs at zero; cycle 0).
    fn reinit(&mut self, init: Init) -> Result<(), Self::Error>;
}

/// A borrowed simulator, so that one model serves several runs.
impl<S: Simulator + ?Sized> Simulator for &mut S {
    type Error = S::Error;

    fn poke(&mut self, port: &str, value: &Bits) -> Result<(), Self::Error> {
        (**self).poke(port, value)
    }

    fn poke_u64(&mut self, port: &str, value: u64) -> Result<(), Self::Error> {
        (**self).poke_u64(port, value)
    }

    fn peek(&mut self, port: &str) -> Result<Bits, Self::Error> {
        (**self).peek(port)
    }

    fn peek_u64(&mut self, port: &str) -> Result<u64, Self::Error> {
        (**self).peek_u64(port)
    }

    fn step(&mut self) {
        (**self).step()
    }

    fn cycle(&self) -> u64 {
        (**self).cycle()
    }

    fn reinit(&mut self, init: Init) -> Result<(), Self::Error> {
        (**self).reinit(init)
    }
}

impl Simulator for hdl::sim::Sim {
    type Error = hdl::sim::SimError;

    fn poke(&mut self, port: &str, value: &Bits) -> Result<(), Self::Error> {
        hdl::sim::Sim::poke(self, port, value)
    }

    fn poke_u64(&mut self, port: &str, value: u64) -> Result<(), Self::Error> {
        hdl::sim::Sim::poke_u64(self, port, value)
    }

    fn peek(&mut self, port: &str) -> Result<Bits, Self::Error> {
        hdl::sim::Sim::peek(self, port)
    }

    fn peek_u64(&mut self, port: &str) -> Result<u64, Self::Error> {
        hdl::sim::Sim::peek_u64(self, port)
    }

    fn step(&mut self) {
        hdl::sim::Sim::step(self)
    }

    fn cycle(&self) -> u64 {
        hdl::sim::Sim::cycle(self)
    }

    fn reinit(&mut self, init: Init) -> Result<(), Self::Error> {
        hdl::sim::Sim::reinit(self, init);
        Ok(())
    }
}

// Inline across crates: tests drive models through this trait cycle by cycle.
impl Simulator for crate::verilator::Model {
    type Error = crate::verilator::Error;

    #[inline]
    fn poke(&mut self, port: &str, value: &Bits) -> Result<(), Self::Error> {
        crate::verilator::Model::poke(self, port, value)
    }

    #[inline]
    fn poke_u64(&mut self, port: &str, value: u64) -> Result<(), Self::Error> {
        crate::verilator::Model::poke_u64(self, port, value)
    }

    #[inline]
    fn peek(&mut self, port: &str) -> Result<Bits, Self::Error> {
        crate::verilator::Model::peek(self, port)
    }

    #[inline]
    fn peek_u64(&mut self, port: &str) -> Result<u64, Self::Error> {
        crate::verilator::Model::peek_u64(self, port)
    }

    #[inline]
    fn step(&mut self) {
        crate::verilator::Model::step(self)
    }

    #[inline]
    fn cycle(&self) -> u64 {
        crate::verilator::Model::cycle(self)
    }

    fn reinit(&mut self, init: Init) -> Result<(), Self::Error> {
        crate::verilator::Model::reinit(self, init)
    }
}

/// What drives a design's inputs in `exercise`.
#[derive(Clone, Copy, Debug)]
pub enum Stimulus {
    /// A new random value (biased to corner cases) on every input in every cycle.
    Random { seed: u64 },
    /// Every input held at zero.
    Idle,
}

/// What a run saw of one output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputStats {
    pub last: Bits,
    /// Cycles in which it was nonzero.
    pub nonzero: u64,
    /// Cycles in which it differed from the cycle before.
    pub changes: u64,
}

/// Resets the design for one cycle (every other input zero), then runs `cycles` cycles
/// of `stimulus` on the inputs among `ports` but `reset`, and reports each output among
/// `ports`, sampled before every clock edge.
pub fn exercise<S: Simulator>(
    sim: &mut S,
    ports: &[PortSpec],
    stimulus: Stimulus,
    cycles: u64,
) -> Result<Vec<OutputStats>, S::Error> {
    let inputs: Vec<&PortSpec> = ports.iter().filter(|p| p.dir == Dir::In).collect();
    let outputs: Vec<&PortSpec> = ports.iter().filter(|p| p.dir == Dir::Out).collect();
    for p in &inputs {
        sim.poke_u64(&p.name, u64::from(p.name == "reset"))?;
    }
    sim.step();
    if inputs.iter().any(|p| p.name == "reset") {
        sim.poke_u64("reset", 0)?;
    }
    let mut stats = outputs
        .iter()
        .map(|p| {
            Ok(OutputStats {
                last: sim.peek(&p.name)?,
                nonzero: 0,
                changes: 0,
            })
        })
        .collect::<Result<Vec<_>, S::Error>>()?;
    let mut rng = match stimulus {
        Stimulus::Random { seed } => Some(Rng::new(seed)),
        Stimulus::Idle => None,
    };
    for _ in 0..cycles {
        if let Some(rng) = &mut rng {
            for p in inputs.iter().filter(|p| p.name != "reset") {
                sim.poke(&p.name, &rng.bits(p.width))?;
            }
        }
        for (p, s) in outputs.iter().zip(&mut stats) {
            let v = sim.peek(&p.name)?;
            s.nonzero += u64::from(!v.is_zero());
            s.changes += u64::from(v != s.last);
            s.last = v;
        }
        sim.step();
    }
    Ok(stats)
}
