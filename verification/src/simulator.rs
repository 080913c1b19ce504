//! What a cycle-based simulator of a design offers, so that a test can run the IR
//! simulator and a Verilator model through the same code.

use hdl::Bits;

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
}

impl Simulator for crate::verilator::Model {
    type Error = crate::verilator::Error;

    fn poke(&mut self, port: &str, value: &Bits) -> Result<(), Self::Error> {
        crate::verilator::Model::poke(self, port, value)
    }

    fn poke_u64(&mut self, port: &str, value: u64) -> Result<(), Self::Error> {
        crate::verilator::Model::poke_u64(self, port, value)
    }

    fn peek(&mut self, port: &str) -> Result<Bits, Self::Error> {
        crate::verilator::Model::peek(self, port)
    }

    fn peek_u64(&mut self, port: &str) -> Result<u64, Self::Error> {
        crate::verilator::Model::peek_u64(self, port)
    }

    fn step(&mut self) {
        crate::verilator::Model::step(self)
    }

    fn cycle(&self) -> u64 {
        crate::verilator::Model::cycle(self)
    }
}
