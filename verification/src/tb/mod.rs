//! Test-bench building blocks: a memory model that serves a design's memory ports and a
//! lockstep checker that compares a design's commit trace with a golden model.
//!
//! Both reach the design only through [`Simulator`]'s poke and peek, so the same test
//! bench drives the IR simulator (`hdl::sim::Sim`) and in-process Verilator models. Each
//! is called once per cycle, before the clock edge; stepping the clock stays with the
//! caller, who may be serving other ports of the same design in the same cycle.

pub mod dws_follow;
pub mod dws_seq;
pub mod fast_forward;
pub mod fgsimt;
pub mod kernel_check;
pub mod lockstep;
pub mod memory;
pub mod program;
pub mod soc;
pub mod vgiw;

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

/// A console that keeps what a program writes, for the caller to read afterwards
/// (clones share the buffer: one goes to the run, the other stays).
#[derive(Clone, Default)]
pub struct Capture(Rc<RefCell<Vec<u8>>>);

impl Capture {
    /// Everything written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.borrow()).into_owned()
    }
}

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub use crate::simulator::Simulator;
use hdl::Bits;

/// A failed poke or peek, with the simulator's own error (which names the port).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct SignalError(pub Box<dyn std::error::Error + Send + Sync + 'static>);

fn signal<T, E: std::error::Error + Send + Sync + 'static>(
    r: Result<T, E>,
) -> Result<T, SignalError> {
    r.map_err(|e| SignalError(Box::new(e)))
}

fn poke<S: Simulator>(dut: &mut S, port: &str, value: &Bits) -> Result<(), SignalError> {
    signal(dut.poke(port, value))
}

fn poke_u64<S: Simulator>(dut: &mut S, port: &str, value: u64) -> Result<(), SignalError> {
    signal(dut.poke_u64(port, value))
}

fn peek<S: Simulator>(dut: &mut S, port: &str) -> Result<Bits, SignalError> {
    signal(dut.peek(port))
}

fn peek_u64<S: Simulator>(dut: &mut S, port: &str) -> Result<u64, SignalError> {
    signal(dut.peek_u64(port))
}
