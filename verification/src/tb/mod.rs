//! Test-bench building blocks: a memory model that serves a design's memory ports and a
//! lockstep checker that compares a design's commit trace with a golden model.
//!
//! Both talk to the design only through [`SignalAccess`] (poke inputs, peek ports), so the
//! same test bench drives the IR simulator (`hdl::sim::Sim`) and compiled RTL simulators.

pub mod lockstep;
pub mod memory;

use hdl::sim::Sim;
use hdl::Bits;

/// A failed poke or peek, from whichever simulator is underneath.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct SignalError(pub Box<dyn std::error::Error + Send + Sync + 'static>);

/// The view of a design a test bench needs: poke top-level inputs, peek top-level ports
/// (outputs, and inputs too, which test benches use to check port widths).
pub trait SignalAccess {
    /// Drives input `port`; it keeps the value until poked again.
    fn poke(&mut self, port: &str, value: &Bits) -> Result<(), SignalError>;
    /// The current (settled) value of `port`.
    fn peek(&mut self, port: &str) -> Result<Bits, SignalError>;

    fn poke_u64(&mut self, port: &str, value: u64) -> Result<(), SignalError> {
        self.poke(port, &Bits::from_u64(64, value))
    }

    /// The low 64 bits of `port`.
    fn peek_u64(&mut self, port: &str) -> Result<u64, SignalError> {
        Ok(self.peek(port)?.to_u64())
    }
}

impl SignalAccess for Sim {
    fn poke(&mut self, port: &str, value: &Bits) -> Result<(), SignalError> {
        Sim::poke(self, port, value).map_err(|e| SignalError(Box::new(e)))
    }

    fn peek(&mut self, port: &str) -> Result<Bits, SignalError> {
        Sim::peek(self, port).map_err(|e| SignalError(Box::new(e)))
    }
}
